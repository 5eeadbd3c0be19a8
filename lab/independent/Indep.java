// Independent load programs for checking Rootline's verdicts (indep14). Not the lab's load.py.
import java.io.*;
import java.net.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

public class Indep {
    static long now() { return System.nanoTime() / 1_000_000L; }
    static void log(String s) { System.out.println("{" + s + "}"); System.out.flush(); }

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "sink" -> sink(Integer.parseInt(a[1]), Integer.parseInt(a[2]));
            case "pause-reader" -> pauseReader(Integer.parseInt(a[1]), Integer.parseInt(a[2]),
                    Integer.parseInt(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]), Integer.parseInt(a[6]));
            case "blast" -> blast(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]));
            case "slow-accept" -> slowAccept(Integer.parseInt(a[1]), Integer.parseInt(a[2]),
                    Integer.parseInt(a[3]), Integer.parseInt(a[4]));
            case "close-server" -> closeServer(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "linger-server" -> lingerServer(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "churn-client" -> churnClient(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                    Integer.parseInt(a[4]), Integer.parseInt(a[5]));
            default -> throw new IllegalArgumentException(a[0]);
        }
    }

    // sink PORT SECONDS: accept connections, read and discard everything.
    static void sink(int port, int seconds) throws Exception {
        ServerSocket ss = new ServerSocket(port, 50);
        ss.setSoTimeout(seconds * 1000);
        AtomicLong total = new AtomicLong();
        try {
            while (true) {
                Socket s = ss.accept();
                new Thread(() -> {
                    byte[] buf = new byte[256 * 1024];
                    try (InputStream in = s.getInputStream()) {
                        int n;
                        while ((n = in.read(buf)) > 0) total.addAndGet(n);
                    } catch (IOException e) { }
                }).start();
            }
        } catch (SocketTimeoutException e) { }
        log("\"mode\":\"sink\",\"bytes\":" + total.get());
    }

    // pause-reader PORT RCVBUF(0=auto) READ_S PAUSE_S READ_AGAIN_S READ_CHUNK: one connection;
    // read, stop reading for PAUSE_S, read again.
    static void pauseReader(int port, int rcvbuf, int readS, int pauseS, int againS, int chunk) throws Exception {
        ServerSocket ss = new ServerSocket();
        if (rcvbuf > 0) ss.setReceiveBufferSize(rcvbuf);
        ss.bind(new InetSocketAddress(port), 10);
        Socket s = ss.accept();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[chunk];
        long total = 0;
        long t0 = now();
        long pauseAt = t0 + readS * 1000L;
        boolean paused = pauseS == 0;
        long end = pauseAt + pauseS * 1000L + againS * 1000L;
        while (now() < end) {
            if (!paused && now() >= pauseAt) {
                log("\"event\":\"pause\",\"t_ms\":" + (now() - t0) + ",\"bytes\":" + total);
                Thread.sleep(pauseS * 1000L);
                paused = true;
                log("\"event\":\"resume\",\"t_ms\":" + (now() - t0));
            }
            int n = in.read(buf);
            if (n < 0) break;
            total += n;
        }
        log("\"mode\":\"pause-reader\",\"rcvbuf\":" + s.getReceiveBufferSize() + ",\"bytes\":" + total);
        s.close();
    }

    // blast HOST PORT SECONDS WRITE: write as fast as possible for SECONDS.
    static void blast(String host, int port, int seconds, int write) throws Exception {
        Socket s = new Socket(host, port);
        OutputStream out = s.getOutputStream();
        byte[] buf = new byte[write];
        long end = now() + seconds * 1000L;
        long total = 0;
        try {
            while (now() < end) { out.write(buf); total += write; }
        } catch (IOException e) { }
        log("\"mode\":\"blast\",\"bytes\":" + total + ",\"sndbuf\":" + s.getSendBufferSize());
        s.close();
    }

    // slow-accept PORT BACKLOG ACCEPT_MS SECONDS: accept one connection every ACCEPT_MS,
    // answer its HTTP request and close it.
    static void slowAccept(int port, int backlog, int acceptMs, int seconds) throws Exception {
        ServerSocket ss = new ServerSocket(port, backlog);
        ss.setSoTimeout(1000);
        long end = now() + seconds * 1000L;
        int accepted = 0;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        while (now() < end) {
            Socket s;
            try { s = ss.accept(); } catch (SocketTimeoutException e) { continue; }
            accepted++;
            pool.submit(() -> respond(s));
            if (acceptMs > 0) Thread.sleep(acceptMs);
        }
        pool.shutdownNow();
        log("\"mode\":\"slow-accept\",\"backlog\":" + backlog + ",\"accepted\":" + accepted);
        System.exit(0);
    }

    static void respond(Socket s) {
        try (s) {
            s.setSoTimeout(5000);
            BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream()));
            String line;
            while ((line = r.readLine()) != null && !line.isEmpty()) { }
            byte[] body = "ok\n".getBytes();
            OutputStream o = s.getOutputStream();
            o.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes());
            o.write(body);
            o.flush();
        } catch (IOException e) { }
    }

    // close-server PORT THREADS SECONDS: HTTP server answering one request per connection and
    // closing first (server side holds TIME-WAIT).
    static void closeServer(int port, int threads, int seconds) throws Exception {
        ServerSocket ss = new ServerSocket(port, 1024);
        ss.setSoTimeout(1000);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = now() + seconds * 1000L;
        int served = 0;
        while (now() < end) {
            Socket s;
            try { s = ss.accept(); } catch (SocketTimeoutException e) { continue; }
            served++;
            pool.submit(() -> respond(s));
        }
        pool.shutdownNow();
        log("\"mode\":\"close-server\",\"served\":" + served);
        System.exit(0);
    }

    // linger-server PORT THREADS SECONDS: answers one request, then waits for the client to close
    // first (client side holds TIME-WAIT).
    static void lingerServer(int port, int threads, int seconds) throws Exception {
        ServerSocket ss = new ServerSocket(port, 1024);
        ss.setSoTimeout(1000);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = now() + seconds * 1000L;
        int served = 0;
        while (now() < end) {
            Socket s;
            try { s = ss.accept(); } catch (SocketTimeoutException e) { continue; }
            served++;
            pool.submit(() -> {
                try (s) {
                    s.setSoTimeout(5000);
                    InputStream in = s.getInputStream();
                    BufferedReader r = new BufferedReader(new InputStreamReader(in));
                    String line;
                    while ((line = r.readLine()) != null && !line.isEmpty()) { }
                    OutputStream o = s.getOutputStream();
                    o.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n".getBytes());
                    o.flush();
                    while (in.read() >= 0) { }  // until the client closes
                } catch (IOException e) { }
            });
        }
        pool.shutdownNow();
        log("\"mode\":\"linger-server\",\"served\":" + served);
        System.exit(0);
    }

    // churn-client HOST PORT THREADS SECONDS RATE_PER_S(0=unbounded): one connection per request.
    static void churnClient(String host, int port, int threads, int seconds, int rate) throws Exception {
        AtomicLong ok = new AtomicLong(), fail = new AtomicLong();
        long end = now() + seconds * 1000L;
        List<Thread> ts = new ArrayList<>();
        long perThreadGapNs = rate > 0 ? (1_000_000_000L * threads) / rate : 0;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                long next = System.nanoTime();
                while (now() < end) {
                    try (Socket s = new Socket(host, port)) {
                        s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
                        InputStream in = s.getInputStream();
                        byte[] b = new byte[512];
                        if (System.getenv("CLIENT_CLOSES") != null) {
                            String got = "";
                            int n;
                            while (!got.endsWith("ok\n") && (n = in.read(b)) > 0) got += new String(b, 0, n);
                        } else {
                            while (in.read(b) > 0) { }
                        }
                        ok.incrementAndGet();
                    } catch (IOException e) { fail.incrementAndGet(); }
                    if (perThreadGapNs > 0) {
                        next += perThreadGapNs;
                        long sl = next - System.nanoTime();
                        if (sl > 0) try { Thread.sleep(sl / 1_000_000, (int) (sl % 1_000_000)); } catch (InterruptedException e) { }
                    }
                }
            });
            t.start();
            ts.add(t);
        }
        for (Thread t : ts) t.join();
        log("\"mode\":\"churn-client\",\"ok\":" + ok.get() + ",\"fail\":" + fail.get());
    }
}
