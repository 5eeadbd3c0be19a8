/**
 * What a clicked marker stands for, from the data the API serves: the GC pause behind a point of
 * `gc.pause_ms` (with the phases of its GC cycle), a listen overflow's increment and the
 * listeners' queues at that time. Pure: API answers in, plain data out.
 */
import type { Schemas } from "../../api/client";

export type EventRead = Schemas["EventRead"];
export type TimelineSeries = Schemas["TimelineSeries"];

export interface GcPause {
  pause: EventRead;
  /** Every event of the same GC cycle (same file, same `gc_id`), pause included, in time order. */
  phases: EventRead[];
  /** Heap freed by the pause, MB (before - after), when both are known. */
  freedMb: number | null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * The pause event a GC marker (a point of `gc.pause_ms` at `t`, `durationMs` long) was drawn from,
 * among `events` read around it: same start, the closest duration; on `host` when known.
 */
/** An event attribute as text: strings and numbers as they are, anything else as JSON. */
export function attrText(value: unknown, missing = "\u2014"): string {
  if (value === undefined || value === null) return missing;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

export function findGcPause(
  events: readonly EventRead[],
  marker: { t: number; durationMs: number | null; host: string | null },
): GcPause | null {
  const candidates = events.filter(
    (event) => event.kind === "gc_pause" && event.time_ms === marker.t && (!marker.host || event.host === marker.host),
  );
  const pause = candidates.sort(
    (a, b) => Math.abs((a.duration_ms ?? 0) - (marker.durationMs ?? 0)) - Math.abs((b.duration_ms ?? 0) - (marker.durationMs ?? 0)),
  )[0];
  if (!pause) return null;
  const gcId = pause.attrs.gc_id;
  const phases =
    gcId === undefined || gcId === null
      ? [pause]
      : events
          .filter((event) => event.artifact_id === pause.artifact_id && event.attrs.gc_id === gcId)
          .sort((a, b) => a.time_ms - b.time_ms || a.id - b.id);
  const before = num(pause.attrs.heap_before_mb);
  const after = num(pause.attrs.heap_after_mb);
  return { pause, phases, freedMb: before !== null && after !== null ? before - after : null };
}

export interface Overflow {
  /** Overflows per second the counter's rate showed at this point. */
  ratePerS: number;
  /** Since the previous snapshot, ms (null for the first point). */
  intervalMs: number | null;
  /** Overflows counted between the previous snapshot and this one (rate x interval). */
  increment: number | null;
}

export function overflowAt(source: { value: number; previousT: number | null }, t: number): Overflow {
  const intervalMs = source.previousT === null ? null : t - source.previousT;
  const increment = intervalMs === null ? null : Math.round((source.value * intervalMs) / 1000);
  return { ratePerS: source.value, intervalMs, increment };
}

export interface Listener {
  /** `local` label (address:port), or the port. */
  listener: string;
  host: string | null;
  /** Connections waiting in the accept queue (Recv-Q of the LISTEN socket) at the snapshot nearest `t`. */
  queued: number | null;
  /** The accept queue's size (Send-Q of the LISTEN socket: min(backlog, somaxconn)). */
  backlog: number | null;
  /** The highest queue seen in the window read. */
  peakQueued: number | null;
  /** When the snapshot read was taken. */
  at: number | null;
}

function nearest(series: TimelineSeries, t: number): { t: number; v: number } | null {
  let best: { t: number; v: number } | null = null;
  series.t.forEach((time, index) => {
    if (!best || Math.abs(time - t) < Math.abs(best.t - t)) best = { t: time, v: series.v[index]! };
  });
  return best;
}

/** The listening sockets of `tcp.listen.recvq` / `tcp.listen.backlog` series, at the time `t`. */
export function listenersAt(series: readonly TimelineSeries[], t: number): Listener[] {
  const byListener = new Map<string, Listener>();
  for (const s of series) {
    if (s.name !== "tcp.listen.recvq" && s.name !== "tcp.listen.backlog") continue;
    const host = s.labels.host ?? null;
    const name = s.labels.local ?? s.labels.port ?? "?";
    const key = `${host ?? ""}|${name}`;
    let listener = byListener.get(key);
    if (!listener) byListener.set(key, (listener = { listener: name, host, queued: null, backlog: null, peakQueued: null, at: null }));
    const point = nearest(s, t);
    if (!point) continue;
    if (s.name === "tcp.listen.backlog") listener.backlog = point.v;
    else {
      listener.queued = point.v;
      listener.at = point.t;
      listener.peakQueued = s.v.length ? Math.max(...s.v) : null;
    }
  }
  return [...byListener.values()].sort(
    (a, b) => (b.peakQueued ?? -1) / Math.max(1, b.backlog ?? 1) - (a.peakQueued ?? -1) / Math.max(1, a.backlog ?? 1),
  );
}

/** One step of a deadlock cycle: `thread` waits for `lock` (an address, with its class) held by `heldBy`. */
export interface DeadlockStep {
  thread: string;
  lock: string | null;
  lockClass: string | null;
  heldBy: string | null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * The cycle of a `thread_deadlock` event: its `cycle` attribute (thread, monitor, class, held_by);
 * events parsed before it was kept carry `threads` and `monitors` only, in the order the JVM prints
 * them, each thread held up by the next and the last by the first.
 */
export function deadlockCycle(attrs: Record<string, unknown>): DeadlockStep[] {
  const cycle = attrs.cycle;
  if (Array.isArray(cycle) && cycle.length > 0) {
    return cycle
      .filter((step): step is Record<string, unknown> => typeof step === "object" && step !== null)
      .map((step) => ({
        thread: text(step.thread) ?? "?",
        lock: text(step.monitor),
        lockClass: text(step.class),
        heldBy: text(step.held_by),
      }));
  }
  const threads = Array.isArray(attrs.threads) ? attrs.threads.map((t) => String(t)) : [];
  const monitors = Array.isArray(attrs.monitors) ? attrs.monitors.map((m) => String(m)) : [];
  return threads.map((thread, i) => ({
    thread,
    lock: monitors[i] ?? null,
    lockClass: null,
    heldBy: threads.length > 1 ? (threads[(i + 1) % threads.length] ?? null) : null,
  }));
}
