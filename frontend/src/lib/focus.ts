/**
 * Where an incident's data lies, when its whole span is mostly empty: a 2014 nmon sample
 * uploaded beside a 2026 capture makes the incident 12 years long, and at that scale every
 * lane is a flat line squeezed against one edge. The page then opens on the part that holds
 * the data (and the evidence), the way a dashboard opens on the alert's time, with a button to
 * show everything.
 */
import type { Artifact } from "../api/types";
import type { TimeRange } from "./urlState";

export interface TimedArtifacts {
  timed: { artifact: Artifact; range: [number, number] }[];
  /** Artifacts (not bundles shown through their files) without a time range. */
  skipped: number;
  /** Unanchored artifacts (GC logs with only JVM uptimes): their "times" are not on the clock. */
  unanchored: number;
}

/** The artifacts with a time range on the clock; a bundle whose files are listed is left out. */
export function timedArtifacts(artifacts: Artifact[]): TimedArtifacts {
  const parents = new Set(artifacts.flatMap((artifact) => (artifact.parent_id ? [artifact.parent_id] : [])));
  const found: TimedArtifacts = { timed: [], skipped: 0, unanchored: 0 };
  for (const artifact of artifacts) {
    if (parents.has(artifact.id)) continue;
    if (!artifact.anchored) found.unanchored += 1;
    else if (artifact.time_start_ms == null || artifact.time_end_ms == null) found.skipped += 1;
    else {
      const start = Math.min(artifact.time_start_ms, artifact.time_end_ms);
      const end = Math.max(artifact.time_start_ms, artifact.time_end_ms);
      found.timed.push({ artifact, range: [start, end] });
    }
  }
  return found;
}

/** Gaps of a week or more (see {@link MIN_GAP_MS}) covering this share of a part's span (or
 * more) split the part at the widest of them: the data fills at most 10 % of it. */
export const EMPTY_SHARE = 0.9;
/** Only a gap of at least a week counts: captures hours or days apart (before and after, an
 * incident and its reproduction, a month of daily samples) are one incident's and stay in view
 * together. */
export const MIN_GAP_MS = 7 * 86_400_000;

/** A file's time range; `assumed` when the file had no clock of its own for it (an `ss`
 * listing without a timestamp line, placed at the upload time; log lines with a time of day
 * only, put on the upload's date). */
export interface FocusSpan extends TimeRange {
  assumed?: boolean;
}

export interface Focus {
  range: TimeRange;
  /** Files with a time range inside the focused part, and elsewhere. */
  inside: number;
  outside: number;
  /** The shortest distance from the focused part to data outside it, ms. */
  apartMs: number;
}

/**
 * The part of `spans` (one per file with a time range) to open on, or null when the data is
 * not that sparse. A part mostly made of gaps of a week or more (at least {@link EMPTY_SHARE}
 * of its span) is split at the widest one, again and again; each time the side kept is the
 * one holding more of the findings in `evidence` (the confirmed and likely ones, each as its
 * evidence spans: one vote per finding), then the one with more files that carry their own
 * clock (not `assumed`), then the one with more files, then the later one.
 * A side whose files all lie at one instant (point-in-time snapshots) is no view: the other
 * side is kept instead when it is not one instant too; else the splitting stops.
 */
export function dataFocus(spans: FocusSpan[], evidence: TimeRange[][] = []): Focus | null {
  let part = spans
    .filter((span) => Number.isFinite(span.from) && Number.isFinite(span.to))
    .map((span) => ({ from: Math.min(span.from, span.to), to: Math.max(span.from, span.to), assumed: !!span.assumed }))
    .sort((a, b) => a.from - b.from || a.to - b.to);
  const total = part.length;
  let apartMs = Infinity;
  for (;;) {
    const split = widestGap(part);
    if (!split) break;
    const left = part.slice(0, split.index);
    const right = part.slice(split.index);
    const leftEvidence = countInside(evidence, left);
    const rightEvidence = countInside(evidence, right);
    const leftClocked = left.filter((span) => !span.assumed).length;
    const rightClocked = right.filter((span) => !span.assumed).length;
    const keepLeft =
      leftEvidence !== rightEvidence
        ? leftEvidence > rightEvidence
        : leftClocked !== rightClocked
          ? leftClocked > rightClocked
          : left.length > right.length;
    // Snapshots at one instant are no view (a 2-second window on one point): the other side,
    // or stop here.
    const [kept, other] = keepLeft ? [left, right] : [right, left];
    const chosen = isInstant(kept) ? other : kept;
    if (isInstant(chosen)) break;
    part = chosen;
    apartMs = Math.min(apartMs, split.gap);
  }
  if (part.length === total || part.length === 0) return null;
  const { from, to } = bounds(part);
  const pad = Math.max((to - from) * 0.02, 1000);
  return { range: { from: from - pad, to: to + pad }, inside: part.length, outside: total - part.length, apartMs };
}

function isInstant(sorted: TimeRange[]): boolean {
  const { from, to } = bounds(sorted);
  return to <= from;
}

/** The widest stretch without data between sorted spans, when the stretches of a week or more
 * are most of their span. */
function widestGap(sorted: TimeRange[]): { index: number; gap: number } | null {
  const { from, to } = bounds(sorted);
  let reach = -Infinity;
  let best: { index: number; gap: number } | null = null;
  let empty = 0; // ms in gaps of a week or more
  for (const [index, span] of sorted.entries()) {
    const gap = span.from - reach;
    if (index > 0 && gap > 0 && (!best || gap > best.gap)) best = { index, gap };
    if (index > 0 && gap >= MIN_GAP_MS) empty += gap;
    reach = Math.max(reach, span.to);
  }
  return best && best.gap >= MIN_GAP_MS && empty >= EMPTY_SHARE * (to - from) ? best : null;
}

/** First start and last end of sorted spans. */
function bounds(sorted: TimeRange[]): TimeRange {
  return { from: sorted[0]?.from ?? 0, to: Math.max(...sorted.map((span) => span.to)) };
}

function countInside(evidence: TimeRange[][], part: TimeRange[]): number {
  const { from, to } = bounds(part);
  return evidence.filter((finding) => finding.some((item) => item.to >= from && item.from <= to)).length;
}

/** "12 years", "3 days", "5 h": how far apart, read at once. */
export function formatApart(ms: number): string {
  const days = ms / 86_400_000;
  if (days >= 365 * 2) return `${Math.round(days / 365.25)} years`;
  if (days >= 60) return `${Math.round(days / 30.44)} months`;
  if (days >= 2) return `${Math.round(days)} days`;
  const hours = ms / 3_600_000;
  if (hours >= 2) return `${Math.round(hours)} h`;
  return `${Math.max(1, Math.round(ms / 60_000))} min`;
}
