/**
 * The lane layout a user made (lanes added with the picker, their order, and per lane: collapsed,
 * log scale, y range, hidden lines, zero lines unfolded), kept in the URL's `layout` parameter
 * as compact JSON so that a copied link reopens the same view. Pure; unreadable input reads as
 * the default layout, never an error.
 */

export interface LaneLayout {
  collapsed?: boolean;
  log?: boolean;
  /** Fixed y bounds (null or absent: from the data). */
  min?: number | null;
  max?: number | null;
  /** Keys of lines hidden from the legend. */
  hidden?: string[];
  /** Every flat-zero line drawn ("+ N at zero" unfolded). */
  zeros?: boolean;
}

export interface Layout {
  /** Series names (or prefix*) added with the picker, in order. */
  added: string[];
  /** Lane keys in the order the user put them (empty: the default order). */
  order: string[];
  lanes: Record<string, LaneLayout>;
}

export const LAYOUT_PARAM = "layout";
export const EMPTY_LAYOUT: Layout = { added: [], order: [], lanes: {} };

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function cleanLane(raw: unknown): LaneLayout | null {
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  const out: LaneLayout = {};
  if (r.c === 1 || r.c === true) out.collapsed = true;
  if (r.g === 1 || r.g === true) out.log = true;
  if (r.z === 1 || r.z === true) out.zeros = true;
  if (Array.isArray(r.y)) {
    const [min, max] = [num(r.y[0]), num(r.y[1])];
    if (min !== null) out.min = min;
    if (max !== null) out.max = max;
  }
  const hidden = strings(r.h);
  if (hidden.length) out.hidden = hidden;
  return Object.keys(out).length ? out : null;
}

export function parseLayout(text: string | null): Layout {
  if (!text) return EMPTY_LAYOUT;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return EMPTY_LAYOUT;
  }
  if (!raw || typeof raw !== "object") return EMPTY_LAYOUT;
  const r = raw as Record<string, unknown>;
  const lanes: Record<string, LaneLayout> = {};
  if (r.l && typeof r.l === "object") {
    for (const [key, value] of Object.entries(r.l as Record<string, unknown>)) {
      const lane = cleanLane(value);
      if (lane) lanes[key] = lane;
    }
  }
  return { added: [...new Set(strings(r.a))], order: [...new Set(strings(r.o))], lanes };
}

/** The URL parameter's value; null for the default layout (no parameter at all). */
export function formatLayout(layout: Layout): string | null {
  const l: Record<string, Record<string, unknown>> = {};
  for (const [key, lane] of Object.entries(layout.lanes)) {
    const out: Record<string, unknown> = {};
    if (lane.collapsed) out.c = 1;
    if (lane.log) out.g = 1;
    if (lane.zeros) out.z = 1;
    if (lane.min != null || lane.max != null) out.y = [lane.min ?? null, lane.max ?? null];
    if (lane.hidden?.length) out.h = lane.hidden;
    if (Object.keys(out).length) l[key] = out;
  }
  const raw: Record<string, unknown> = {};
  if (layout.added.length) raw.a = layout.added;
  if (layout.order.length) raw.o = layout.order;
  if (Object.keys(l).length) raw.l = l;
  return Object.keys(raw).length ? JSON.stringify(raw) : null;
}

/** `layout` with lane `key` changed by `patch` (an entry left empty is dropped). */
export function patchLane(layout: Layout, key: string, patch: Partial<LaneLayout>): Layout {
  const next = { ...(layout.lanes[key] ?? {}), ...patch };
  const clean = cleanLane({
    c: next.collapsed,
    g: next.log,
    z: next.zeros,
    y: [next.min ?? null, next.max ?? null],
    h: next.hidden,
  });
  const lanes = { ...layout.lanes };
  if (clean) lanes[key] = clean;
  else delete lanes[key];
  return { ...layout, lanes };
}

/** Lanes in the user's order: those it names first, in its order, the others after, as given. */
export function orderLanes<T extends { key: string }>(lanes: readonly T[], order: readonly string[]): T[] {
  if (!order.length) return [...lanes];
  const rank = new Map(order.map((k, i) => [k, i]));
  return lanes
    .map((lane, i) => ({ lane, i, r: rank.get(lane.key) ?? order.length + i }))
    .sort((a, b) => a.r - b.r)
    .map((x) => x.lane);
}

/** The full order after moving `key` by `delta` places among `keys` (the current order). */
export function moveLane(keys: readonly string[], key: string, delta: number): string[] {
  const out = [...keys];
  const from = out.indexOf(key);
  if (from < 0) return out;
  const to = Math.max(0, Math.min(out.length - 1, from + delta));
  out.splice(from, 1);
  out.splice(to, 0, key);
  return out;
}
