import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lab load for threadpool_exhaustion and gc_pauses: a service with a bounded business pool
 * ("order-service": core 4, max 8, queue 50, AbortPolicy) and a heap under pressure.
 *
 * Phases (seconds from start): 0..warmup at 30 tasks/s (the pool copes: 8 threads x 100 ms
 * = 80 tasks/s), then overload at 200 tasks/s until warmup + overload (active = max, queue
 * full, rejections), then a cool-down at 10 tasks/s. Throughout, an allocation thread keeps
 * a large live set of small linked objects in a small heap and replaces part of it
 * continuously, so a serial or parallel collector runs full GCs with long stop-the-world
 * pauses.
 *
 * Writes the pool CSV (timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,
 * completed,rejected) every 200 ms and a Dubbo-style "Thread pool is EXHAUSTED" warning
 * (at most one per second) to the log file.
 *
 * Usage: java -Xmx256m -XX:+UseSerialGC -Xlog:gc*:file=gc.log:time,uptime,level,tags
 *        PoolAndGc POOL_CSV APP_LOG WARMUP_S OVERLOAD_S COOLDOWN_S CHURN
 * CHURN 1 starts the allocation thread (gc_pauses), 0 leaves the heap quiet
 * (threadpool_exhaustion alone).
 */
public class PoolAndGc {
    static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

    /** A node of the retained graph: small objects with pointers are what makes marking slow. */
    static final class Node {
        Node next;
        final long[] payload = new long[6];
    }

    public static void main(String[] args) throws Exception {
        String poolCsv = args[0];
        String appLog = args[1];
        long warmupMs = Long.parseLong(args[2]) * 1000;
        long overloadMs = Long.parseLong(args[3]) * 1000;
        long cooldownMs = Long.parseLong(args[4]) * 1000;
        boolean withChurn = args[5].equals("1");
        long start = System.currentTimeMillis();
        long end = start + warmupMs + overloadMs + cooldownMs;

        int queueCapacity = 50;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 8, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queueCapacity), runnable -> {
                    Thread thread = new Thread(runnable);
                    thread.setName("order-service-" + thread.getId());
                    return thread;
                }, new ThreadPoolExecutor.AbortPolicy());
        AtomicLong rejected = new AtomicLong();

        Thread churn = new Thread(() -> churn(end), "allocation-churn");
        churn.setDaemon(true);
        if (withChurn) {
            churn.start();
        }

        Thread metrics = new Thread(() -> writeMetrics(poolCsv, pool, queueCapacity, rejected, end), "pool-metrics");
        metrics.setDaemon(true);
        metrics.start();

        try (PrintWriter log = new PrintWriter(new FileWriter(appLog), true)) {
            log.printf("%s INFO  [main] lab.PoolAndGc - started: pool order-service core 4 max 8 queue %d%n",
                    LocalDateTime.now().format(LOG_TIME), queueCapacity);
            long lastWarning = 0;
            long task = 0;
            while (System.currentTimeMillis() < end) {
                long elapsed = System.currentTimeMillis() - start;
                int perSecond = elapsed < warmupMs ? 30 : elapsed < warmupMs + overloadMs ? 200 : 10;
                try {
                    pool.execute(PoolAndGc::handleOrder);
                } catch (RejectedExecutionException e) {
                    rejected.incrementAndGet();
                    long now = System.currentTimeMillis();
                    if (now - lastWarning >= 1000) {
                        lastWarning = now;
                        log.printf("%s WARN  [New I/O server worker #1-1] lab.PoolAndGc -  [DUBBO] Thread pool is EXHAUSTED!"
                                + " Thread Name: order-service, Pool Size: %d (active: %d, core: %d, max: %d, largest: %d),"
                                + " Task: %d (completed: %d), Executor status:(isShutdown:false, isTerminated:false,"
                                + " isTerminating:false), in dubbo://10.77.0.1:20880!%n",
                                LocalDateTime.now().format(LOG_TIME), pool.getPoolSize(), pool.getActiveCount(),
                                pool.getCorePoolSize(), pool.getMaximumPoolSize(), pool.getLargestPoolSize(),
                                pool.getTaskCount(), pool.getCompletedTaskCount());
                    }
                }
                task++;
                Thread.sleep(1000 / perSecond);
            }
            log.printf("%s INFO  [main] lab.PoolAndGc - done: %d tasks offered, %d rejected%n",
                    LocalDateTime.now().format(LOG_TIME), task, rejected.get());
        }
        pool.shutdownNow();
        System.out.printf("{\"role\": \"pool-and-gc\", \"offered\": %d, \"completed\": %d, \"rejected\": %d}%n",
                pool.getTaskCount(), pool.getCompletedTaskCount(), rejected.get());
        System.exit(0);
    }

    /** A request: 100 ms of waiting on a downstream call, plus some garbage. */
    static void handleOrder() {
        byte[] scratch = new byte[64 * 1024];
        scratch[0] = 1;
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Keep about 140 MB of small linked objects alive, replacing a slice of it all the time. */
    static void churn(long end) {
        int chains = 500;
        int chainLength = 3500; // 500 x 3500 nodes x ~80 bytes ~ 140 MB live
        List<Node> live = new ArrayList<>(chains);
        for (int i = 0; i < chains; i++) {
            live.add(chain(chainLength));
        }
        int next = 0;
        while (System.currentTimeMillis() < end) {
            live.set(next, chain(chainLength)); // old chain becomes garbage in the old generation
            next = (next + 1) % chains;
            byte[] garbage = new byte[256 * 1024]; // and young garbage
            garbage[0] = 1;
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static Node chain(int length) {
        Node head = null;
        for (int i = 0; i < length; i++) {
            Node node = new Node();
            node.next = head;
            head = node;
        }
        return head;
    }

    static void writeMetrics(String path, ThreadPoolExecutor pool, int queueCapacity, AtomicLong rejected, long end) {
        try (PrintWriter out = new PrintWriter(new FileWriter(path), true)) {
            out.println("timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,completed,rejected");
            while (System.currentTimeMillis() < end) {
                out.printf("%d,order-service,%d,%d,%d,%d,%d,%d,%d,%d%n", System.currentTimeMillis(),
                        pool.getActiveCount(), pool.getCorePoolSize(), pool.getMaximumPoolSize(), pool.getPoolSize(),
                        pool.getQueue().size(), queueCapacity, pool.getCompletedTaskCount(), rejected.get());
                Thread.sleep(200);
            }
        } catch (IOException | InterruptedException e) {
            System.err.println("metrics: " + e);
        }
    }
}
