/** One lane: header (title, units, legend, state) and its chart (plain SVG) on the shared axis. */
import { memo, useId, useMemo, useRef, useSyncExternalStore } from "react";
import type { MouseEvent as ReactMouseEvent, ReactNode } from "react";
import { formatDuration } from "../lib/time";
import { cursorTimes, largestPoints, linePath, nearestIndex, valueAt, yScale } from "./data";
import type { CursorStore, LinePoints } from "./data";
import { displayUnit, formatAxisValue, formatFull, formatValue } from "./format";
import type { LanePlan } from "./lanes";
import { selectionToRange, timeToX } from "./range";
import type { TimeRange } from "./types";

export type LaneState = "loading" | "drawn" | "empty" | "error";

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

type YScale = ReturnType<typeof yScale>;

/** A tick of the shared time axis, labelled once for every lane. */
export interface TimeTick {
  t: number;
  label: string;
}

/** Pixel row of value `v` on the y axis `y`. */
function yToPx(y: YScale, v: number): number {
  return PLOT_TOP + PLOT_HEIGHT * (1 - (v - y.lo) / (y.hi - y.lo || 1));
}

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
  /** The shared cursor's time (set by the timeline's one mousemove handler). */
  cursor?: CursorStore;
}

function LaneImpl(props: LaneProps) {
  const { plan, points, state, drawn, domain, emphasis } = props;
  const totalPoints = points.reduce((n, p) => n + p.t.length, 0);
  const units = [...new Set(plan.lines.map((l) => displayUnit(l.unit)).filter(Boolean))];
  const unitText = units.length ? units.join(", ") : displayUnit(plan.unit);
  const gcPoints = useMemo(
    () => (plan.kind === "scatter" ? points.map((p) => largestPoints(p, domain, MAX_GC_POINTS)) : null),
    [plan.kind, points, domain],
  );

  let note = plan.note;
  if (plan.dropped > 0) note = [note, `${plan.dropped} more lines not drawn`].filter(Boolean).join("; ");
  if (gcPoints) {
    const shown = gcPoints.reduce((n, p) => n + p.t.length, 0);
    const total = props.gcPausesInView;
    if (total !== null && total > shown) note = `longest ${shown} of ${total.toLocaleString("en-US")} pauses in view`;
  }

  return (
    <section
      ref={props.sectionRef}
      className={`tl-lane tl-lane--${state}${emphasis ? " tl-lane--highlight" : ""}`}
      data-testid="lane"
      data-lane={plan.key}
      data-state={state}
      data-from={drawn ? String(drawn.from) : undefined}
      data-to={drawn ? String(drawn.to) : undefined}
      aria-label={plan.title}
      aria-busy={state === "loading"}
    >
      <header className="tl-lane__head">
        <h3 className="tl-lane__title">
          {plan.title}
          {unitText && <span className="tl-lane__unit"> ({unitText})</span>}
        </h3>
        {note && <span className="tl-lane__note">{note}</span>}
        <ul className="tl-legend" aria-label={`${plan.title} series`}>
          {plan.lines.map((line, i) => (
            <li key={line.key} className={emphasis && !emphasis.has(line.key) ? "tl-legend__dim" : undefined} title={line.key}>
              <span className="tl-swatch" style={{ background: colorOf(i) }} aria-hidden="true" />
              {line.label}
            </li>
          ))}
        </ul>
        {props.onRemove && (
          <button type="button" className="tl-btn tl-btn--small" onClick={props.onRemove} aria-label={`Remove ${plan.title}`}>
            ×
          </button>
        )}
      </header>
      <LaneBody {...props} gcPoints={gcPoints} totalPoints={totalPoints} />
      {state === "loading" && totalPoints > 0 && <span className="tl-lane__badge">updating…</span>}
    </section>
  );
}

/** GC pauses: only the longest in view (null in line lanes). */
type ChartProps = LaneProps & { gcPoints: LinePoints[] | null };

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
    return <div className="tl-lane__msg">No data. Collect {plan.hint} to fill this lane.</div>;
  }
  if (state === "empty") {
    return <div className="tl-lane__msg">No points in this range for {plan.lines.length} series.</div>;
  }
  if (state === "loading" && totalPoints === 0) {
    return <div className="tl-lane__msg tl-lane__msg--loading" style={{ height: CHART_HEIGHT }}>Loading…</div>;
  }
  return <Chart {...props} />;
}

function Chart(props: ChartProps) {
  const { plan, points, domain, width, timezone, ticks, emphasis, gcPoints, onSelect, cursor } = props;
  const wrapRef = useRef<HTMLDivElement>(null);
  const selRef = useRef<HTMLDivElement>(null);
  const plotWidth = plotWidthOf(width);
  const drawn = gcPoints ?? points;
  const y = useMemo(() => yScale(drawn, domain), [drawn, domain]);
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
        <Paths plan={plan} points={drawn} y={y} domain={domain} plotWidth={plotWidth} emphasis={emphasis} scatter={!!gcPoints} />
      </Axes>
      <div ref={selRef} className="tl-selection" style={{ display: "none", top: PLOT_TOP, height: PLOT_HEIGHT }} />
      {cursor && (
        <LaneCursor
          cursor={cursor}
          stops={stops}
          plan={plan}
          points={points}
          domain={domain}
          plotWidth={plotWidth}
          timezone={timezone}
          scatter={!!gcPoints}
        />
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
  plan: LanePlan;
  points: LinePoints[];
  y: YScale;
  domain: TimeRange;
  plotWidth: number;
  emphasis: ReadonlySet<string> | null;
  scatter: boolean;
}) {
  const { plan, points, y, domain, plotWidth, emphasis, scatter } = props;
  const clipId = useId();
  const { sx, sy, paths, maxV } = useMemo(() => {
    const sx = (t: number) => PLOT_LEFT + timeToX(t, plotWidth, domain);
    const sy = (v: number) => yToPx(y, v);
    let maxV = 1;
    if (scatter) for (const p of points) for (const v of p.v) if (v > maxV) maxV = v;
    return { sx, sy, paths: scatter ? [] : points.map((p) => linePath(p, sx, sy)), maxV };
  }, [plotWidth, points, domain, y, scatter]);
  return (
    <g className="tl-paths">
      <defs>
        <clipPath id={clipId}>
          <rect x={PLOT_LEFT} y={PLOT_TOP - 4} width={plotWidth} height={PLOT_HEIGHT + 8} />
        </clipPath>
      </defs>
      <g clipPath={`url(#${clipId})`}>
        {plan.lines.map((line, i) => {
          const p = points[i];
          if (!p) return null;
          const color = colorOf(i);
          const dim = emphasis !== null && !emphasis.has(line.key);
          const strong = emphasis !== null && emphasis.has(line.key);
          if (scatter) {
            return (
              <g key={line.key} fill={color} fillOpacity={dim ? 0.15 : 0.55} stroke={color} strokeOpacity={dim ? 0.2 : 0.9}>
                {p.t.map((t, j) => (
                  <circle key={j} cx={sx(t)} cy={sy(p.v[j]!)} r={2 + 8 * Math.sqrt(p.v[j]! / maxV)} />
                ))}
              </g>
            );
          }
          return (
            <g key={line.key} opacity={dim ? 0.2 : 1}>
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
 * time, and the tooltip with every line's value there. Only this small part re-renders on hover.
 */
function LaneCursor(props: {
  cursor: CursorStore;
  stops: number[];
  plan: LanePlan;
  points: LinePoints[];
  domain: TimeRange;
  plotWidth: number;
  timezone: string;
  /** GC pauses: a value only at a pause, none carried over from an earlier one. */
  scatter: boolean;
}) {
  const { cursor, stops, plan, points, domain, plotWidth, timezone, scatter } = props;
  const at = useSyncExternalStore(cursor.subscribe, cursor.get);
  if (at === null || !stops.length) return null;
  const t = stops[nearestIndex(stops, at)]!;
  const x = timeToX(t, plotWidth, domain);
  if (x < 0 || x > plotWidth) return null;
  const flip = x > plotWidth / 2;
  // Within a couple of pixels a point is "at" the cursor.
  const tolerance = (2 * (domain.to - domain.from)) / plotWidth;
  return (
    <>
      <div className="tl-cursor" style={{ left: PLOT_LEFT + x, top: PLOT_TOP, height: PLOT_HEIGHT }} aria-hidden="true" />
      <div
        className="tl-tooltip-wrap"
        style={{ left: PLOT_LEFT + x + (flip ? -10 : 10), top: PLOT_TOP + 4, transform: flip ? "translateX(-100%)" : undefined }}
      >
        <div className="tl-tooltip">
          <div className="tl-tooltip__time">{formatFull(t, timezone)}</div>
          <table>
            <tbody>
              {plan.lines.map((line, i) => {
                const near = points[i] ? valueAt(points[i], t) : null;
                const off = near && Math.abs(near.t - t) > tolerance ? near.t - t : 0;
                return (
                  <tr key={line.key} className={off !== 0 ? "tl-tooltip__stale" : undefined}>
                    <td>
                      <span className="tl-swatch" style={{ background: colorOf(i) }} />
                      {line.label}
                    </td>
                    <td className="tl-tooltip__value">
                      {near && (!scatter || off === 0) ? formatValue(near.v, line.unit) : "–"}
                      {near && off !== 0 && !scatter ? ` (${formatDuration(Math.abs(off))} ${off < 0 ? "before" : "after"})` : ""}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}

export const Lane = memo(LaneImpl);
