/**
 * Before and after on one chart: each side's series of a lane, on time since that side's start,
 * bucketed on a common grid and combined across series (sum or max), so two captures of
 * different lengths and sampling clocks overlay point for point. Pure: unit-tested.
 */

export type Combine = "sum" | "max";

export interface OverlayDef {
  key: string;
  title: string;
  unit: string;
  /** Series names (the timeline API's names; `prefix*` matches a prefix). */
  match: string[];
  combine: Combine;
}

/** The lanes compared, most telling for the network checklist first. */
export const OVERLAYS: OverlayDef[] = [
  { key: "delivery", title: "Delivery rate (all connections)", unit: "bits/s", match: ["tcp.conn.delivery_rate_bps"], combine: "sum" },
  { key: "sendq", title: "Send-Q (fullest connection)", unit: "bytes", match: ["tcp.conn.sendq.bytes"], combine: "max" },
  { key: "cwnd", title: "cwnd (largest)", unit: "segments", match: ["tcp.conn.cwnd"], combine: "max" },
  { key: "rtt", title: "RTT (slowest connection)", unit: "ms", match: ["tcp.conn.rtt_ms"], combine: "max" },
  { key: "retrans", title: "Retransmitted segments", unit: "/s", match: ["netstat.TcpRetransSegs"], combine: "sum" },
  { key: "time_wait", title: "TIME-WAIT sockets", unit: "sockets", match: ["tcp.state.time-wait"], combine: "max" },
  { key: "estab", title: "Established connections", unit: "sockets", match: ["tcp.state.estab"], combine: "max" },
  { key: "gc", title: "GC pauses", unit: "ms", match: ["gc.pause_ms"], combine: "max" },
  { key: "threads", title: "Busy pool threads", unit: "threads", match: ["threadpool.active"], combine: "sum" },
];

export interface SidePoints {
  t: number[];
  v: number[];
}

export interface OverlayRow {
  /** Seconds since the side's start (the bucket's start). */
  s: number;
  a: number | null;
  b: number | null;
}

/** One side's series in buckets of `bucketMs` from `start`: max per series, then combined. */
export function bucketSide(series: readonly SidePoints[], start: number, bucketMs: number, buckets: number, combine: Combine): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(buckets).fill(null);
  for (const line of series) {
    const perLine: (number | null)[] = new Array<number | null>(buckets).fill(null);
    line.t.forEach((t, i) => {
      const v = line.v[i];
      if (v === undefined || !Number.isFinite(v)) return;
      const index = Math.floor((t - start) / bucketMs);
      if (index < 0 || index >= buckets) return;
      const seen = perLine[index];
      perLine[index] = seen === null || seen === undefined ? v : Math.max(seen, v);
    });
    perLine.forEach((v, i) => {
      if (v === null) return;
      const seen = out[i];
      out[i] = seen === null || seen === undefined ? v : combine === "sum" ? seen + v : Math.max(seen, v);
    });
  }
  return out;
}

/**
 * Rows for an overlay chart: both sides on seconds since their own start, on a grid of
 * `buckets` over the longer side.
 */
export function overlayRows(
  a: { series: readonly SidePoints[]; start: number; end: number },
  b: { series: readonly SidePoints[]; start: number; end: number },
  combine: Combine,
  buckets = 120,
): OverlayRow[] {
  const span = Math.max(a.end - a.start, b.end - b.start, 1000);
  const bucketMs = Math.max(1, Math.ceil(span / buckets));
  const count = Math.ceil(span / bucketMs) + 1;
  const left = bucketSide(a.series, a.start, bucketMs, count, combine);
  const right = bucketSide(b.series, b.start, bucketMs, count, combine);
  const rows: OverlayRow[] = [];
  for (let i = 0; i < count; i++) {
    if (left[i] === null && right[i] === null) continue;
    rows.push({ s: (i * bucketMs) / 1000, a: left[i] ?? null, b: right[i] ?? null });
  }
  return rows;
}

/** The verdict ladder's direction between two sides, in words and arrows. */
export const CHANGE_LABELS: Record<"same" | "better" | "worse" | "unclear", string> = {
  same: "=",
  better: "↓ better",
  worse: "↑ worse",
  unclear: "? unclear",
};
