import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

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
 *
 * Variations are set with system properties (defaults = the numbers above):
 * -Dpool.name=order-service -Dpool.core=4 -Dpool.max=8 -Dpool.queue=50 (0: a SynchronousQueue,
 * Dubbo's fixed pool with queues=0), -Dtask.ms=100 (downstream wait per task),
 * -Drate.warmup=30 -Drate.overload=200 -Drate.cooldown=10 (tasks offered per second in each
 * phase; 0 offers nothing), -Dchurn.mb=140 (live set kept by the allocation thread), and
 * -Dbacklog.tasks=N -Dbacklog.rate=R: when the overload phase starts, instead of a steady
 * offered load, N tasks arrive at R per second and then nothing more (a network backlog
 * drained into the pool after the traffic was cut, report A), the rates of the phases still
 * applying before it.
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

        String poolName = System.getProperty("pool.name", "order-service");
        int core = Integer.getInteger("pool.core", 4);
        int max = Integer.getInteger("pool.max", 8);
        int queueCapacity = Integer.getInteger("pool.queue", 50);
        taskMs = Long.getLong("task.ms", 100);
        int[] rates = {Integer.getInteger("rate.warmup", 30), Integer.getInteger("rate.overload", 200),
                Integer.getInteger("rate.cooldown", 10)};
        long backlogTasks = Long.getLong("backlog.tasks", 0);
        int backlogRate = Integer.getInteger("backlog.rate", 400);
        liveMb = Integer.getInteger("churn.mb", 140);
        BlockingQueue<Runnable> queue = queueCapacity > 0 ? new ArrayBlockingQueue<>(queueCapacity)
                : new SynchronousQueue<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(core, max, 60, TimeUnit.SECONDS,
                queue, runnable -> {
                    Thread thread = new Thread(runnable);
                    thread.setName(poolName + "-" + thread.getId());
                    return thread;
                }, new ThreadPoolExecutor.AbortPolicy());
        AtomicLong rejected = new AtomicLong();

        Thread churn = new Thread(() -> churn(end), "allocation-churn");
        churn.setDaemon(true);
        if (withChurn) {
            churn.start();
        }

        Thread metrics = new Thread(() -> writeMetrics(poolCsv, poolName, pool, queueCapacity, rejected, end),
                "pool-metrics");
        metrics.setDaemon(true);
        metrics.start();

        try (PrintWriter log = new PrintWriter(new FileWriter(appLog), true)) {
            log.printf("%s INFO  [main] lab.PoolAndGc - started: pool %s core %d max %d queue %d, tasks of %d ms%n",
                    LocalDateTime.now().format(LOG_TIME), poolName, core, max, queueCapacity, taskMs);
            long lastWarning = 0;
            long task = 0;
            long backlogLeft = backlogTasks;
            long next = System.nanoTime();
            while (System.currentTimeMillis() < end) {
                long elapsed = System.currentTimeMillis() - start;
                int perSecond = rates[elapsed < warmupMs ? 0 : elapsed < warmupMs + overloadMs ? 1 : 2];
                if (backlogTasks > 0 && elapsed >= warmupMs) {
                    // After the cut: only the drained backlog arrives, then nothing.
                    perSecond = backlogLeft > 0 ? backlogRate : 0;
                    if (backlogLeft > 0) {
                        backlogLeft--;
                    }
                }
                if (perSecond <= 0) {
                    Thread.sleep(50);
                    next = System.nanoTime();
                    continue;
                }
                try {
                    pool.execute(PoolAndGc::handleOrder);
                } catch (RejectedExecutionException e) {
                    rejected.incrementAndGet();
                    long now = System.currentTimeMillis();
                    if (now - lastWarning >= 1000) {
                        lastWarning = now;
                        log.printf("%s WARN  [New I/O server worker #1-1] lab.PoolAndGc -  [DUBBO] Thread pool is EXHAUSTED!"
                                + " Thread Name: %s, Pool Size: %d (active: %d, core: %d, max: %d, largest: %d),"
                                + " Task: %d (completed: %d), Executor status:(isShutdown:false, isTerminated:false,"
                                + " isTerminating:false), in dubbo://10.77.0.1:20880!%n",
                                LocalDateTime.now().format(LOG_TIME), poolName, pool.getPoolSize(), pool.getActiveCount(),
                                pool.getCorePoolSize(), pool.getMaximumPoolSize(), pool.getLargestPoolSize(),
                                pool.getTaskCount(), pool.getCompletedTaskCount());
                    }
                }
                task++;
                next += 1_000_000_000L / perSecond;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
            log.printf("%s INFO  [main] lab.PoolAndGc - done: %d tasks offered, %d rejected%n",
                    LocalDateTime.now().format(LOG_TIME), task, rejected.get());
        }
        pool.shutdownNow();
        System.out.printf("{\"role\": \"pool-and-gc\", \"offered\": %d, \"completed\": %d, \"rejected\": %d}%n",
                pool.getTaskCount(), pool.getCompletedTaskCount(), rejected.get());
        System.exit(0);
    }

    static long taskMs = 100;
    static int liveMb = 140;

    /** A request: task.ms (100) of waiting on a downstream call, plus some garbage. */
    static void handleOrder() {
        byte[] scratch = new byte[64 * 1024];
        scratch[0] = 1;
        try {
            Thread.sleep(taskMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Keep about churn.mb (140) MB of small linked objects alive, replacing a slice of it all the time. */
    static void churn(long end) {
        int chains = Math.max(1, liveMb * 500 / 140);
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

    static void writeMetrics(String path, String poolName, ThreadPoolExecutor pool, int queueCapacity,
            AtomicLong rejected, long end) {
        try (PrintWriter out = new PrintWriter(new FileWriter(path), true)) {
            out.println("timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,completed,rejected");
            while (System.currentTimeMillis() < end) {
                out.printf("%d,%s,%d,%d,%d,%d,%d,%d,%d,%d%n", System.currentTimeMillis(), poolName,
                        pool.getActiveCount(), pool.getCorePoolSize(), pool.getMaximumPoolSize(), pool.getPoolSize(),
                        pool.getQueue().size(), queueCapacity, pool.getCompletedTaskCount(), rejected.get());
                Thread.sleep(200);
            }
        } catch (IOException | InterruptedException e) {
            System.err.println("metrics: " + e);
        }
    }
}
