/**
 * One lane: header (title, units, legend, lane controls, state) and its chart (plain SVG) on the
 * shared axis; "Inspect data" shows its numbers as a table. What it draws is decided by pure
 * modules: lanes.ts (lines), legend.ts (hidden lines), data.ts (scales, paths), tooltip.ts.
 */
import { memo, useId, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { MouseEvent as ReactMouseEvent, ReactNode } from "react";
import { axisUnit, bytesPerUnit, displayUnit, formatAxisValue, formatFull, formatValue, isWholeUnit } from "./format";
import { cursorTimes, largestPoints, linePath, nearestIndex, yFraction, yScale } from "./data";
import type { CursorStore, LinePoints, YScale } from "./data";
import { inspectTable, tableToTsv } from "./inspect";
import type { LanePlan, LinePlan } from "./lanes";
import type { LaneLayout } from "./layout";
import { legendClick, liveHidden } from "./legend";
import { selectionToRange, timeToX } from "./range";
import type { LaneState } from "./status";
import type { CursorAt } from "./tooltip";
import { valueNear } from "./tooltip";
import type { TimeRange } from "./types";

export type { LaneState } from "./status";

/** Pixels left of the plot (y axis) and right of it: every lane and the overlays share them. */
export const PLOT_LEFT = 64;
export const PLOT_RIGHT = 16;
const CHART_HEIGHT = 132;
/** The plot area inside a chart: below a small top margin, above the time axis labels. */
export const PLOT_TOP = 6;
export const PLOT_HEIGHT = CHART_HEIGHT - PLOT_TOP - 18;
/** GC pauses drawn as points in view (the longest). */
const MAX_GC_POINTS = 200;
/** Below this many points a line also gets dots (single-snapshot connections). */
const DOT_BELOW = 8;

const COLORS = [
  "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
  "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
  "#393b79", "#637939",
]; // prettier-ignore

function colorOf(i: number): string {
  return COLORS[i % COLORS.length]!;
}

/** Width of the plot area in a lane (or the overlays) `width` pixels wide. */
export function plotWidthOf(width: number): number {
  return Math.max(1, width - PLOT_LEFT - PLOT_RIGHT);
}

/** A tick of the shared time axis, labelled once for every lane. */
export interface TimeTick {
  t: number;
  label: string;
}

/** Pixel row of value `v` on the y axis `y`. */
function yToPx(y: YScale, v: number): number {
  return PLOT_TOP + PLOT_HEIGHT * (1 - yFraction(y, v));
}

/** A line as drawn: its plan, its points, its colour (kept when other lines are hidden). */
interface Drawn {
  line: LinePlan;
  points: LinePoints;
  color: string;
}

const NO_LAYOUT: LaneLayout = {};

interface LaneProps {
  plan: LanePlan;
  points: LinePoints[];
  state: LaneState;
  /** Range the points were read for (data-from / data-to). */
  drawn: TimeRange | null;
  /** Visible range: the x domain. */
  domain: TimeRange;
  width: number;
  timezone: string;
  ticks: TimeTick[];
  /** Keys of lines to emphasise (others dimmed); null = no highlight in this lane. */
  emphasis: ReadonlySet<string> | null;
  /** The incident's GC-pause count in view (GC lane only), for the lane note. */
  gcPausesInView: number | null;
  error: string | null;
  onRetry: () => void;
  onSelect: (range: TimeRange) => void;
  onRemove?: () => void;
  sectionRef?: (el: HTMLElement | null) => void;
  /** The shared cursor (set by the timeline's one mousemove handler): a line in every lane, the tooltip in the hovered one. */
  cursor?: CursorStore<CursorAt>;
  /** The user's layout of this lane (from the URL) and how to change it. */
  layout?: LaneLayout;
  onLayout?: (key: string, patch: Partial<LaneLayout>) => void;
  /** Move the lane up (-1) or down (+1); absent at the top / bottom. */
  onMove?: (key: string, delta: number) => void;
  canMoveUp?: boolean;
  canMoveDown?: boolean;
}

function LaneImpl(props: LaneProps) {
  const { plan, points, state, drawn, domain, emphasis } = props;
  const layout = props.layout ?? NO_LAYOUT;
  const [inspecting, setInspecting] = useState(false);
  const [editingY, setEditingY] = useState(false);
  const totalPoints = points.reduce((n, p) => n + p.t.length, 0);
  const keys = useMemo(() => plan.lines.map((l) => l.key), [plan.lines]);
  const hidden = useMemo(() => liveHidden(layout.hidden, keys), [layout.hidden, keys]);
  const gcPoints = useMemo(
    () => (plan.kind === "scatter" ? points.map((p) => largestPoints(p, domain, MAX_GC_POINTS)) : null),
    [plan.kind, points, domain],
  );
  const shown = useMemo<Drawn[]>(() => {
    const source = gcPoints ?? points;
    const out: Drawn[] = [];
    plan.lines.forEach((line, i) => {
      if (!hidden.has(line.key) && source[i]) out.push({ line, points: source[i], color: colorOf(i) });
    });
    return out;
  }, [plan.lines, points, gcPoints, hidden]);
  // The y scale, here so that the header names the unit its axis writes (see `axisUnit`).
  const y = useMemo(
    () =>
      yScale(
        shown.map((d) => d.points),
        domain,
        3,
        { log: layout.log, min: layout.min, max: layout.max, whole: isWholeUnit(plan.unit), bytesFactor: bytesPerUnit(plan.unit)?.factor ?? null },
      ),
    [shown, domain, layout.log, layout.min, layout.max, plan.unit],
  );
  const axis = bytesPerUnit(plan.unit) ? axisUnit(plan.unit, y.ticks) : null;
  const units = [...new Set(plan.lines.map((l) => (axis && l.unit === plan.unit ? axis : displayUnit(l.unit))).filter(Boolean))];
  const unitText = units.length ? units.join(", ") : (axis ?? displayUnit(plan.unit));
  const { onLayout, onMove } = props;
  const patch = (p: Partial<LaneLayout>) => onLayout?.(plan.key, p);

  let note = plan.note;
  if (plan.dropped > 0) note = [note, `${plan.dropped} more lines not drawn`].filter(Boolean).join("; ");
  const shadowed = plan.lines.reduce((n, l) => n + l.shadowed, 0);
  if (shadowed > 0) note = [note, `one file per host and time span (${shadowed} overlapping series from other files not drawn)`].filter(Boolean).join("; ");
  if (gcPoints) {
    const drawnGc = gcPoints.reduce((n, p) => n + p.t.length, 0);
    const total = props.gcPausesInView;
    if (total !== null && total > drawnGc) note = `longest ${drawnGc} of ${total.toLocaleString("en-US")} pauses in view`;
  }
  const title = plan.title;
  const hasChart = plan.lines.length > 0;

  return (
    <section
      ref={props.sectionRef}
      className={`tl-lane tl-lane--${state}${emphasis ? " tl-lane--highlight" : ""}${layout.collapsed ? " tl-lane--collapsed" : ""}`}
      data-testid="lane"
      data-lane={plan.key}
      data-state={state}
      data-from={drawn ? String(drawn.from) : undefined}
      data-to={drawn ? String(drawn.to) : undefined}
      aria-label={title}
      aria-busy={state === "loading"}
    >
      <header className="tl-lane__head">
        {onLayout && (
          <button
            type="button"
            className="tl-lane__fold"
            aria-expanded={!layout.collapsed}
            aria-label={`${layout.collapsed ? "Expand" : "Collapse"} ${title}`}
            title={layout.collapsed ? "Expand this lane" : "Collapse this lane"}
            onClick={() => patch({ collapsed: !layout.collapsed })}
          >
            {layout.collapsed ? "▸" : "▾"}
          </button>
        )}
        <h3 className="tl-lane__title">
          {title}
          {unitText && <span className="tl-lane__unit"> ({unitText})</span>}
          {layout.log && <span className="tl-lane__unit"> · log</span>}
        </h3>
        {note && <span className="tl-lane__note">{note}</span>}
        {onLayout && hasChart && (
          <span className="tl-lane__tools" role="group" aria-label={`${title} controls`}>
            <button type="button" className={`tl-btn tl-btn--small${layout.log ? " tl-btn--on" : ""}`} aria-pressed={!!layout.log} onClick={() => patch({ log: !layout.log })} title="Logarithmic y axis">
              log
            </button>
            <button type="button" className={`tl-btn tl-btn--small${layout.min != null || layout.max != null ? " tl-btn--on" : ""}`} aria-expanded={editingY} onClick={() => setEditingY((e) => !e)} title="Set the y range of this lane">
              y range
            </button>
            <button type="button" className={`tl-btn tl-btn--small${inspecting ? " tl-btn--on" : ""}`} aria-expanded={inspecting} onClick={() => setInspecting((v) => !v)}>
              Inspect data
            </button>
            {onMove && (
              <>
                <button type="button" className="tl-btn tl-btn--small" disabled={!props.canMoveUp} onClick={() => onMove(plan.key, -1)} aria-label={`Move ${title} up`} title="Move up">
                  ↑
                </button>
                <button type="button" className="tl-btn tl-btn--small" disabled={!props.canMoveDown} onClick={() => onMove(plan.key, 1)} aria-label={`Move ${title} down`} title="Move down">
                  ↓
                </button>
              </>
            )}
          </span>
        )}
        {props.onRemove && (
          <button type="button" className="tl-btn tl-btn--small" onClick={props.onRemove} aria-label={`Remove ${title}`}>
            ×
          </button>
        )}
        <ul className="tl-legend" aria-label={`${title} series`}>
          {plan.lines.map((line, i) => {
            const off = hidden.has(line.key);
            const dim = emphasis && !emphasis.has(line.key);
            return (
              <li key={line.key} className={dim ? "tl-legend__dim" : undefined}>
                <button
                  type="button"
                  className={`tl-legend__item${off ? " tl-legend__item--off" : ""}`}
                  aria-pressed={!off}
                  title={`${line.key}${line.shadowed ? ` · ${line.shadowed} overlapping series from other files not drawn` : ""}\nClick: hide or show · Shift-click: show only this one`}
                  onClick={(e) => patch({ hidden: legendClick([...hidden], line.key, keys, e.shiftKey) })}
                >
                  <span className="tl-swatch" style={{ background: off ? "transparent" : colorOf(i), borderColor: colorOf(i) }} aria-hidden="true" />
                  {line.label}
                </button>
              </li>
            );
          })}
          {plan.zeros > 0 && (
            <li>
              <button type="button" className="tl-legend__more" onClick={() => patch({ zeros: true })} title="Lines whose every value is 0: show them">
                + {plan.zeros} at zero
              </button>
            </li>
          )}
          {layout.zeros && plan.zeros === 0 && (
            <li>
              <button type="button" className="tl-legend__more" onClick={() => patch({ zeros: false })}>
                fold zero lines
              </button>
            </li>
          )}
        </ul>
      </header>
      {editingY && onLayout && !layout.collapsed && <YRangeForm layout={layout} unit={plan.unit} onChange={patch} onClose={() => setEditingY(false)} title={title} />}
      {!layout.collapsed && <LaneBody {...props} shown={shown} scatter={!!gcPoints} layout={layout} y={y} totalPoints={totalPoints} />}
      {inspecting && !layout.collapsed && hasChart && (
        <InspectPanel title={title} shown={shown} domain={domain} timezone={props.timezone} onClose={() => setInspecting(false)} />
      )}
      {state === "loading" && totalPoints > 0 && <span className="tl-lane__badge">updating…</span>}
    </section>
  );
}

/** The lane's y bounds, typed by the user (empty: from the data). */
function YRangeForm(props: { layout: LaneLayout; unit: string; title: string; onChange: (p: Partial<LaneLayout>) => void; onClose: () => void }) {
  const { layout, onChange } = props;
  const read = (text: string): number | null => (text.trim() === "" || !Number.isFinite(Number(text)) ? null : Number(text));
  const unit = displayUnit(props.unit);
  return (
    <form
      className="tl-yrange"
      aria-label={`${props.title} y range`}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const field = (name: string) => { const v = data.get(name); return typeof v === "string" ? v : ""; };
        onChange({ min: read(field("min")), max: read(field("max")) });
      }}
    >
      <label>
        y min{unit && ` (${unit === "B" ? "bytes" : unit})`} <input name="min" type="number" step="any" defaultValue={layout.min ?? ""} placeholder="auto" />
      </label>
      <label>
        y max <input name="max" type="number" step="any" defaultValue={layout.max ?? ""} placeholder="auto" />
      </label>
      <button type="submit" className="tl-btn tl-btn--small">Apply</button>
      <button type="button" className="tl-btn tl-btn--small" onClick={() => { onChange({ min: null, max: null }); props.onClose(); }}>
        Auto
      </button>
    </form>
  );
}

const INSPECT_ROWS = 1000;

/** The numbers behind the lane (visible lines, visible range) as a table, and as text to copy. */
function InspectPanel(props: { title: string; shown: Drawn[]; domain: TimeRange; timezone: string; onClose: () => void }) {
  const { shown, domain, timezone } = props;
  const table = useMemo(() => inspectTable(shown.map((d) => d.points), domain, INSPECT_ROWS), [shown, domain]);
  const [copied, setCopied] = useState<string | null>(null);
  const columns = shown.map((d) => `${d.line.label || d.line.name}${displayUnit(d.line.unit) ? ` (${displayUnit(d.line.unit)})` : ""}`);
  const copy = () => {
    const text = tableToTsv(table, columns);
    const done = () => setCopied(`Copied ${table.times.length.toLocaleString("en-US")} rows`);
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, () => setCopied("Copy failed: select the table instead"));
    else setCopied("No clipboard here: select the table instead");
  };
  return (
    <div className="tl-inspect" role="region" aria-label={`${props.title} data`}>
      <div className="tl-inspect__bar">
        <span>
          {table.total > table.times.length
            ? `First ${table.times.length.toLocaleString("en-US")} of ${table.total.toLocaleString("en-US")} rows in view (zoom in for the rest)`
            : `${table.total.toLocaleString("en-US")} rows in view`}
          {" · times in "}
          {timezone}
        </span>
        <button type="button" className="tl-btn tl-btn--small" onClick={copy}>
          Copy as TSV
        </button>
        <button type="button" className="tl-btn tl-btn--small" onClick={props.onClose}>
          Close
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
      <div className="tl-inspect__scroll" tabIndex={0}>
        <table className="tl-inspect__table">
          <caption className="tl-sr-only">{props.title}: values per sample time</caption>
          <thead>
            <tr>
              <th scope="col">time</th>
              {columns.map((c, i) => (
                <th key={shown[i]!.line.key} scope="col" title={shown[i]!.line.key}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.times.map((t, r) => (
              <tr key={t}>
                <th scope="row">{formatFull(t, timezone)}</th>
                {table.values[r]!.map((v, c) => (
                  <td key={c} title={v === null ? undefined : String(v)}>
                    {v === null ? "" : formatValue(v, shown[c]!.line.unit)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** `shown`: the lines drawn (hidden ones left out; GC pauses: only the longest in view). */
type ChartProps = LaneProps & { shown: Drawn[]; scatter: boolean; layout: LaneLayout; y: YScale };

function LaneBody(props: ChartProps & { totalPoints: number }) {
  const { plan, state, totalPoints } = props;
  if (state === "error") {
    return (
      <div className="tl-lane__msg tl-lane__msg--error" role="alert">
        Could not load this lane: {props.error ?? "error"}{" "}
        <button type="button" className="tl-btn tl-btn--small" onClick={props.onRetry}>
          Retry
        </button>
      </div>
    );
  }
  if (plan.lines.length === 0) {
    if (plan.stored) {
      return <div className="tl-lane__msg">No connection of this lane was seen in this range: its data lies outside it.</div>;
    }
    return <div className="tl-lane__msg">No data. Collect {plan.hint} to fill this lane.</div>;
  }
  if (state === "empty") {
    return <div className="tl-lane__msg">No points in this range for {plan.lines.length} series.</div>;
  }
  if (props.shown.length === 0) {
    return <div className="tl-lane__msg">Every line of this lane is hidden: click one in the legend to show it.</div>;
  }
  if (state === "loading" && totalPoints === 0) {
    return <div className="tl-lane__msg tl-lane__msg--loading" style={{ height: CHART_HEIGHT }}>Loading…</div>;
  }
  return <Chart {...props} />;
}

function Chart(props: ChartProps) {
  const { plan, shown, domain, width, timezone, ticks, emphasis, scatter, onSelect, cursor } = props;
  const wrapRef = useRef<HTMLDivElement>(null);
  const selRef = useRef<HTMLDivElement>(null);
  const plotWidth = plotWidthOf(width);
  const drawn = useMemo(() => shown.map((d) => d.points), [shown]);
  const { y } = props;
  // The cursor's stops: one per pixel column at most.
  const stops = useMemo(() => cursorTimes(drawn, domain, Math.round(plotWidth)), [drawn, domain, plotWidth]);

  // Drag to select a range: the selection box is moved by hand (no re-render while dragging).
  const onMouseDown = (e: ReactMouseEvent<HTMLDivElement>) => {
    if (e.button !== 0 || !wrapRef.current) return;
    const rect = wrapRef.current.getBoundingClientRect();
    const x0 = e.clientX - rect.left - PLOT_LEFT;
    if (x0 < 0 || x0 > plotWidth) return;
    e.preventDefault();
    const sel = selRef.current!;
    const move = (ev: MouseEvent) => {
      const x1 = Math.min(plotWidth, Math.max(0, ev.clientX - rect.left - PLOT_LEFT));
      sel.style.display = "block";
      sel.style.left = `${PLOT_LEFT + Math.min(x0, x1)}px`;
      sel.style.width = `${Math.abs(x1 - x0)}px`;
    };
    const up = (ev: MouseEvent) => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      sel.style.display = "none";
      const x1 = Math.min(plotWidth, Math.max(0, ev.clientX - rect.left - PLOT_LEFT));
      const picked = selectionToRange(x0, x1, plotWidth, domain);
      if (picked) onSelect(picked);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  };

  return (
    <div className="tl-chart" ref={wrapRef} onMouseDown={onMouseDown}>
      <Axes unit={plan.unit} y={y} domain={domain} width={width} ticks={ticks}>
        <Paths shown={shown} y={y} domain={domain} plotWidth={plotWidth} emphasis={emphasis} scatter={scatter} />
      </Axes>
      <div ref={selRef} className="tl-selection" style={{ display: "none", top: PLOT_TOP, height: PLOT_HEIGHT }} />
      {cursor && (
        <LaneCursor cursor={cursor} laneKey={plan.key} stops={stops} shown={shown} domain={domain} plotWidth={plotWidth} timezone={timezone} scatter={scatter} />
      )}
    </div>
  );
}

/** The chart's SVG: grid, axes and tick labels around the plot area (children: the data). */
function Axes(props: {
  unit: string;
  y: YScale;
  domain: TimeRange;
  width: number;
  ticks: TimeTick[];
  children: ReactNode;
}) {
  const { unit, y, domain, width, ticks } = props;
  const plotWidth = plotWidthOf(width);
  const right = PLOT_LEFT + plotWidth;
  const bottom = PLOT_TOP + PLOT_HEIGHT;
  const xs = ticks.map(({ t }) => PLOT_LEFT + timeToX(t, plotWidth, domain));
  const ys = y.ticks.map((v) => yToPx(y, v));
  return (
    <svg className="tl-surface" width={width} height={CHART_HEIGHT} viewBox={`0 0 ${width} ${CHART_HEIGHT}`}>
      {/* The plot area (what a drag selects in, and what the end-to-end tests aim their brush at). */}
      <rect className="tl-plot" x={PLOT_LEFT} y={PLOT_TOP} width={plotWidth} height={PLOT_HEIGHT} fill="none" stroke="none" />
      <g className="tl-grid" stroke="#e6e8eb">
        {ys.map((py, i) => (
          <line key={`h${i}`} x1={PLOT_LEFT} x2={right} y1={py} y2={py} />
        ))}
        {xs.map((px, i) => (
          <line key={`v${i}`} x1={px} x2={px} y1={PLOT_TOP} y2={bottom} />
        ))}
      </g>
      <g className="tl-axis" stroke="#666">
        <line x1={PLOT_LEFT} x2={right} y1={bottom} y2={bottom} />
        <line x1={PLOT_LEFT} x2={PLOT_LEFT} y1={PLOT_TOP} y2={bottom} />
        {xs.map((px, i) => (
          <line key={`xt${i}`} x1={px} x2={px} y1={bottom} y2={bottom + 6} />
        ))}
        {ys.map((py, i) => (
          <line key={`yt${i}`} x1={PLOT_LEFT - 6} x2={PLOT_LEFT} y1={py} y2={py} />
        ))}
      </g>
      <g className="tl-axis__labels" fontSize={10} fill="#555">
        {xs.map((px, i) => (
          <text key={`x${i}`} x={px} y={CHART_HEIGHT} textAnchor="middle">
            {ticks[i]!.label}
          </text>
        ))}
        {ys.map((py, i) => (
          <text key={`y${i}`} x={PLOT_LEFT - 10} y={py + 3} textAnchor="end">
            {formatAxisValue(y.ticks[i]!, unit)}
          </text>
        ))}
      </g>
      {props.children}
    </svg>
  );
}

/** The lines (or GC points) of a lane as plain SVG paths in the plot area. */
function Paths(props: {
  shown: Drawn[];
  y: YScale;
  domain: TimeRange;
  plotWidth: number;
  emphasis: ReadonlySet<string> | null;
  scatter: boolean;
}) {
  const { shown, y, domain, plotWidth, emphasis, scatter } = props;
  const clipId = useId();
  const { sx, sy, paths, maxV } = useMemo(() => {
    const sx = (t: number) => PLOT_LEFT + timeToX(t, plotWidth, domain);
    const sy = (v: number) => yToPx(y, v);
    let maxV = 1;
    if (scatter) for (const d of shown) for (const v of d.points.v) if (v > maxV) maxV = v;
    return { sx, sy, paths: scatter ? [] : shown.map((d) => linePath(d.points, sx, sy)), maxV };
  }, [plotWidth, shown, domain, y, scatter]);
  return (
    <g className="tl-paths">
      <defs>
        <clipPath id={clipId}>
          <rect x={PLOT_LEFT} y={PLOT_TOP - 4} width={plotWidth} height={PLOT_HEIGHT + 8} />
        </clipPath>
      </defs>
      <g clipPath={`url(#${clipId})`}>
        {shown.map(({ line, points: p, color }, i) => {
          const dim = emphasis !== null && !emphasis.has(line.key);
          const strong = emphasis !== null && emphasis.has(line.key);
          if (scatter) {
            return (
              <g key={line.key} fill={color} fillOpacity={dim ? 0.15 : 0.55} stroke={color} strokeOpacity={dim ? 0.2 : 0.9}>
                {p.t.map((t, j) => (
                  <circle key={j} cx={sx(t)} cy={sy(p.v[j]!)} r={2 + 8 * Math.sqrt(Math.max(0, p.v[j]!) / maxV)} />
                ))}
              </g>
            );
          }
          return (
            <g key={line.key} opacity={dim ? 0.2 : 1} data-line={line.key}>
              <path d={paths[i]} fill="none" stroke={color} strokeWidth={strong ? 2.5 : 1.25} strokeLinejoin="round" />
              {p.t.length < DOT_BELOW &&
                p.t.map((t, j) => <circle key={j} cx={sx(t)} cy={sy(p.v[j]!)} r={2.5} fill={color} />)}
            </g>
          );
        })}
      </g>
    </g>
  );
}

/**
 * The shared cursor in one lane: a vertical line at this lane's point nearest to the pointer's
 * time; in the lane the pointer is in, also the one tooltip, with each line's value there (a
 * line with no data at that time is left out: tooltip.ts). Only this small part re-renders on hover.
 */
function LaneCursor(props: {
  cursor: CursorStore<CursorAt>;
  laneKey: string;
  stops: number[];
  shown: Drawn[];
  domain: TimeRange;
  plotWidth: number;
  timezone: string;
  /** GC pauses: a value only at a pause, none carried over from an earlier one. */
  scatter: boolean;
}) {
  const { cursor, laneKey, stops, shown, domain, plotWidth, timezone, scatter } = props;
  const at = useSyncExternalStore(cursor.subscribe, cursor.get);
  if (at === null || !stops.length) return null;
  const t = stops[nearestIndex(stops, at.t)]!;
  const x = timeToX(t, plotWidth, domain);
  if (x < 0 || x > plotWidth) return null;
  const line = <div className="tl-cursor" style={{ left: PLOT_LEFT + x, top: PLOT_TOP, height: PLOT_HEIGHT }} aria-hidden="true" />;
  if (at.lane !== laneKey) return line;
  const flip = x > plotWidth / 2;
  // Within a couple of pixels a point is "at" the cursor.
  const tolerance = (2 * (domain.to - domain.from)) / plotWidth;
  const rows = shown
    .map((d) => ({ d, near: valueNear(d.points, t, tolerance, scatter ? 0 : undefined) }))
    .filter((r) => r.near !== null);
  return (
    <>
      {line}
      <div
        className="tl-tooltip-wrap"
        data-testid="tooltip"
        style={{ left: PLOT_LEFT + x + (flip ? -10 : 10), top: PLOT_TOP + 4, transform: flip ? "translateX(-100%)" : undefined }}
      >
        <div className="tl-tooltip">
          <div className="tl-tooltip__time">{formatFull(t, timezone)}</div>
          {rows.length === 0 ? (
            <div className="tl-tooltip__none">no sample at this time</div>
          ) : (
            <table>
              <tbody>
                {rows.map(({ d, near }) => (
                  <tr key={d.line.key}>
                    <td>
                      <span className="tl-swatch" style={{ background: d.color }} />
                      {d.line.label}
                    </td>
                    <td className="tl-tooltip__value">{formatValue(near!.v, d.line.unit)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </>
  );
}

export const Lane = memo(LaneImpl);
