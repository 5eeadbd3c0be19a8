/** Fetching for the timeline (react-query) and shaping API answers into chart rows. */
import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import type { Schemas } from "../api/client";
import { readGet } from "../api/reads";
import type { LinePlan } from "./lanes";
import type { EventRead, EventKindSummary, SeriesMeta, TimeRange, TimelineSeries } from "./types";

const SERIES_PAGE = 5000;

/** Every stored series of the incident (paged by 5 000; pages after the first in parallel). */
export function useSeriesList(apiBase: string) {
  return useQuery({
    queryKey: [apiBase, "series", "all"],
    staleTime: 60_000,
    queryFn: async ({ signal }): Promise<SeriesMeta[]> => {
      const page = (offset: number) => readGet(apiBase, "/series", { query: { limit: SERIES_PAGE, offset }, signal });
      const first = await page(0);
      const rest: Promise<Schemas["SeriesPage"]>[] = [];
      for (let offset = first.items.length; offset < first.total; offset += SERIES_PAGE) {
        rest.push(page(offset));
      }
      const pages = await Promise.all(rest);
      return first.items.concat(...pages.map((p) => p.items));
    },
  });
}

export type ConnectionRead = Schemas["ConnectionRead"];

/** How many connections the incident holds (its listing shows only the busiest ones' series). */
export function useConnectionCount(apiBase: string) {
  return useQuery({
    queryKey: [apiBase, "connections", "total"],
    staleTime: 60_000,
    queryFn: ({ signal }) => readGet(apiBase, "/connections", { query: { limit: 1 }, signal }).then((p) => p.total),
  });
}

/** Connections whose address contains `text` (the picker), busiest first; off for short text. */
export function useConnectionSearch(apiBase: string, text: string) {
  const q = text.trim();
  return useQuery({
    queryKey: [apiBase, "connections", "search", q],
    enabled: looksLikeAddress(q),
    staleTime: 60_000,
    queryFn: ({ signal }) => readGet(apiBase, "/connections", { query: { q, limit: 8 }, signal }).then((p) => p.items),
  });
}

/** Whether picker text may name a connection: a digit and a dot or colon (`10.0.3`, `:5005`). */
export function looksLikeAddress(text: string): boolean {
  return /\d/.test(text) && /[.:]/.test(text) && !text.includes("*");
}

/**
 * The series of picked connections (by `local|peer`), which the listing of the busiest
 * connections may not hold; merged into the series list by id.
 */
export function usePinnedSeries(apiBase: string, pins: readonly string[]): SeriesMeta[] {
  return useQueries({
    queries: pins.map((pin) => {
      const [local = "", peer = ""] = pin.split("|");
      return {
        queryKey: [apiBase, "series", "connection", pin],
        staleTime: 60_000,
        queryFn: ({ signal }: { signal: AbortSignal }) =>
          readGet(apiBase, "/series", { query: { connection: peer, limit: 5000 }, signal }).then((p) =>
            p.items.filter((s) => s.labels.local === local && s.labels.peer === peer),
          ),
      };
    }),
    combine: flattenAnswers,
  });
}

/** The answers of several queries as one list: a stable function, so that react-query runs it
 * (and hands a new array) only when an answer changes. */
function flattenAnswers(results: { data?: SeriesMeta[] }[]): SeriesMeta[] {
  return results.flatMap((r) => r.data ?? []);
}

/** `base` with the series of `extra` it does not hold yet (by id). */
export function mergeSeries(base: SeriesMeta[] | undefined, extra: readonly SeriesMeta[]): SeriesMeta[] | undefined {
  if (!base || !extra.length) return base;
  const ids = new Set(base.map((s) => s.id));
  const more = extra.filter((s) => !ids.has(s.id));
  return more.length ? base.concat(more) : base;
}

export interface Batch {
  ids: number[];
  range: TimeRange | null;
  maxPoints: number;
}

/** The query of one batch (shared by the lanes' hook and the prefetch on a range change). */
export function timelineQuery(apiBase: string, b: Batch) {
  return {
    queryKey: [apiBase, "timeline", b.ids.join(","), b.range?.from ?? null, b.range?.to ?? null, b.maxPoints],
    staleTime: 60_000,
    queryFn: ({ signal }: { signal: AbortSignal }) =>
      readGet(apiBase, "/timeline", {
        query: {
          series: [b.ids.join(",")],
          from: b.range ? String(b.range.from) : undefined,
          to: b.range ? String(b.range.to) : undefined,
          max_points: b.maxPoints,
        },
        signal,
      }).then((t): BatchResult => {
        return { series: t.series, range: b.range };
      }),
  };
}

/** One request per batch of series ids; the previous answer stays on screen while the next loads. */
export function useTimelineBatches(apiBase: string, batches: Batch[]) {
  return useQueries({
    queries: batches.map((b) => ({ ...timelineQuery(apiBase, b), placeholderData: keepPreviousData })),
  });
}

export interface BatchResult {
  series: TimelineSeries[];
  /** The range these points were read for. */
  range: TimeRange | null;
}

/** Kinds drawn as event markers (GC pauses come from the gc.pause_ms series instead). */
const MARKER_KINDS = [
  "threadpool_rejected",
  "connection_reset",
  "rpc_timeout",
  "gc_to_space_exhausted",
  "gc_allocation_stall",
  "thread_dump",
  "thread_deadlock",
];
const MAX_EVENTS = 1000;

export interface EventsInView {
  items: EventRead[];
  total: number;
  /** Counts per kind in view, all kinds (GC pauses included). */
  kinds: EventKindSummary[];
}

export function useEvents(apiBase: string, range: TimeRange | null, host: string | null) {
  return useQuery({
    queryKey: [apiBase, "events", range?.from ?? null, range?.to ?? null, host],
    staleTime: 60_000,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<EventsInView> => {
      const params = { from: range ? String(range.from) : undefined, to: range ? String(range.to) : undefined, host: host ?? undefined };
      const [markers, summary] = await Promise.all([
        readGet(apiBase, "/events", { query: { ...params, kind: [MARKER_KINDS.join(",")], limit: MAX_EVENTS }, signal }),
        readGet(apiBase, "/events", { query: { ...params, limit: 1 }, signal }),
      ]);
      return { items: markers.items, total: markers.total, kinds: summary.kinds };
    },
  });
}

// ---- shaping ----

/** Points of one line: the series of all its artifacts merged in time order. */
export interface LinePoints {
  t: number[];
  v: number[];
}

export function mergeLinePoints(parts: readonly { t: number[]; v: number[] }[]): LinePoints {
  const nonEmpty = parts.filter((p) => p.t.length);
  if (nonEmpty.length === 0) return { t: [], v: [] };
  if (nonEmpty.length === 1) return { t: nonEmpty[0]!.t, v: nonEmpty[0]!.v };
  const t = nonEmpty.flatMap((p) => p.t);
  const v = nonEmpty.flatMap((p) => p.v);
  const order = t.map((_, i) => i).sort((a, b) => t[a]! - t[b]!);
  return { t: order.map((i) => t[i]!), v: order.map((i) => v[i]!) };
}

/** Points of each line of a lane, from the stored series fetched (by id). */
export function linePoints(lines: readonly LinePlan[], byId: ReadonlyMap<number, TimelineSeries>): LinePoints[] {
  return lines.map((line) => {
    const parts: TimelineSeries[] = [];
    for (const id of line.ids) {
      const s = byId.get(id);
      if (s) parts.push(s);
    }
    return mergeLinePoints(parts);
  });
}

/** Value of a line at time `t`: the last point at or before it (or the first one after). */
export function valueAt(p: LinePoints, t: number): { t: number; v: number } | null {
  const n = p.t.length;
  if (!n) return null;
  let lo = 0;
  let hi = n - 1;
  if (t < p.t[0]!) return { t: p.t[0]!, v: p.v[0]! };
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (p.t[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return { t: p.t[lo]!, v: p.v[lo]! };
}

/** Index of the value nearest to `t` in ascending `sorted` (the cursor's stop); 0 when empty. */
export function nearestIndex(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(sorted[lo - 1]! - t) <= Math.abs(sorted[lo]! - t)) return lo - 1;
  return lo;
}

/** The `limit` largest values of a line within `range`, largest first (GC pauses). */
export function largestPoints(p: LinePoints, range: TimeRange | null, limit: number): LinePoints {
  const idx: number[] = [];
  for (let i = 0; i < p.t.length; i++) {
    const t = p.t[i]!;
    if (!range || (t >= range.from && t <= range.to)) idx.push(i);
  }
  idx.sort((a, b) => p.v[b]! - p.v[a]!);
  idx.length = Math.min(idx.length, limit);
  return { t: idx.map((i) => p.t[i]!), v: idx.map((i) => p.v[i]!) };
}

/** A round step (1, 2, 2.5, 5 x 10^n) of at least `raw`. */
function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw * 0.999) return m * pow;
  return 10 * pow;
}

/** A round step of bytes: 1, 2, 5 ... within the IEC power in use (16 KiB, not 16 384 as 16.4k). */
function byteStep(raw: number, factor: number): number {
  const bytes = raw * factor;
  if (bytes <= 1) return Math.max(1, Math.ceil(1 / factor) || 1);
  const power = 1024 ** Math.max(0, Math.floor(Math.log(bytes) / Math.log(1024)));
  let step = niceStep(bytes / power) * power;
  if (step / power < 1) step = power;
  return Math.max(1, Math.round(step)) / factor;
}

export interface YScale {
  lo: number;
  hi: number;
  ticks: number[];
  log: boolean;
}

export interface YOptions {
  /** Ticks at powers of ten; values at or below zero sit on the floor. */
  log?: boolean;
  /** Fixed bounds (either may be left to the data). */
  min?: number | null;
  max?: number | null;
  /** Whole units (bytes, sockets ...): integer ticks only. */
  whole?: boolean;
  /** Bytes per value of a byte unit: ticks round in IEC units. */
  bytesFactor?: number | null;
}

function extent(points: readonly LinePoints[], range: TimeRange | null, positiveOnly: boolean): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const p of points) {
    for (let i = 0; i < p.t.length; i++) {
      const t = p.t[i]!;
      if (range && (t < range.from || t > range.to)) continue;
      const v = p.v[i]!;
      if (!Number.isFinite(v) || (positiveOnly && v <= 0)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { min, max };
}

/**
 * The y axis of a lane: from 0 (or the lowest value when negative) to a round value above the
 * highest point in `range`, with about `count` round ticks; or logarithmic (powers of ten
 * around the positive values); or the bounds the user set.
 */
export function yScale(points: readonly LinePoints[], range: TimeRange | null, count = 3, options: YOptions = {}): YScale {
  const fixedMin = options.min ?? null;
  const fixedMax = options.max ?? null;
  if (options.log) {
    const { min, max } = extent(points, range, true);
    const lo0 = fixedMin !== null && fixedMin > 0 ? fixedMin : min === Infinity ? 1 : 10 ** Math.floor(Math.log10(min));
    let hi0 = fixedMax !== null && fixedMax > lo0 ? fixedMax : max === -Infinity ? lo0 * 10 : 10 ** Math.ceil(Math.log10(max));
    if (hi0 <= lo0) hi0 = lo0 * 10;
    const ticks: number[] = [];
    const first = Math.ceil(Math.log10(lo0) - 1e-9);
    const last = Math.floor(Math.log10(hi0) + 1e-9);
    const every = Math.max(1, Math.ceil((last - first + 1) / 5));
    for (let e = first; e <= last; e += every) ticks.push(+(10 ** e).toPrecision(12));
    return { lo: lo0, hi: hi0, ticks, log: true };
  }
  const { min, max } = extent(points, range, false);
  if (min === Infinity && fixedMin === null && fixedMax === null) return { lo: 0, hi: 1, ticks: [0, 1], log: false };
  const dataMin = min === Infinity ? 0 : min;
  const dataMax = max === -Infinity ? 1 : max;
  let lo = fixedMin ?? (dataMin >= 0 ? 0 : dataMin);
  let hi = fixedMax ?? dataMax;
  if (hi <= lo) hi = lo + (Math.abs(lo) || 1);
  const raw = (hi - lo) / count;
  let step = options.bytesFactor ? byteStep(raw, options.bytesFactor) : niceStep(raw);
  if (options.whole) step = Math.max(1, Math.ceil(step));
  if (fixedMin === null) lo = dataMin >= 0 ? 0 : Math.floor(lo / step) * step;
  if (fixedMax === null) hi = Math.ceil(hi / step) * step;
  if (hi <= lo) hi = lo + step;
  const ticks: number[] = [];
  const start = Math.ceil(lo / step - 1e-9) * step;
  for (let v = start; v <= hi + step / 1e6; v += step) ticks.push(+v.toPrecision(12));
  return { lo, hi, ticks, log: false };
}

/** Where `v` sits on the axis: 0 at the bottom, 1 at the top (log: values <= lo on the floor). */
export function yFraction(y: YScale, v: number): number {
  if (y.log) {
    const lv = Math.log10(Math.max(v, y.lo));
    const llo = Math.log10(y.lo);
    return (lv - llo) / (Math.log10(y.hi) - llo || 1);
  }
  return (v - y.lo) / (y.hi - y.lo || 1);
}

/** Distinct times of all lines snapped to `buckets` columns over `range`: the cursor's stops. */
export function cursorTimes(points: readonly LinePoints[], range: TimeRange, buckets: number): number[] {
  const width = (range.to - range.from) / Math.max(1, buckets);
  const byBucket = new Map<number, number>();
  for (const p of points) {
    for (const t of p.t) {
      if (t < range.from || t > range.to) continue;
      const b = Math.floor((t - range.from) / width);
      if (!byBucket.has(b)) byBucket.set(b, t);
    }
  }
  return [...byBucket.values()].sort((a, b) => a - b);
}

/** SVG path of a line (null values break it; points outside are kept, the clip hides them). */
export function linePath(p: LinePoints, x: (t: number) => number, y: (v: number) => number): string {
  const gap = gapThreshold(p.t);
  const parts: string[] = [];
  let move = true;
  for (let i = 0; i < p.t.length; i++) {
    const v = p.v[i]!;
    if (!Number.isFinite(v)) {
      move = true;
      continue;
    }
    if (i > 0 && p.t[i]! - p.t[i - 1]! > gap) move = true;
    // Tenths of a pixel, without toFixed (the hot loop of a lane with thousands of points).
    parts.push((move ? "M" : "L") + Math.round(x(p.t[i]!) * 10) / 10 + "," + Math.round(y(v) * 10) / 10);
    move = false;
  }
  return parts.join("");
}

/** Steps longer than this break a line: no data (another capture, a stopped collector). */
export function gapThreshold(t: readonly number[]): number {
  if (t.length < 8) return Infinity;
  const steps: number[] = [];
  const stride = Math.max(1, Math.floor(t.length / 200));
  for (let i = stride; i < t.length; i += stride) steps.push((t[i]! - t[i - stride]!) / stride);
  steps.sort((a, b) => a - b);
  const median = steps[steps.length >> 1]!;
  return Math.max(median * 8, 1);
}

/** The shared cursor: what is under the pointer (null when it is off the plots). */
export interface CursorStore<T = number> {
  get: () => T | null;
  set: (value: T | null) => void;
  subscribe: (listener: () => void) => () => void;
}

export function createCursorStore<T = number>(same: (a: T, b: T) => boolean = Object.is): CursorStore<T> {
  let value: T | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set: (next) => {
      if (next === value || (next !== null && value !== null && same(next, value))) return;
      value = next;
      for (const l of listeners) l();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
