import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useArtifacts } from "../../api/queries";
import { ARTIFACT_STATUS_LABELS, type Artifact } from "../../api/types";
import { ErrorMessage, Loading } from "../../components/States";
import { timedArtifacts } from "../../lib/focus";
import { formatDuration, formatInstant, formatNumber, formatRange } from "../../lib/time";

/** Bar colours by parse status (the same hues as the status badges in styles.css). */
export const STATUS_COLORS: Record<Artifact["status"], string> = {
  parsed: "#1e7a45",
  partial: "#c98a00",
  failed: "#b3261e",
  pending: "#4a5d73",
  parsing: "#1f5fae",
};
const STATUS_ORDER: Artifact["status"][] = ["parsed", "partial", "failed", "parsing", "pending"];

export interface CoverageBar {
  /** Row label: `host · kind`. */
  row: string;
  range: [number, number];
  artifact: Artifact;
}

export interface Coverage {
  rows: string[];
  bars: CoverageBar[];
  /** Artifacts (not bundles shown through their files) without a time range. */
  skipped: number;
  /** Unanchored artifacts (GC logs with only JVM uptimes): their "times" are not on the clock. */
  unanchored: number;
  domain: [number, number] | null;
}

const ROW_HEIGHT = 28;
const BAR_SIZE = 16;
const CHART_MARGIN = { top: 4, right: 16, bottom: 4, left: 8 };

/**
 * One bar per artifact with a time range, one row per host and kind, rows sorted by host then kind.
 * A bundle whose files are listed is left out (its range is theirs combined).
 */
export function buildCoverage(artifacts: Artifact[]): Coverage {
  const { timed, skipped, unanchored } = timedArtifacts(artifacts);
  const bars: CoverageBar[] = timed.map(({ artifact, range }) => ({
    row: `${artifact.host ?? "(no host)"} · ${artifact.kind}`,
    range,
    artifact,
  }));
  bars.sort((a, b) => a.row.localeCompare(b.row) || a.range[0] - b.range[0]);
  const rows = [...new Set(bars.map((bar) => bar.row))];
  let domain: [number, number] | null = null;
  if (bars.length > 0) {
    const min = Math.min(...bars.map((bar) => bar.range[0]));
    const max = Math.max(...bars.map((bar) => bar.range[1]));
    const pad = Math.max((max - min) * 0.02, 1000);
    domain = [min - pad, max + pad];
  }
  return { rows, bars, skipped, unanchored, domain };
}

/** Tick steps, ms: round instants of the clock from 1 ms to a week. */
const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  1000, 2000, 5000, 10_000, 15_000, 30_000,
  60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
]; // prettier-ignore
/** At most this many ticks on the axis. */
const MAX_TICKS = 6;

/**
 * Axis ticks for spans under a day: the smallest round step giving at most {@link MAX_TICKS}
 * (so a span of a few seconds does not get half-second ticks that all read the same second);
 * null for longer spans, left to the chart. The step sets how a tick is written: see
 * {@link tickFormatter}.
 */
export function coverageTicks(domain: [number, number]): { ticks: number[]; step: number } | null {
  const span = domain[1] - domain[0];
  if (!(span > 0) || span >= 24 * 3_600_000) return null;
  const step = TICK_STEPS.find((candidate) => span / candidate <= MAX_TICKS) ?? TICK_STEPS[TICK_STEPS.length - 1]!;
  const ticks: number[] = [];
  for (let t = Math.ceil(domain[0] / step) * step; t <= domain[1]; t += step) ticks.push(t);
  return { ticks, step };
}

/** Axis ticks: time of day, with seconds for short spans (milliseconds when ticks are under a
 * second apart), the date for multi-day spans and the date with its year (no time) for spans of
 * months, where ticks fall on year boundaries. */
export function tickFormatter(span: number, timezone: string, step: number | null = null) {
  return (ms: number) => {
    const [date = "", time = ""] = formatInstant(ms, timezone, span < 15 * 60_000 || (step !== null && step < 60_000)).split(" ");
    if (span > 60 * 24 * 3_600_000) return date;
    if (span > 24 * 3_600_000) return `${date.slice(5)} ${time}`;
    if (step !== null && step < 1000) return `${time}.${String(((ms % 1000) + 1000) % 1000).padStart(3, "0")}`;
    return time;
  };
}

/**
 * Which artifacts cover which time span, per host and kind: one horizontal bar per file, coloured
 * by parse status, so overlapping captures and a skewed clock stand out.
 * `size` fixes the chart's size (tests); otherwise it fills its container's width.
 */
export function CoverageChart({
  apiBase,
  timezone,
  size,
}: {
  apiBase: string;
  timezone: string;
  size?: { width: number };
}) {
  const artifacts = useArtifacts(apiBase);
  const coverage = useMemo(() => buildCoverage(artifacts.data ?? []), [artifacts.data]);

  let body;
  if (artifacts.isPending) body = <Loading label="Loading coverage…" />;
  else if (artifacts.isError)
    body = <ErrorMessage error={artifacts.error} title="Coverage" onRetry={() => void artifacts.refetch()} />;
  else if (coverage.bars.length === 0) body = <p className="muted">No artifact with a time range yet.</p>;
  else body = <CoverageBars coverage={coverage} timezone={timezone} size={size} />;

  return (
    <section className="coverage" data-testid="coverage-chart" aria-labelledby="coverage-title">
      <h3 id="coverage-title">Coverage by host</h3>
      {body}
      {coverage.skipped > 0 && (
        <p className="muted small" data-testid="coverage-skipped">
          {formatNumber(coverage.skipped)} {coverage.skipped === 1 ? "artifact has" : "artifacts have"} no time
          range and {coverage.skipped === 1 ? "is" : "are"} not shown.
        </p>
      )}
      {coverage.unanchored > 0 && (
        <p className="muted small" data-testid="coverage-unanchored">
          {formatNumber(coverage.unanchored)} unanchored {coverage.unanchored === 1 ? "GC log is" : "GC logs are"} not
          shown: {coverage.unanchored === 1 ? "its times are" : "their times are"} JVM uptimes, not clock times.
        </p>
      )}
    </section>
  );
}

function CoverageBars({
  coverage,
  timezone,
  size,
}: {
  coverage: Coverage;
  timezone: string;
  size?: { width: number };
}) {
  const { rows, bars, domain } = coverage;
  const span = domain ? domain[1] - domain[0] : 0;
  const ticks = domain ? coverageTicks(domain) : null;
  const height = rows.length * ROW_HEIGHT + 40;
  const labelWidth = Math.min(260, Math.max(90, ...rows.map((row) => row.length * 7.5 + 28)));
  const statusCounts = STATUS_ORDER.map((status) => ({
    status,
    count: bars.filter((bar) => bar.artifact.status === status).length,
  })).filter(({ count }) => count > 0);

  // One data entry per row; the row's k-th bar is `slot{k}`. All slots overlap in the row's band
  // (barGap = -barSize), so every bar on a row sits on the same line.
  const slots = Math.max(...rows.map((row) => bars.filter((bar) => bar.row === row).length));
  const data = rows.map((row) => {
    const entry: Record<string, unknown> & { row: string; bars: CoverageBar[] } = {
      row,
      bars: bars.filter((bar) => bar.row === row),
    };
    entry.bars.forEach((bar, index) => {
      entry[`slot${index}`] = bar.range;
    });
    return entry;
  });

  const chart = (
    <BarChart
      data={data}
      layout="vertical"
      margin={CHART_MARGIN}
      barSize={BAR_SIZE}
      barGap={-BAR_SIZE}
      {...(size ? { width: size.width, height } : {})}
    >
      <CartesianGrid horizontal={false} stroke="#e6e8eb" />
      <XAxis
        type="number"
        domain={domain ?? ["auto", "auto"]}
        scale="time"
        tickFormatter={tickFormatter(span, timezone, ticks?.step ?? null)}
        {...(ticks ? { ticks: ticks.ticks } : {})}
        tick={{ fontSize: 12 }}
        minTickGap={24}
        allowDataOverflow
      />
      <YAxis type="category" dataKey="row" width={labelWidth} tick={{ fontSize: 12 }} interval={0} />
      <Tooltip shared={false} cursor={false} content={<CoverageTooltip timezone={timezone} />} />
      {Array.from({ length: slots }, (_, slot) => (
        <Bar key={slot} dataKey={`slot${slot}`} isAnimationActive={false} minPointSize={2}>
          {data.map((entry) => {
            const color = STATUS_COLORS[entry.bars[slot]?.artifact.status ?? "pending"];
            return <Cell key={entry.row} fill={color} fillOpacity={0.75} stroke={color} />;
          })}
        </Bar>
      ))}
    </BarChart>
  );

  return (
    <>
      <ul className="coverage-legend small" aria-label="Bar colours">
        {statusCounts.map(({ status, count }) => (
          <li key={status} data-testid="coverage-legend-item" data-status={status}>
            <span className="coverage-swatch" style={{ background: STATUS_COLORS[status] }} aria-hidden="true" />
            {ARTIFACT_STATUS_LABELS[status]} ({formatNumber(count)})
          </li>
        ))}
        <li className="muted">times in {timezone}</li>
      </ul>
      <div className="coverage-plot" role="img" aria-label={`Time coverage of ${bars.length} artifacts on ${rows.length} host and kind rows`}>
        {size ? chart : <ResponsiveContainer width="100%" height={height}>{chart}</ResponsiveContainer>}
      </div>
      <ul className="visually-hidden" aria-label="Coverage rows">
        {rows.map((row) => (
          <li key={row} data-testid="coverage-row">
            {row}:{" "}
            {bars
              .filter((bar) => bar.row === row)
              .map((bar) => `${bar.artifact.filename} ${formatRange(bar.range[0], bar.range[1], timezone)}`)
              .join("; ")}
          </li>
        ))}
      </ul>
    </>
  );
}

function CoverageTooltip({
  timezone,
  active,
  payload,
}: {
  timezone: string;
  active?: boolean;
  payload?: ReadonlyArray<{ dataKey?: unknown; payload?: { bars?: CoverageBar[] } }>;
}) {
  const item = payload?.[0];
  const slot = typeof item?.dataKey === "string" ? Number(item.dataKey.replace("slot", "")) : NaN;
  const bar = item?.payload?.bars?.[slot];
  if (!active || !bar) return null;
  const { artifact, range } = bar;
  return (
    <div className="coverage-tooltip">
      <div className="mono">{artifact.filename}</div>
      <div>
        {artifact.kind} · {ARTIFACT_STATUS_LABELS[artifact.status]}
        {artifact.host ? ` · ${artifact.host}` : ""}
      </div>
      <div>{formatRange(range[0], range[1], timezone)}</div>
      <div className="muted">{formatDuration(range[1] - range[0])}</div>
      {artifact.clock_offset_s !== 0 && (
        <div className="muted">clock offset {formatNumber(artifact.clock_offset_s)} s applied</div>
      )}
    </div>
  );
}
