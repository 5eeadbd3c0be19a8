import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Pool load written apart from lab/java/PoolAndGc.java. One bounded ThreadPoolExecutor
 * ("NAME-N" threads, AbortPolicy) fed by one "io-reader" thread that takes requests from an
 * inbox (the socket backlog) and hands them to the pool.
 *
 * MODE under: requests arrive at RATE/s for LOAD_S, then at 2/s for TAIL_S; the reader keeps up,
 *             so the pool saturates under load when RATE * TASK_MS / 1000 > MAX.
 * MODE after: the reader is stuck for LOAD_S (a jammed connection: requests pile up in the
 *             inbox, the pool idles), then drains the inbox as fast as it can once the
 *             traffic stops: the pool saturates only after the load was removed (report A).
 * MODE busy:  RATE/s throughout LOAD_S + TAIL_S, below the pool's capacity (healthy contrast).
 *
 * A task waits TASK_MS in one of three ways (WAIT): sleep (Thread.sleep), park
 * (LockSupport.parkNanos), future (CompletableFuture.get on a delayed completion), so that a
 * jstack shows workers TIMED_WAITING inside a task, not idle.
 *
 * Files: METRICS every INTERVAL_MS, as JSON lines (FORMAT json: @timestamp, executor,
 * activeCount, corePoolSize, maximumPoolSize, poolSize, queueSize, remainingCapacity,
 * completedTaskCount, rejectedCount) or semicolon CSV (FORMAT csv: "time;pool;active;max;
 * queue;queue_capacity;completed;rejections", local "yyyy-MM-dd HH:mm:ss.SSS" in UTC);
 * APPLOG gets one record per rejection, LOG dubbo ("[DUBBO] Thread pool is EXHAUSTED!") or
 * LOG reject (logback line + RejectedExecutionException with its stack trace).
 *
 * Usage: java PoolPressure MODE CORE MAX QUEUE TASK_MS RATE LOAD_S TAIL_S METRICS APPLOG FORMAT LOG WAIT INTERVAL_MS NAME
 */
public class PoolPressure {
    static final DateTimeFormatter LOGTS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    public static void main(String[] a) throws Exception {
        String mode = a[0];
        int core = Integer.parseInt(a[1]);
        int max = Integer.parseInt(a[2]);
        int queue = Integer.parseInt(a[3]);
        long taskMs = Long.parseLong(a[4]);
        double rate = Double.parseDouble(a[5]);
        double loadS = Double.parseDouble(a[6]);
        double tailS = Double.parseDouble(a[7]);
        String metrics = a[8];
        String appLog = a[9];
        String format = a[10];
        String logKind = a[11];
        String waitKind = a[12];
        long intervalMs = Long.parseLong(a[13]);
        String name = a[14];

        BlockingQueue<Runnable> q = queue == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queue);
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(core, max, 60, TimeUnit.SECONDS, q, tf);
        AtomicLong rejected = new AtomicLong();
        PrintWriter log = new PrintWriter(new FileWriter(appLog), true);
        PrintWriter out = new PrintWriter(new FileWriter(metrics), true);
        if (format.equals("csv")) {
            out.println("time;pool;active;max;queue;queue_capacity;completed;rejections");
        }
        Thread sampler = new Thread(() -> {
            while (true) {
                long now = System.currentTimeMillis();
                int qs = pool.getQueue().size();
                int rem = pool.getQueue().remainingCapacity();
                if (format.equals("csv")) {
                    out.println(LocalDateTime.ofInstant(Instant.ofEpochMilli(now), ZoneOffset.UTC).format(LOGTS) + ";" + name + ";"
                            + pool.getActiveCount() + ";" + pool.getMaximumPoolSize() + ";" + qs + ";" + (queue) + ";"
                            + pool.getCompletedTaskCount() + ";" + rejected.get());
                } else {
                    out.println("{\"@timestamp\":\"" + Instant.ofEpochMilli(now) + "\",\"executor\":\"" + name
                            + "\",\"activeCount\":" + pool.getActiveCount() + ",\"corePoolSize\":" + pool.getCorePoolSize()
                            + ",\"maximumPoolSize\":" + pool.getMaximumPoolSize() + ",\"poolSize\":" + pool.getPoolSize()
                            + ",\"queueSize\":" + qs + ",\"remainingCapacity\":" + rem
                            + ",\"completedTaskCount\":" + pool.getCompletedTaskCount() + ",\"rejectedCount\":" + rejected.get() + "}");
                }
                try {
                    Thread.sleep(intervalMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "metrics-sampler");
        sampler.setDaemon(true);
        sampler.start();

        LinkedBlockingQueue<Long> inbox = new LinkedBlockingQueue<>();
        long t0 = System.nanoTime();
        long loadEnd = t0 + (long) (loadS * 1e9);
        long end = loadEnd + (long) (tailS * 1e9);
        Runnable task = () -> {
            try {
                if (waitKind.equals("park")) {
                    LockSupport.parkNanos(taskMs * 1_000_000L);
                } else if (waitKind.equals("future")) {
                    CompletableFuture<String> f = new CompletableFuture<>();
                    CompletableFuture.delayedExecutor(taskMs, TimeUnit.MILLISECONDS).execute(() -> f.complete("ok"));
                    f.get();
                } else {
                    Thread.sleep(taskMs);
                }
            } catch (Exception e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread reader = new Thread(() -> {
            while (true) {
                if (mode.equals("after") && System.nanoTime() < loadEnd) {
                    LockSupport.parkNanos(10_000_000L); // stuck: the connection is jammed
                    continue;
                }
                Long id;
                try {
                    id = inbox.poll(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (id == null) {
                    if (System.nanoTime() > end) {
                        return;
                    }
                    continue;
                }
                try {
                    pool.execute(task);
                } catch (RejectedExecutionException e) {
                    long r = rejected.incrementAndGet();
                    String ts = LocalDateTime.now(ZoneOffset.UTC).format(LOGTS);
                    if (logKind.equals("dubbo")) {
                        log.println(ts + " WARN  [io-reader] o.a.d.c.t.s.AbortPolicyWithReport -  [DUBBO] Thread pool is EXHAUSTED! Thread Name: "
                                + name + ", Pool Size: " + pool.getPoolSize() + " (active: " + pool.getActiveCount() + ", core: "
                                + pool.getCorePoolSize() + ", max: " + pool.getMaximumPoolSize() + ", largest: " + pool.getLargestPoolSize()
                                + "), Task: " + pool.getTaskCount() + " (completed: " + pool.getCompletedTaskCount()
                                + "), Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), in dubbo://127.0.0.1:20880!");
                    } else {
                        StringWriter sw = new StringWriter();
                        e.printStackTrace(new PrintWriter(sw));
                        log.print(ts + " ERROR [io-reader] com.example.Dispatcher - request " + id + " rejected (" + r + " so far)\n" + sw);
                        log.flush();
                    }
                }
            }
        }, "io-reader");
        reader.start();

        long id = 0;
        double periodNs = 1e9 / rate;
        long next = System.nanoTime();
        while (System.nanoTime() < end) {
            boolean loaded = System.nanoTime() < loadEnd || mode.equals("busy");
            if (loaded || mode.equals("under")) {
                inbox.add(id++);
            }
            next += loaded ? (long) periodNs : 500_000_000L;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
        reader.join();
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        Thread.sleep(intervalMs * 2);
        System.out.println("{\"mode\":\"" + mode + "\",\"offered\":" + id + ",\"completed\":" + pool.getCompletedTaskCount()
                + ",\"rejected\":" + rejected.get() + ",\"largest\":" + pool.getLargestPoolSize() + "}");
        out.close();
        log.close();
    }
}
