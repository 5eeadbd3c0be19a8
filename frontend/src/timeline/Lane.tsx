/** One lane: header (title, units, legend, state) and its Recharts chart on the shared axis. */
import { memo, useId, useMemo, useRef } from "react";
import type { MouseEvent as ReactMouseEvent } from "react";
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis, usePlotArea } from "recharts";
import type { MouseHandlerDataParam, TooltipContentProps } from "recharts";
import type { NameType, ValueType } from "recharts/types/component/DefaultTooltipContent";
import { cursorTimes, largestPoints, linePath, nearestIndex, valueAt, yScale } from "./data";
import type { LinePoints } from "./data";
import { displayUnit, formatAxisValue, formatDuration, formatFull, formatTick, formatValue } from "./format";
import type { LanePlan } from "./lanes";
import { selectionToRange, timeToX } from "./range";
import type { TimeRange } from "./types";

interface TickProps {
  x: number | string;
  y: number | string;
  payload: { value: unknown };
}

export type LaneState = "loading" | "drawn" | "empty" | "error";

export const SYNC_ID = "rootline-timeline";
/** Pixels left of the plot (y axis) and right of it: every lane and the overlays share them. */
export const PLOT_LEFT = 64;
export const PLOT_RIGHT = 16;
export const CHART_HEIGHT = 132;
/** GC pauses drawn as points in view (the longest). */
export const MAX_GC_POINTS = 200;
/** Below this many points a line also gets dots (single-snapshot connections). */
const DOT_BELOW = 8;

export const COLORS = [
  "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
  "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
  "#393b79", "#637939",
]; // prettier-ignore

export function colorOf(i: number): string {
  return COLORS[i % COLORS.length]!;
}

/** Synchronised cursor: pick this chart's point nearest in time to the other chart's. */
function syncByTime(ticks: ReadonlyArray<{ value: unknown }>, data: MouseHandlerDataParam): number {
  const t = Number(data.activeLabel);
  return Number.isFinite(t) ? nearestIndex(ticks, t) : 0;
}

export interface LaneProps {
  plan: LanePlan;
  points: LinePoints[];
  state: LaneState;
  /** Range the points were read for (data-from / data-to). */
  drawn: TimeRange | null;
  /** Visible range: the x domain. */
  domain: TimeRange;
  width: number;
  timezone: string;
  ticks: number[];
  tickStepMs: number;
  /** Keys of lines to emphasise (others dimmed); null = no highlight in this lane. */
  emphasis: ReadonlySet<string> | null;
  /** In the incident's GC-pause count in view, for the lane note. */
  gcPausesInView: number | null;
  error: string | null;
  onRetry: () => void;
  onSelect: (range: TimeRange) => void;
  onRemove?: () => void;
  sectionRef?: (el: HTMLElement | null) => void;
}

function LaneImpl(props: LaneProps) {
  const { plan, points, state, drawn, domain, width, emphasis } = props;
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
    const shown = gcPoints.reduce((n, p) => n + p.length, 0);
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
      {width > 0 && plan.lines.length === 0 && null}
    </section>
  );
}

function LaneBody(props: LaneProps & { gcPoints: { t: number; v: number }[][] | null; totalPoints: number }) {
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
    return <div className="tl-lane__msg">No points in this range{plan.lines.length ? ` for ${plan.lines.length} series` : ""}.</div>;
  }
  if (state === "loading" && totalPoints === 0) {
    return <div className="tl-lane__msg tl-lane__msg--loading" style={{ height: CHART_HEIGHT }}>Loading…</div>;
  }
  return <Chart {...props} />;
}

function Chart(props: LaneProps & { gcPoints: { t: number; v: number }[][] | null }) {
  const { plan, points, domain, width, timezone, ticks, tickStepMs, emphasis, gcPoints, onSelect } = props;
  const wrapRef = useRef<HTMLDivElement>(null);
  const selRef = useRef<HTMLDivElement>(null);
  const plotWidth = Math.max(1, width - PLOT_LEFT - PLOT_RIGHT);

  // GC pauses: only the longest in view, as points sized by duration.
  const drawn = useMemo(
    () => (gcPoints ? gcPoints.map((p) => ({ t: p.map((x) => x.t), v: p.map((x) => x.v) })) : points),
    [points, gcPoints],
  );
  const y = useMemo(() => yScale(drawn, domain), [drawn, domain]);
  // The chart's own data is only the cursor's stops (one per pixel column at most); the lines
  // are drawn by <Paths> from their points, so Recharts never walks lines x rows.
  const rows = useMemo(() => cursorTimes(drawn, domain, Math.round(plotWidth)), [drawn, domain, plotWidth]);

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

  const tooltip = (tp: TooltipContentProps<ValueType, NameType>) => (
    <LaneTooltip {...tp} plan={plan} points={points} timezone={timezone} tolerance={(2 * (domain.to - domain.from)) / plotWidth} />
  );

  return (
    <div className="tl-chart" ref={wrapRef} onMouseDown={onMouseDown}>
      <LineChart
        width={width}
        height={CHART_HEIGHT}
        data={rows}
        syncId={SYNC_ID}
        syncMethod={syncByTime}
        margin={{ top: 6, right: PLOT_RIGHT, bottom: 0, left: 0 }}
      >
        <CartesianGrid
          stroke="#e6e8eb"
          // Our own tick positions: Recharts' default measures every tick label in the DOM.
          verticalCoordinatesGenerator={({ offset }: { offset: { left?: number; width?: number } }) =>
            ticks.map((t) => (offset.left ?? PLOT_LEFT) + timeToX(t, offset.width ?? plotWidth, domain))
          }
          horizontalCoordinatesGenerator={({ offset }: { offset: { top?: number; height?: number } }) =>
            y.ticks.map((v) => (offset.top ?? 0) + (offset.height ?? 0) * (1 - (v - y.lo) / (y.hi - y.lo)))
          }
        />
        <XAxis
          dataKey="t"
          type="number"
          domain={[domain.from, domain.to]}
          allowDataOverflow
          ticks={ticks}
          tick={(p: TickProps) => (
            <text x={Number(p.x)} y={Number(p.y) + 10} textAnchor="middle" fontSize={10} fill="#555">
              {formatTick(Number(p.payload.value), timezone, tickStepMs)}
            </text>
          )}
          height={18}
          interval={0}
        />
        <YAxis
          type="number"
          width={PLOT_LEFT}
          domain={[y.lo, y.hi]}
          allowDataOverflow
          ticks={y.ticks}
          tick={(p: TickProps) => (
            <text x={Number(p.x) - 2} y={Number(p.y) + 3} textAnchor="end" fontSize={10} fill="#555">
              {formatAxisValue(Number(p.payload.value), plan.unit)}
            </text>
          )}
          interval={0}
        />
        <Tooltip
          content={tooltip}
          isAnimationActive={false}
          cursor={{ stroke: "#333", strokeWidth: 1 }}
          allowEscapeViewBox={{ x: false, y: true }}
          wrapperStyle={{ zIndex: 20, pointerEvents: "none" }}
        />
        {/* Invisible: gives the tooltip its cursor stops (walks the rows once, not per line). */}
        <Line dataKey="t" stroke="none" dot={false} activeDot={false} legendType="none" isAnimationActive={false} />
        <Paths lines={plan} points={drawn} y={y} domain={domain} emphasis={emphasis} scatter={!!gcPoints} />
      </LineChart>
      <div ref={selRef} className="tl-selection" style={{ display: "none", top: 6, height: CHART_HEIGHT - 24 }} />
    </div>
  );
}

/** The lines (or GC points) of a lane as plain SVG paths in the chart's plot area. */
function Paths(props: {
  lines: LanePlan;
  points: LinePoints[];
  y: { lo: number; hi: number };
  domain: TimeRange;
  emphasis: ReadonlySet<string> | null;
  scatter: boolean;
}) {
  const { lines, points, y, domain, emphasis, scatter } = props;
  const area = usePlotArea();
  const clipId = useId();
  const paths = useMemo(() => {
    if (!area) return null;
    const sx = (t: number) => area.x + timeToX(t, area.width, domain);
    const sy = (v: number) => area.y + area.height * (1 - (v - y.lo) / (y.hi - y.lo || 1));
    return points.map((p) => ({ d: scatter ? "" : linePath(p, sx, sy), sx, sy, p }));
  }, [area, points, domain, y, scatter]);
  if (!area || !paths) return null;
  const maxV = scatter ? Math.max(1, ...points.flatMap((p) => p.v)) : 1;
  return (
    <g className="tl-paths">
      <defs>
        <clipPath id={clipId}>
          <rect x={area.x} y={area.y - 4} width={area.width} height={area.height + 8} />
        </clipPath>
      </defs>
      <g clipPath={`url(#${clipId})`}>
        {lines.lines.map((line, i) => {
          const path = paths[i];
          if (!path) return null;
          const color = colorOf(i);
          const dim = emphasis !== null && !emphasis.has(line.key);
          const strong = emphasis !== null && emphasis.has(line.key);
          const n = path.p.t.length;
          if (scatter) {
            return (
              <g key={line.key} fill={color} fillOpacity={dim ? 0.15 : 0.55} stroke={color} strokeOpacity={dim ? 0.2 : 0.9}>
                {path.p.t.map((t, j) => (
                  <circle key={j} cx={path.sx(t)} cy={path.sy(path.p.v[j]!)} r={2 + 8 * Math.sqrt(path.p.v[j]! / maxV)} />
                ))}
              </g>
            );
          }
          return (
            <g key={line.key} opacity={dim ? 0.2 : 1}>
              <path d={path.d} fill="none" stroke={color} strokeWidth={strong ? 2.5 : 1.25} strokeLinejoin="round" />
              {n < DOT_BELOW &&
                path.p.t.map((t, j) => <circle key={j} cx={path.sx(t)} cy={path.sy(path.p.v[j]!)} r={2.5} fill={color} />)}
            </g>
          );
        })}
      </g>
    </g>
  );
}

function LaneTooltip(
  props: TooltipContentProps<ValueType, NameType> & { plan: LanePlan; points: LinePoints[]; timezone: string; tolerance: number },
) {
  const { active, label, plan, points, timezone, tolerance } = props;
  if (!active || label === undefined || label === null) return null;
  const t = Number(label);
  if (!Number.isFinite(t)) return null;
  const rows = plan.lines.map((line, i) => {
    const at = points[i] ? valueAt(points[i]!, t) : null;
    return { line, i, at };
  });
  const gc = plan.kind === "scatter";
  return (
    <div className="tl-tooltip">
      <div className="tl-tooltip__time">{formatFull(t, timezone)}</div>
      <table>
        <tbody>
          {rows.map(({ line, i, at }) => {
            // Within a couple of pixels the point is "at" the cursor.
            const off = at && Math.abs(at.t - t) > tolerance ? at.t - t : 0;
            return (
              <tr key={line.key} className={off !== 0 ? "tl-tooltip__stale" : undefined}>
                <td>
                  <span className="tl-swatch" style={{ background: colorOf(i) }} />
                  {line.label}
                </td>
                <td className="tl-tooltip__value">
                  {at && (!gc || off === 0) ? formatValue(at.v, line.unit) : "–"}
                  {at && off !== 0 && !gc ? ` (${off < 0 ? formatDuration(-off) + " before" : formatDuration(off) + " after"})` : ""}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export const Lane = memo(LaneImpl);
