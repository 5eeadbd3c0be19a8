/**
 * Event markers: a strip above the lanes (hoverable; clickable when the page shows details) and
 * faint lines across every lane.
 */
import { memo, useMemo, type KeyboardEvent } from "react";
import { formatDuration } from "../lib/time";
import { formatFull } from "./format";
import { timeToX } from "./range";
import type { EventRead, TimeRange } from "./types";

export type MarkerKind = "gc" | "rejection" | "overflow" | "annotation" | "reset" | "dump" | "deadlock" | "other";

export interface Marker {
  kind: MarkerKind;
  t: number;
  /** Span length (GC pause, annotation range), ms. */
  duration: number | null;
  text: string;
  /** The event it stands for (events drawn from the events list). */
  event?: EventRead;
  /** Where a marker drawn from a series point comes from (GC pauses, listen overflows). */
  source?: { name: string; labels: Record<string, string>; value: number; previousT: number | null };
}

export const MARKER_COLORS: Record<MarkerKind, string> = {
  gc: "#e07b00",
  rejection: "#c8102e",
  overflow: "#7b3fb5",
  annotation: "#1565c0",
  reset: "#8b0000",
  dump: "#888888",
  deadlock: "#b00020",
  other: "#555555",
};

export const MARKER_NAMES: Record<MarkerKind, string> = {
  gc: "GC pauses",
  rejection: "rejections",
  overflow: "listen overflows",
  annotation: "annotations",
  reset: "resets / timeouts",
  dump: "thread dumps",
  deadlock: "thread deadlocks",
  other: "other events",
};

interface StripProps {
  markers: Marker[];
  range: TimeRange;
  width: number;
  timezone: string;
  /** Called with the marker clicked (or chosen with Enter); markers are buttons only when given. */
  onSelect?: (marker: Marker) => void;
}

/** Whether a marker has details to show (annotations are listed under the timeline instead). */
export function selectable(marker: Marker): boolean {
  return marker.kind !== "annotation";
}

/** Drawing order of the kinds: on a shared instant the earlier kind keeps the bottom tier. */
const KIND_ORDER = Object.keys(MARKER_COLORS) as MarkerKind[];

/** Half the width of a point marker's triangle, px. */
const HALF = 4;

/** Height of a tier of the strip, px: one triangle (8) and a gap. */
export const TIER_STEP = 10;

function markerWidth(m: Marker, range: TimeRange, width: number): number {
  return m.duration ? Math.max(2, (m.duration / (range.to - range.from)) * width) : 0;
}

/**
 * The tier each marker is drawn in (0: the strip's own row, 1: one step above ...). Markers of
 * different kinds that would cover each other (a thread dump and the deadlock the JVM found in
 * it share an instant) are stacked, each keeping its x, so that every one stays under the mouse;
 * markers of one kind share a tier (a burst of rejections stays one row). GC pauses and
 * annotations have rows of their own: tier 0.
 */
export function markerTiers(markers: readonly Marker[], range: TimeRange, width: number): number[] {
  const tiers = markers.map(() => 0);
  const pad = 2 * HALF;
  const columns = Math.max(0, Math.ceil(width)) + 2 * pad + 1;
  const extent = (m: Marker): [number, number] => {
    const x = timeToX(m.t, width, range);
    const w = markerWidth(m, range, width);
    const [a, b] = w > 0 ? [x, x + w] : [x - HALF, x + HALF];
    // A pixel's gap between neighbours; clamped to the strip (and a triangle's width past it).
    const clamp = (v: number) => Math.min(columns - 1, Math.max(0, v + pad));
    return [clamp(Math.floor(a)), clamp(Math.ceil(b))];
  };
  const order = markers
    .map((m, i) => ({ m, i, rank: KIND_ORDER.indexOf(m.kind) }))
    .filter(({ m }) => m.kind !== "gc" && m.kind !== "annotation")
    .map((entry) => ({ ...entry, span: extent(entry.m) }))
    .sort((p, q) => p.rank - q.rank || p.span[0] - q.span[0]);
  // Per tier, per pixel column: the kind occupying it (its rank + 1), 0 when free.
  const occupied: Uint8Array[] = [];
  for (const { i, rank, span } of order) {
    const code = rank + 1;
    for (let tier = 0; ; tier++) {
      const row = (occupied[tier] ??= new Uint8Array(columns));
      let free = true;
      for (let c = span[0]; c <= span[1] && free; c++) free = row[c] === 0 || row[c] === code;
      if (!free) continue;
      row.fill(code, span[0], span[1] + 1);
      tiers[i] = tier;
      break;
    }
  }
  return tiers;
}

function MarkerStripImpl({ markers, range, width, timezone, onSelect }: StripProps) {
  const tiers = useMemo(() => markerTiers(markers, range, width), [markers, range, width]);
  // Tiers above the first grow the strip upwards (annotations stay on top, GC pauses at the bottom).
  const extra = Math.max(0, ...tiers) * TIER_STEP;
  const h = 26 + extra;
  return (
    <svg className="tl-strip__svg" width={width} height={h} role={onSelect ? "group" : "img"} aria-label="Events in view">
      <line x1={0} x2={width} y1={h - 0.5} y2={h - 0.5} stroke="#ccc" />
      {markers.map((m, i) => {
        const x = timeToX(m.t, width, range);
        const w = markerWidth(m, range, width);
        const color = MARKER_COLORS[m.kind];
        const title = `${MARKER_NAMES[m.kind]}: ${formatFull(m.t, timezone)}${m.duration ? ` for ${formatDuration(m.duration)}` : ""}${m.text ? ` — ${m.text}` : ""}`;
        const clickable = onSelect && selectable(m);
        const handlers = clickable
          ? {
              role: "button",
              tabIndex: 0,
              "aria-label": `Details of ${title}`,
              "data-marker": m.kind,
              className: "tl-marker",
              onClick: () => onSelect(m),
              onKeyDown: (event: KeyboardEvent) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  onSelect(m);
                }
              },
            }
          : {};
        if (m.kind === "annotation") {
          return (
            <rect key={i} x={x} y={1} width={Math.max(3, w)} height={8} fill={color} fillOpacity={0.5}>
              <title>{title}</title>
            </rect>
          );
        }
        const row = (m.kind === "gc" ? 14 : 7 - tiers[i]! * TIER_STEP) + extra;
        if (w > 0) {
          return (
            <rect key={i} x={x} y={row} width={w} height={10} fill={color} fillOpacity={0.75} {...handlers}>
              <title>{title}</title>
            </rect>
          );
        }
        return (
          <path key={i} d={`M${x},${row + 10} l-4,-8 h8 z`} fill={color} {...handlers}>
            <title>{title}</title>
          </path>
        );
      })}
    </svg>
  );
}
export const MarkerStrip = memo(MarkerStripImpl);

interface OverlayProps {
  markers: Marker[];
  range: TimeRange;
  width: number;
  /** Highlighted evidence range, shaded across every lane. */
  shade: TimeRange | null;
}

/** GC pauses (the longest) drawn as lines across every lane. */
const MAX_GC_LINES = 20;

/** Taller than any page: the overlay's SVG viewport cuts the lines at the lanes' bottom. */
const FAR = 100000;

function MarkerOverlayImpl({ markers, range, width, shade }: OverlayProps) {
  // One path per kind (not one element per marker), annotation ranges as bands.
  const { paths, bands } = useMemo(() => {
    const d = new Map<MarkerKind, string[]>();
    const bands: { x: number; w: number }[] = [];
    let gcLines = 0;
    for (const m of markers) {
      // Across the lanes only the longest GC pauses (the strip above shows them all).
      if (m.kind === "gc" && gcLines++ >= MAX_GC_LINES) continue;
      const x = timeToX(m.t, width, range);
      if (m.kind === "annotation" && m.duration) {
        bands.push({ x, w: Math.max(2, (m.duration / (range.to - range.from)) * width) });
        continue;
      }
      let list = d.get(m.kind);
      if (!list) d.set(m.kind, (list = []));
      list.push(`M${Math.round(x * 10) / 10},0V${FAR}`);
    }
    return { paths: [...d].map(([kind, parts]) => ({ kind, d: parts.join("") })), bands };
  }, [markers, range, width]);
  let shaded: { x: number; w: number } | null = null;
  if (shade && shade.to >= range.from && shade.from <= range.to) {
    const x = Math.max(0, timeToX(shade.from, width, range));
    shaded = { x, w: Math.max(2, Math.min(width, timeToX(shade.to, width, range)) - x) };
  }
  return (
    <svg className="tl-overlay" width={width} height="100%" aria-hidden="true" preserveAspectRatio="none">
      {shaded && <rect className="tl-overlay__shade" x={shaded.x} width={shaded.w} y={0} height="100%" />}
      {bands.map((b, i) => (
        <rect key={i} x={b.x} width={b.w} y={0} height="100%" fill={MARKER_COLORS.annotation} fillOpacity={0.06} />
      ))}
      {paths.map(({ kind, d }) => (
        <path
          key={kind}
          d={d}
          fill="none"
          stroke={MARKER_COLORS[kind]}
          strokeOpacity={kind === "gc" || kind === "dump" ? 0.18 : 0.45}
          strokeWidth={1}
        />
      ))}
    </svg>
  );
}
export const MarkerOverlay = memo(MarkerOverlayImpl);
