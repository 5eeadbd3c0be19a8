import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lock shapes for jstack, written apart from the lab:
 *
 * shared   THREADS workers of pool "NAME-N" loop: take one shared lock, hold it HOLD_MS
 *          (sleeping, as a slow call under a lock does), release, pause 1 ms. All but the
 *          holder wait for it. KIND monitor (synchronized: BLOCKED) or rlock (ReentrantLock:
 *          WAITING parked on its Sync).
 * own      the same work, but each worker has its own lock (no waiting: healthy contrast).
 * deadlock two threads take two monitors in opposite orders and two more two ReentrantLocks
 *          (KIND picks monitor, rlock or both); THREADS other workers keep running on own locks.
 *
 * Usage: java LockShapes MODE THREADS HOLD_MS SECONDS KIND NAME
 */
public class LockShapes {
    public static void main(String[] a) throws Exception {
        String mode = a[0];
        int threads = Integer.parseInt(a[1]);
        long holdMs = Long.parseLong(a[2]);
        double seconds = Double.parseDouble(a[3]);
        String kind = a[4];
        String name = a[5];
        long end = System.nanoTime() + (long) (seconds * 1e9);
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        final Object sharedMonitor = new Object();
        final ReentrantLock sharedLock = new ReentrantLock();
        AtomicInteger rounds = new AtomicInteger();
        for (int i = 0; i < threads; i++) {
            final Object own = new Object();
            final ReentrantLock ownLock = new ReentrantLock();
            boolean shared = mode.equals("shared");
            pool.execute(() -> {
                while (System.nanoTime() < end) {
                    if (kind.equals("rlock")) {
                        ReentrantLock l = shared ? sharedLock : ownLock;
                        l.lock();
                        try {
                            slowCall(holdMs);
                        } finally {
                            l.unlock();
                        }
                    } else {
                        synchronized (shared ? sharedMonitor : own) {
                            slowCall(holdMs);
                        }
                    }
                    rounds.incrementAndGet();
                    slowCall(1);
                }
            });
        }
        if (mode.equals("deadlock")) {
            if (!kind.equals("rlock")) {
                Object a1 = new Object();
                Object b1 = new Object();
                CountDownLatch both = new CountDownLatch(2);
                new Thread(() -> { synchronized (a1) { both.countDown(); await(both); synchronized (b1) { slowCall(1); } } }, "ledger-writer").start();
                new Thread(() -> { synchronized (b1) { both.countDown(); await(both); synchronized (a1) { slowCall(1); } } }, "audit-writer").start();
            }
            if (!kind.equals("monitor")) {
                ReentrantLock x = new ReentrantLock();
                ReentrantLock y = new ReentrantLock();
                CountDownLatch both = new CountDownLatch(2);
                Thread t1 = new Thread(() -> { x.lock(); both.countDown(); await(both); y.lock(); }, "cache-loader");
                Thread t2 = new Thread(() -> { y.lock(); both.countDown(); await(both); x.lock(); }, "cache-evictor");
                t1.setDaemon(true);
                t2.setDaemon(true);
                t1.start();
                t2.start();
            }
        }
        while (System.nanoTime() < end) {
            Thread.sleep(100);
        }
        System.out.println("{\"mode\":\"" + mode + "\",\"threads\":" + threads + ",\"rounds\":" + rounds.get() + "}");
        System.exit(0);
    }

    static void slowCall(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
