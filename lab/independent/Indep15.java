// Independent load programs (indep15), written apart from lab/tools/load.py. Java sockets get
// the namespace's default congestion control (bbr here: Java cannot set TCP_CONGESTION).
import java.io.*;
import java.net.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.*;

public class Indep15 {
    static long now() { return System.nanoTime() / 1_000_000L; }
    static void log(String s) { System.out.println("{" + s + "}"); System.out.flush(); }

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "fetch-server" -> fetchServer(Integer.parseInt(a[1]), Integer.parseInt(a[2]));
            case "fetch-client" -> fetchClient(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                    Integer.parseInt(a[4]), Integer.parseInt(a[5]), Integer.parseInt(a[6]), Integer.parseInt(a[7]));
            case "mux-server" -> muxServer(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                    Integer.parseInt(a[4]), a[5], a.length > 6 ? Integer.parseInt(a[6]) : 0);
            case "mux-client" -> muxClient(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                    Integer.parseInt(a[5]), Integer.parseInt(a[6]), Integer.parseInt(a[7]));
            default -> throw new IllegalArgumentException(a[0]);
        }
    }

    // fetch-server PORT SECONDS: per connection, lines "GET n" answered with n bytes, until EOF.
    static void fetchServer(int port, int seconds) throws Exception {
        ServerSocket ss = new ServerSocket(port, 512);
        ss.setSoTimeout(1000);
        AtomicLong served = new AtomicLong();
        AtomicLong conns = new AtomicLong();
        byte[] body = new byte[1 << 20];
        long end = now() + seconds * 1000L;
        while (now() < end) {
            Socket s;
            try { s = ss.accept(); } catch (SocketTimeoutException e) { continue; }
            conns.incrementAndGet();
            Thread t = new Thread(() -> {
                try (s) {
                    BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream()));
                    OutputStream o = new BufferedOutputStream(s.getOutputStream(), 65536);
                    String line;
                    while ((line = r.readLine()) != null) {
                        long n = Long.parseLong(line.substring(4).trim());
                        while (n > 0) { int k = (int) Math.min(n, body.length); o.write(body, 0, k); n -= k; }
                        o.flush();
                        served.incrementAndGet();
                    }
                } catch (IOException e) { }
            });
            t.setDaemon(true);
            t.start();
        }
        log("\"mode\":\"fetch-server\",\"connections\":" + conns.get() + ",\"served\":" + served.get());
        System.exit(0);
    }

    // fetch-client HOST PORT THREADS SECONDS SIZE PER_CONN(0 = one connection per thread, reused)
    // THINK_MS: each thread fetches SIZE bytes, PER_CONN requests per connection, the client closes.
    static void fetchClient(String host, int port, int threads, int seconds, int size, int perConn, int thinkMs)
            throws Exception {
        AtomicLong reqs = new AtomicLong(), opens = new AtomicLong();
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        long end = now() + seconds * 1000L;
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                byte[] b = new byte[65536];
                Socket s = null;
                int used = 0;
                try {
                    while (now() < end) {
                        long t0 = System.nanoTime();
                        if (s == null) { s = new Socket(host, port); opens.incrementAndGet(); used = 0; }
                        s.getOutputStream().write(("GET " + size + "\n").getBytes());
                        InputStream in = s.getInputStream();
                        long got = 0;
                        while (got < size) { int n = in.read(b); if (n < 0) throw new EOFException(); got += n; }
                        used++;
                        if (perConn > 0 && used >= perConn) { s.close(); s = null; }
                        lat.add((System.nanoTime() - t0) / 1000);
                        reqs.incrementAndGet();
                        if (thinkMs > 0) Thread.sleep(thinkMs);
                    }
                    if (s != null) s.close();
                } catch (Exception e) { System.err.println(e); }
            });
            t.start();
            ts.add(t);
        }
        for (Thread t : ts) t.join();
        List<Long> l = new ArrayList<>(lat);
        Collections.sort(l);
        log("\"mode\":\"fetch-client\",\"requests\":" + reqs.get() + ",\"opens\":" + opens.get() + ",\"size\":" + size
                + ",\"p50_ms\":" + l.get(l.size() / 2) / 1000.0 + ",\"p99_ms\":" + l.get(l.size() * 99 / 100) / 1000.0);
    }

    static void spinMicros(long us) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = mx.getCurrentThreadCpuTime() + us * 1000L;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < until) { x += System.identityHashCode(mx) ^ x; }
        if (x == 42) System.out.print("");
    }

    // mux-server PORT DECODE_US POOL WORK_MS POOL_CSV [PARK_US]: Dubbo-like. One reader thread per
    // connection decodes each frame [len:4][id:8][payload] (DECODE_US of CPU, then PARK_US blocked:
    // a synchronous log write, a lock), hands it to a fixed POOL doing
    // 0..WORK_MS of sleep, the reply [len:4][id:8][256 bytes] is written under a per-connection lock.
    // Every second a line "time,active,max,queue" goes to POOL_CSV.
    static void muxServer(int port, int decodeUs, int pool, int workMs, String csv, int parkUs) throws Exception {
        ServerSocket ss = new ServerSocket(port, 64);
        ThreadPoolExecutor ex = new ThreadPoolExecutor(pool, pool, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        AtomicLong decoded = new AtomicLong();
        Thread mon = new Thread(() -> {
            try (PrintWriter w = new PrintWriter(new FileWriter(csv))) {
                w.println("timestamp,pool,active,max,queue,completed");
                while (true) {
                    w.println(java.time.Instant.now() + ",biz," + ex.getActiveCount() + "," + pool + ","
                            + ex.getQueue().size() + "," + ex.getCompletedTaskCount());
                    w.flush();
                    Thread.sleep(1000);
                }
            } catch (Exception e) { }
        });
        mon.setDaemon(true);
        mon.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                log("\"mode\":\"mux-server\",\"decoded\":" + decoded.get())));
        while (true) {
            Socket s = ss.accept();
            Thread rd = new Thread(() -> {
                try (s) {
                    DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 65536));
                    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 8192));
                    Object wl = new Object();
                    byte[] reply = new byte[256];
                    while (true) {
                        int len = in.readInt();
                        long id = in.readLong();
                        in.readFully(new byte[len]);
                        spinMicros(decodeUs);
                        if (parkUs > 0) java.util.concurrent.locks.LockSupport.parkNanos(parkUs * 1000L);
                        decoded.incrementAndGet();
                        ex.submit(() -> {
                            try {
                                if (workMs > 0) Thread.sleep(ThreadLocalRandom.current().nextInt(workMs + 1));
                                synchronized (wl) { out.writeInt(reply.length); out.writeLong(id); out.write(reply); out.flush(); }
                            } catch (Exception e) { }
                        });
                    }
                } catch (IOException e) { }
            });
            rd.setDaemon(true);
            rd.start();
        }
    }

    // mux-client HOST PORT CONNS INFLIGHT RATE SECONDS REQ: at most INFLIGHT requests outstanding,
    // offered at RATE/s, spread round-robin over CONNS connections; one reader per connection.
    static void muxClient(String host, int port, int conns, int inflight, int rate, int seconds, int req)
            throws Exception {
        Semaphore sem = new Semaphore(inflight);
        ConcurrentHashMap<Long, Long> started = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        Socket[] socks = new Socket[conns];
        DataOutputStream[] outs = new DataOutputStream[conns];
        for (int i = 0; i < conns; i++) {
            socks[i] = new Socket(host, port);
            outs[i] = new DataOutputStream(new BufferedOutputStream(socks[i].getOutputStream(), 65536));
            Socket s = socks[i];
            Thread rd = new Thread(() -> {
                try {
                    DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                    while (true) {
                        int len = in.readInt();
                        long id = in.readLong();
                        in.readFully(new byte[len]);
                        Long t0 = started.remove(id);
                        if (t0 != null) lat.add((System.nanoTime() - t0) / 1000);
                        sem.release();
                    }
                } catch (IOException e) { }
            });
            rd.setDaemon(true);
            rd.start();
        }
        byte[] payload = new byte[req];
        long end = now() + seconds * 1000L;
        long gapNs = 1_000_000_000L / rate;
        long next = System.nanoTime();
        long id = 0, timeouts = 0;
        while (now() < end) {
            if (!sem.tryAcquire(1, TimeUnit.SECONDS)) { timeouts++; continue; }
            int c = (int) (id % conns);
            started.put(id, System.nanoTime());
            synchronized (outs[c]) { outs[c].writeInt(req); outs[c].writeLong(id); outs[c].write(payload); outs[c].flush(); }
            id++;
            next += gapNs;
            long sl = next - System.nanoTime();
            if (sl > 0) Thread.sleep(sl / 1_000_000, (int) (sl % 1_000_000));
        }
        List<Long> l = new ArrayList<>(lat);
        Collections.sort(l);
        log("\"mode\":\"mux-client\",\"conns\":" + conns + ",\"sent\":" + id + ",\"done\":" + l.size()
                + ",\"p50_ms\":" + (l.isEmpty() ? 0 : l.get(l.size() / 2) / 1000.0)
                + ",\"p99_ms\":" + (l.isEmpty() ? 0 : l.get(l.size() * 99 / 100) / 1000.0));
        System.exit(0);
    }
}
