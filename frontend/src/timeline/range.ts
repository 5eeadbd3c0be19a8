/** Range math for the shared time axis: zoom, pan, clamp, pixel <-> time. Pure. */
import type { TimeRange } from "./types";

/** Never zoom in below this span. */
export const MIN_SPAN_MS = 1000;
/** A drag shorter than this (pixels) is a click, not a selection. */
export const MIN_DRAG_PX = 4;

/** An incident's whole extent is shown at least this wide: a single thread dump or an `ss`
 * listing is one instant, and a 0 ms axis has no ticks to read (a new user's walk). */
export const MIN_EXTENT_MS = 60_000;

/** `extent`, widened around its middle to {@link MIN_EXTENT_MS} when narrower. */
export function viewableExtent(extent: TimeRange | null): TimeRange | null {
  if (!extent || extent.to - extent.from >= MIN_EXTENT_MS) return extent;
  const mid = (extent.from + extent.to) / 2;
  return { from: Math.round(mid - MIN_EXTENT_MS / 2), to: Math.round(mid + MIN_EXTENT_MS / 2) };
}

export function spanOf(range: TimeRange): number {
  return range.to - range.from;
}

/** Keep `range` inside `bounds` (shifting it, then trimming), never shorter than MIN_SPAN_MS. */
export function clampRange(range: TimeRange, bounds: TimeRange | null): TimeRange {
  let { from, to } = range;
  if (to < from) [from, to] = [to, from];
  if (to - from < MIN_SPAN_MS) {
    const mid = (from + to) / 2;
    from = mid - MIN_SPAN_MS / 2;
    to = mid + MIN_SPAN_MS / 2;
  }
  if (bounds) {
    const span = to - from;
    if (span >= spanOf(bounds)) return { from: bounds.from, to: bounds.to };
    if (from < bounds.from) {
      from = bounds.from;
      to = from + span;
    } else if (to > bounds.to) {
      to = bounds.to;
      from = to - span;
    }
  }
  return { from: Math.round(from), to: Math.round(to) };
}

/** Zoom by `factor` (< 1 zooms in, > 1 out) around `center` (default: the middle). */
export function zoomRange(
  range: TimeRange,
  factor: number,
  bounds: TimeRange | null,
  center: number = (range.from + range.to) / 2,
): TimeRange {
  const span = spanOf(range) * factor;
  const left = (center - range.from) / spanOf(range);
  return clampRange({ from: center - span * left, to: center + span * (1 - left) }, bounds);
}

/** Move by `fraction` of the span (negative = earlier). */
export function panRange(range: TimeRange, fraction: number, bounds: TimeRange | null): TimeRange {
  const shift = spanOf(range) * fraction;
  return clampRange({ from: range.from + shift, to: range.to + shift }, bounds);
}

/** Time at pixel `x` of a plot `width` pixels wide showing `range`. */
export function xToTime(x: number, width: number, range: TimeRange): number {
  const f = width > 0 ? Math.min(1, Math.max(0, x / width)) : 0;
  return range.from + f * spanOf(range);
}

export function timeToX(t: number, width: number, range: TimeRange): number {
  const span = spanOf(range);
  return span > 0 ? ((t - range.from) / span) * width : 0;
}

/** The range a drag from x0 to x1 selects, or null when it is too short to mean one. */
export function selectionToRange(
  x0: number,
  x1: number,
  width: number,
  range: TimeRange,
): TimeRange | null {
  if (Math.abs(x1 - x0) < MIN_DRAG_PX) return null;
  const a = xToTime(Math.min(x0, x1), width, range);
  const b = xToTime(Math.max(x0, x1), width, range);
  return clampRange({ from: a, to: b }, range);
}

/** Points to ask the API for: about one per pixel, rounded so small resizes keep the cache. */
export function maxPointsFor(plotWidth: number): number {
  const rounded = Math.ceil(Math.max(plotWidth, 1) / 100) * 100;
  return Math.min(3000, Math.max(200, rounded));
}

export function sameRange(a: TimeRange | null, b: TimeRange | null): boolean {
  if (a === b) return true;
  return !!a && !!b && a.from === b.from && a.to === b.to;
}

/** Do [first, last] and the range overlap? */
export function overlaps(first: number, last: number, range: TimeRange | null): boolean {
  return !range || (first <= range.to && last >= range.from);
}
