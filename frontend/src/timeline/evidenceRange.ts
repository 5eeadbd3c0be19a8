/**
 * The range an evidence link opens: its from..to, padded by the data's own pace. Pure.
 *
 * An instant on coarse data (an nmon capture sampled every 20 min) padded by a fixed few
 * seconds shows one lone dot per lane; on dense data (GC pauses a few hundred ms apart) the
 * same few seconds zoom out and squeeze it. So an evidence item is padded by
 * {@link PAD_INTERVALS} typical sample intervals of the series it links to (or, without one,
 * of the incident's series around its instant), and by a fifth of its length when that is more.
 */
import { highlightMatches } from "./lanes";
import { paddedRange } from "../lib/urlState";
import { MIN_SPAN_MS } from "./range";
import type { SeriesHighlight, SeriesMeta, TimeRange } from "./types";

/** Sample intervals shown on each side of an evidence item. */
export const PAD_INTERVALS = 3;
/** The pad when no series tells the data's pace (the former fixed pad). */
export const FALLBACK_PAD_MS = 5000;
/** The most of the incident's window the pace may pad on each side. */
export const MAX_WINDOW_SHARE = 1 / 8;

/** A series' mean step between points, or null for fewer than two points or no span. */
function stepOf(s: SeriesMeta): number | null {
  if (s.point_count < 2 || s.last_ms <= s.first_ms) return null;
  return (s.last_ms - s.first_ms) / (s.point_count - 1);
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
}

/**
 * The typical step between points near `at`: of the series `highlight` names (those covering
 * `at` when any do), else of every series covering `at` (on the evidence's host when it has
 * one). The median over them, so one odd series does not decide; null when nothing tells.
 */
export function typicalInterval(series: readonly SeriesMeta[], highlight: SeriesHighlight | null, at: number): number | null {
  const covering = (s: SeriesMeta) => s.first_ms <= at && at <= s.last_ms;
  const steps = (list: SeriesMeta[]) => list.flatMap((s) => (stepOf(s) === null ? [] : [stepOf(s)!]));
  if (highlight?.series) {
    const named = series.filter((s) => highlightMatches(highlight, s.name, s.labels));
    const near = steps(named.filter(covering));
    const found = median(near.length > 0 ? near : steps(named));
    if (found !== null) return found;
  }
  const host = highlight?.labels.host;
  const around = series.filter((s) => covering(s) && (!host || !s.labels.host || s.labels.host === host));
  return median(steps(around));
}

/**
 * `fromMs..toMs` padded on each side by {@link PAD_INTERVALS} times `intervalMs` or a fifth of
 * its length, whichever is more ({@link FALLBACK_PAD_MS} instead of the intervals when the pace
 * is unknown), never shorter than the timeline's {@link MIN_SPAN_MS}.
 */
export function paddedEvidenceRange(
  fromMs: number | null,
  toMs: number | null,
  intervalMs: number | null,
  windowMs: number | null = null,
): TimeRange | null {
  let pace = intervalMs !== null && intervalMs > 0 ? PAD_INTERVALS * intervalMs : FALLBACK_PAD_MS;
  // A series' mean step is its span over its points: a sparse one (a counter listed only when
  // it moved) would pad past the incident's window, and the link would show everything.
  if (windowMs !== null && windowMs > 0) pace = Math.min(pace, Math.max(windowMs * MAX_WINDOW_SHARE, FALLBACK_PAD_MS));
  // The symptom links' padding (a fifth of the span, at least the pace), held to the
  // timeline's shortest span.
  return paddedRange(fromMs, toMs, pace, MIN_SPAN_MS);
}

/** The range an evidence link opens (see the module's note). */
export function evidenceRange(
  highlight: SeriesHighlight,
  series: readonly SeriesMeta[] | undefined,
  window: TimeRange | null = null,
): TimeRange | null {
  const { from_ms: from, to_ms: to } = highlight;
  if (from === null && to === null) return null;
  const at = from ?? to!;
  const interval = series ? typicalInterval(series, highlight, at) : null;
  return paddedEvidenceRange(from, to, interval, window ? window.to - window.from : null);
}
