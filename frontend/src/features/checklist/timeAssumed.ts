/**
 * What of a file's times was assumed rather than read (`time_assumed` on an evidence item or
 * the symptom: `placed_at_upload`, `app_log.date_assumed`, `unanchored`, several joined by
 * `, `), in words. Where such an item sits on the timeline is a guess, so its time is shown
 * with this beside it, not as if measured.
 */
const REASONS: Record<string, string> = {
  placed_at_upload: "no timestamp in the file, placed at its upload",
  "app_log.date_assumed": "date assumed: no date on the log lines, put on the upload's date",
  date_assumed: "date assumed: no date on the log lines, put on the upload's date",
  unanchored: "no start time: relative times (JVM uptimes) only",
};

/** The reasons, one per assumption named (unknown ones as given); empty when nothing was assumed. */
export function timeAssumedReasons(timeAssumed: string | null | undefined): string[] {
  if (!timeAssumed) return [];
  const keys = timeAssumed
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
  return [...new Set(keys.map((key) => REASONS[key] ?? key))];
}

/** "time assumed: …" for a marker beside the time, or null when the time is the file's own. */
export function timeAssumedLabel(timeAssumed: string | null | undefined): string | null {
  const reasons = timeAssumedReasons(timeAssumed);
  return reasons.length ? `time assumed: ${reasons.join("; ")}` : null;
}
