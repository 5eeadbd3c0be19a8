/**
 * What the tooltip says at the hovered time: each line's value there, or nothing when the line
 * has no data there (before its first point, after its last one, inside a gap). Pure.
 */
import { gapThreshold } from "./data";
import type { LinePoints } from "./data";

/** The shared cursor: the hovered time, and the lane the pointer is in (its tooltip opens there). */
export interface CursorAt {
  t: number;
  lane: string;
}

/** Index of the last point at or before `t`, or -1. */
function lastAtOrBefore(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  if (hi < 0 || t < times[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The value of a line at `t`: the last point at or before it while the line runs (a sample
 * holds until the next), a point within `tolerance` of `t` on either side, and null outside the
 * line's data: before its first point, after its last one (a closed connection says nothing 6 s
 * later), or inside a gap (a step longer than `gap`, default: the line's own gapThreshold).
 */
export function valueNear(p: LinePoints, t: number, tolerance: number, gap = gapThreshold(p.t)): { t: number; v: number } | null {
  const n = p.t.length;
  if (!n) return null;
  const i = lastAtOrBefore(p.t, t);
  const at = (j: number) => ({ t: p.t[j]!, v: p.v[j]! });
  const next = i + 1 < n ? i + 1 : -1;
  if (next >= 0 && p.t[next]! - t <= tolerance && (i < 0 || p.t[next]! - t < t - p.t[i]!)) return at(next);
  if (i < 0) return null;
  if (t - p.t[i]! <= tolerance) return at(i);
  if (next < 0) return null; // past the last point
  if (p.t[next]! - p.t[i]! > gap) return null; // in a gap
  return at(i);
}

/** Per line: its value at `t` (null: nothing to say), skipping hidden lines. */
export function tooltipValues(
  points: readonly LinePoints[],
  t: number,
  tolerance: number,
): ({ t: number; v: number } | null)[] {
  return points.map((p) => valueNear(p, t, tolerance));
}
