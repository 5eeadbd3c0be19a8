import java.util.concurrent.ThreadLocalRandom;

/**
 * GC load written apart from lab/java/PoolAndGc.java: a live set of LIVE_MB held as a ring of
 * byte[] blocks of BLOCK_KB (PoolAndGc holds small linked objects), one slot of which is
 * replaced at random on every step, plus short-lived garbage of GARBAGE_KB per step. A live
 * set near -Xmx leaves every collector too little room: Serial / Parallel run full GCs back to
 * back, G1 runs out of to-space, ZGC stalls the allocating thread, Shenandoah degenerates.
 * A small live set is the healthy contrast (same collector, same allocation rate).
 *
 * Usage: java -Xmx... -Xlog:gc*,safepoint:file=gc.log:... HeapChurn LIVE_MB SECONDS [BLOCK_KB] [GARBAGE_KB] [STEP_US]
 * Prints one JSON line: steps done, live MB, seconds.
 */
public class HeapChurn {
    public static void main(String[] args) throws Exception {
        int liveMb = Integer.parseInt(args[0]);
        double seconds = Double.parseDouble(args[1]);
        int blockKb = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        int garbageKb = args.length > 3 ? Integer.parseInt(args[3]) : 256;
        long stepUs = args.length > 4 ? Long.parseLong(args[4]) : 0;
        int slots = Math.max(1, liveMb * 1024 / blockKb);
        byte[][] ring = new byte[slots][];
        for (int i = 0; i < slots; i++) {
            ring[i] = new byte[blockKb * 1024];
        }
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long steps = 0;
        long sink = 0;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        while (System.nanoTime() < end) {
            int i = rnd.nextInt(slots);
            ring[i] = new byte[blockKb * 1024];
            ring[i][rnd.nextInt(ring[i].length)] = (byte) steps;
            byte[] g = new byte[garbageKb * 1024];
            sink += g[rnd.nextInt(g.length)];
            steps++;
            if (stepUs > 0) {
                long until = System.nanoTime() + stepUs * 1000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
        }
        System.out.println("{\"steps\":" + steps + ",\"live_mb\":" + liveMb + ",\"seconds\":" + seconds + ",\"sink\":" + sink + "}");
    }
}
