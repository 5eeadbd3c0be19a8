/**
 * The event strip's markers and its legend counts. Each count counts what its label names, in
 * the visible range: "GC pauses: 818" counts pauses, and the 19 to-space-exhausted events are
 * their own entry (they once overwrote the pause count under the same label). Pure.
 */
import type { LinePoints } from "./data";
import { largestPoints } from "./data";
import { formatValue } from "./format";
import type { Marker, MarkerKind } from "./Markers";
import type { EventKindSummary, EventRead, TimeRange } from "./types";

/** Event kinds drawn as markers, their strip colour and their name in the legend. */
export const EVENT_MARKERS: Record<string, { kind: MarkerKind; name: string }> = {
  threadpool_rejected: { kind: "rejection", name: "thread-pool rejections" },
  connection_reset: { kind: "reset", name: "connection resets" },
  rpc_timeout: { kind: "reset", name: "RPC timeouts" },
  gc_to_space_exhausted: { kind: "gc", name: "GC to-space exhausted" },
  gc_allocation_stall: { kind: "gc", name: "GC allocation stalls" },
  thread_dump: { kind: "dump", name: "thread dumps" },
  // Red, not the dumps' grey: a deadlock is a finding, and it sits on its dump's instant.
  thread_deadlock: { kind: "deadlock", name: "thread deadlocks" },
};

export interface StripEntry {
  key: string;
  kind: MarkerKind;
  label: string;
  shown: number;
  total: number;
}

export interface StripInput {
  visible: TimeRange;
  /** Lines of the GC-pause lane (points of gc.pause_ms) and their labels. */
  gc: { points: LinePoints; name: string; label: string; labels?: Record<string, string> }[];
  /** Lines of the listen-overflow lane (per-second rates), their series names and labels. */
  overflows: { points: LinePoints; name: string; label: string; labels?: Record<string, string> }[];
  /** Events in view (the marker kinds), and the per-kind counts in view (every kind). */
  events: readonly EventRead[];
  kinds: readonly EventKindSummary[];
  annotations: readonly { from_ms: number; to_ms?: number | null; text: string; author?: string | null; host?: string | null }[];
  host: string | null;
  maxMarkers: number;
}

function eventText(e: EventRead): string {
  const a = e.attrs as Record<string, unknown>;
  const bits = [e.kind.replace(/_/g, " ")];
  if (e.host) bits.push(`host ${e.host}`);
  if (typeof a.pool === "string") bits.push(`pool ${a.pool}`);
  if (typeof a.message === "string") bits.push(a.message.slice(0, 160));
  return bits.join(" · ");
}

function label(name: string, shown: number, total: number, which: "longest" | "first"): string {
  const n = total.toLocaleString("en-US");
  return shown < total ? `${name}: ${which} ${shown} of ${n} shown` : `${name}: ${n}`;
}

export function stripMarkers(input: StripInput): { markers: Marker[]; entries: StripEntry[] } {
  const { visible, maxMarkers } = input;
  const markers: Marker[] = [];
  const entries: StripEntry[] = [];
  const count = (kind: string) => input.kinds.find((k) => k.kind === kind)?.count ?? null;

  // GC pauses: the longest in view, from the pause series; counted by the events in view.
  const gc: Marker[] = [];
  for (const line of input.gc) {
    const top = largestPoints(line.points, visible, maxMarkers);
    top.t.forEach((t, j) => {
      const v = top.v[j]!;
      // The series point it stands for: the details panel finds the pause event behind it.
      const source = { name: line.name, labels: line.labels ?? {}, value: v, previousT: null };
      gc.push({ kind: "gc", t, duration: v, text: `pause ${formatValue(v, "ms")} ${line.label}`.trim(), source });
    });
  }
  gc.sort((a, b) => b.duration! - a.duration!);
  const gcShown = gc.slice(0, maxMarkers);
  markers.push(...gcShown);
  const pauses = Math.max(count("gc_pause") ?? gc.length, gcShown.length);
  if (pauses > 0) entries.push({ key: "gc_pause", kind: "gc", label: label("GC pauses", gcShown.length, pauses, "longest"), shown: gcShown.length, total: pauses });

  // Listen overflows: the samples whose rate was above zero.
  const ov: Marker[] = [];
  for (const line of input.overflows) {
    if (!/ListenOverflows$/.test(line.name)) continue;
    const p = line.points;
    for (let j = 0; j < p.t.length; j++) {
      const t = p.t[j]!;
      if (p.v[j]! > 0 && t >= visible.from && t <= visible.to) {
        const source = { name: line.name, labels: line.labels ?? {}, value: p.v[j]!, previousT: j > 0 ? p.t[j - 1]! : null };
        ov.push({ kind: "overflow", t, duration: null, text: `${formatValue(p.v[j], "per_s")} ${line.label}`.trim(), source });
      }
    }
  }
  const ovShown = ov.slice(0, maxMarkers);
  markers.push(...ovShown);
  if (ov.length) entries.push({ key: "overflow", kind: "overflow", label: label("samples with listen overflows", ovShown.length, ov.length, "first"), shown: ovShown.length, total: ov.length });

  // Events: one entry per kind, counted by that kind alone.
  const byKind = new Map<string, Marker[]>();
  for (const e of input.events) {
    const def = EVENT_MARKERS[e.kind];
    if (!def) continue;
    if (!byKind.has(e.kind)) byKind.set(e.kind, []);
    byKind.get(e.kind)!.push({ kind: def.kind, t: e.time_ms, duration: e.duration_ms, text: eventText(e), event: e });
  }
  for (const [kind, def] of Object.entries(EVENT_MARKERS)) {
    const list = (byKind.get(kind) ?? []).slice(0, maxMarkers);
    const total = Math.max(count(kind) ?? 0, list.length);
    markers.push(...list);
    if (total > 0) entries.push({ key: kind, kind: def.kind, label: label(def.name, list.length, total, "first"), shown: list.length, total });
  }

  const host = input.host;
  const notes = input.annotations.filter(
    (a) => (!host || !a.host || a.host === host) && a.from_ms <= visible.to && (a.to_ms ?? a.from_ms) >= visible.from,
  );
  const noteMarkers: Marker[] = notes.slice(0, maxMarkers).map((a) => ({
    kind: "annotation",
    t: a.from_ms,
    duration: a.to_ms ? a.to_ms - a.from_ms : null,
    text: `${a.text}${a.author ? ` (${a.author})` : ""}`,
  }));
  markers.push(...noteMarkers);
  if (notes.length) entries.push({ key: "annotation", kind: "annotation", label: label("annotations", noteMarkers.length, notes.length, "first"), shown: noteMarkers.length, total: notes.length });
  return { markers, entries };
}
