/**
 * The incident and share pages keep their view in the query string, so a copied URL opens the
 * same view: `from`/`to` (visible range, UTC epoch ms), `host`, `finding` (selected checklist
 * item), `evidence` (index of the selected evidence item within that finding) and `lanes`
 * (series added to the timeline, repeated).
 */

export interface TimeRange {
  from: number;
  to: number;
}

export interface ViewState {
  range: TimeRange | null;
  host: string | null;
  finding: string | null;
  evidence: number | null;
  /** Series names added to the timeline as lanes of their own. */
  lanes: string[];
}

const VIEW_KEYS = ["from", "to", "host", "finding", "evidence", "lanes"] as const;
/** Lanes a link may add (the share API keeps at most 50). */
export const MAX_LANES = 50;

/** Epoch ms, or an ISO-8601 instant (hand-written links); null when unreadable. */
export function parseInstant(text: string | null): number | null {
  if (text === null || text.trim() === "") return null;
  const trimmed = text.trim();
  if (/^-?\d+$/.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isSafeInteger(value) ? value : null;
  }
  const parsed = Date.parse(trimmed);
  return Number.isNaN(parsed) ? null : parsed;
}

export function parseViewState(search: URLSearchParams | string): ViewState {
  const params = typeof search === "string" ? new URLSearchParams(search) : search;
  const from = parseInstant(params.get("from"));
  const to = parseInstant(params.get("to"));
  const range = from !== null && to !== null && to > from ? { from, to } : null;
  const host = params.get("host")?.trim() || null;
  const finding = params.get("finding")?.trim() || null;
  const evidenceText = params.get("evidence");
  const evidence =
    finding && evidenceText && /^\d+$/.test(evidenceText) ? Number(evidenceText) : null;
  const lanes = [...new Set(params.getAll("lanes").map((lane) => lane.trim()).filter((lane) => lane && lane.length <= 200))].slice(0, MAX_LANES);
  return { range, host, finding, evidence, lanes };
}

/** The query string for `state`, keeping any unrelated parameters of `base`. */
export function formatViewState(state: ViewState, base?: URLSearchParams | string): URLSearchParams {
  const params = new URLSearchParams(base ?? "");
  for (const key of VIEW_KEYS) params.delete(key);
  if (state.range) {
    params.set("from", String(Math.round(state.range.from)));
    params.set("to", String(Math.round(state.range.to)));
  }
  if (state.host) params.set("host", state.host);
  if (state.finding) {
    params.set("finding", state.finding);
    if (state.evidence !== null) params.set("evidence", String(state.evidence));
  }
  for (const lane of state.lanes ?? []) params.append("lanes", lane);
  return params;
}

/**
 * The range to show for an evidence item: its own range padded by a fifth of its length on each
 * side (at least 5 s), so the signature sits in the middle with some context; null when the
 * evidence has no time.
 */
export function paddedRange(
  fromMs: number | null,
  toMs: number | null,
  minPadMs = 5000,
  minSpanMs = 0,
): TimeRange | null {
  if (fromMs === null && toMs === null) return null;
  const start = fromMs ?? toMs!;
  const end = toMs ?? fromMs!;
  let pad = Math.max((end - start) / 5, minPadMs);
  if (end - start + 2 * pad < minSpanMs) pad = (minSpanMs - (end - start)) / 2;
  return { from: Math.round(start - pad), to: Math.round(end + pad) };
}

/**
 * A range from a link, held to the incident's window: the part inside it (a link made before
 * the window changed, or hand-edited), or null (the whole incident) when nothing of it is inside
 * or it covers the whole window anyway.
 */
export function clampToWindow(range: TimeRange | null, window: TimeRange | null): TimeRange | null {
  if (!range || !window) return range;
  const from = Math.max(range.from, window.from);
  const to = Math.min(range.to, window.to);
  if (to <= from) return null;
  if (from <= window.from && to >= window.to) return null;
  return from === range.from && to === range.to ? range : { from, to };
}

/** Only our own paths are followed after sign-in (never another origin: `//evil`, `/\evil`). */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  if (next.startsWith("/login")) return "/";
  return next;
}
