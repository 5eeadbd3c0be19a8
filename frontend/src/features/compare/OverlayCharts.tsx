import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Schemas } from "../../api/client";
import { readGet } from "../../api/reads";
import { incidentBase } from "../../api/queries";
import type { CompareSide } from "../../api/types";
import { ErrorMessage, Loading } from "../../components/States";
import { formatAxisValue, formatValue } from "../../timeline/format";
import { OVERLAYS, overlayRows, type OverlayDef, type SidePoints } from "./overlay";

type Timeline = Schemas["Timeline"];

const COLORS = { a: "#b3261e", b: "#1f5fae" };
const NAMES = OVERLAYS.flatMap((overlay) => overlay.match);

/** One side's points of every compared lane, over the side's range (the timeline data API). */
function useSide(side: CompareSide) {
  return useQuery<Timeline>({
    queryKey: [incidentBase(side.incident_id), "timeline", "compare", side.from_ms, side.to_ms],
    queryFn: ({ signal }) =>
      readGet(incidentBase(side.incident_id), "/timeline", {
        query: { series: NAMES, from: side.from_ms?.toString(), to: side.to_ms?.toString(), max_points: 400 },
        signal,
      }),
    enabled: side.from_ms !== null && side.to_ms !== null,
    staleTime: 60_000,
  });
}

function linesOf(timeline: Timeline | undefined, overlay: OverlayDef): SidePoints[] {
  return (timeline?.series ?? []).filter((s) => overlay.match.includes(s.name)).map((s) => ({ t: s.t, v: s.v }));
}

/** Lanes of A and B overlaid on time since each one's start. */
export function OverlayCharts({ a, b }: { a: CompareSide; b: CompareSide }) {
  const left = useSide(a);
  const right = useSide(b);
  const charts = useMemo(() => {
    if (!left.data || !right.data || a.from_ms === null || a.to_ms === null || b.from_ms === null || b.to_ms === null) return [];
    return OVERLAYS.map((overlay) => ({
      overlay,
      rows: overlayRows(
        { series: linesOf(left.data, overlay), start: a.from_ms!, end: a.to_ms! },
        { series: linesOf(right.data, overlay), start: b.from_ms!, end: b.to_ms! },
        overlay.combine,
      ),
    })).filter((chart) => chart.rows.length > 0);
  }, [left.data, right.data, a.from_ms, a.to_ms, b.from_ms, b.to_ms]);

  if (a.from_ms === null || b.from_ms === null) return <p className="muted">One side has no data on the clock yet: nothing to overlay.</p>;
  if (left.isError) return <ErrorMessage error={left.error} title="A's timeline" />;
  if (right.isError) return <ErrorMessage error={right.error} title="B's timeline" />;
  if (!left.data || !right.data) return <Loading label="Loading both timelines…" />;
  if (charts.length === 0) return <p className="muted">Neither side has series these charts compare.</p>;
  return (
    <div className="overlay-grid">
      {charts.map(({ overlay, rows }) => (
        <figure key={overlay.key} className="overlay-chart" data-testid="overlay" data-overlay={overlay.key}>
          <figcaption>
            {overlay.title} <span className="muted small">({overlay.unit}, by seconds since each start)</span>
          </figcaption>
          <ResponsiveContainer width="100%" height={180}>
            <LineChart data={rows} margin={{ top: 4, right: 12, bottom: 4, left: 4 }} syncId="compare" syncMethod="value">
              <CartesianGrid strokeDasharray="3 3" stroke="#dde3ea" />
              <XAxis dataKey="s" type="number" domain={["dataMin", "dataMax"]} tickFormatter={(s: number) => `${Math.round(s)} s`} />
              <YAxis width={64} tickFormatter={(v: number) => formatAxisValue(v, overlay.unit)} />
              <Tooltip
                labelFormatter={(s) => `${Number(s).toFixed(1)} s after start`}
                formatter={(value, name) => [formatValue(Number(value), overlay.unit), name === "a" ? "A (before)" : "B (after)"]}
              />
              <Legend formatter={(name: string) => (name === "a" ? `A: ${a.title}` : `B: ${b.title}`)} />
              <Line dataKey="a" stroke={COLORS.a} dot={false} isAnimationActive={false} connectNulls strokeWidth={1.5} />
              <Line dataKey="b" stroke={COLORS.b} dot={false} isAnimationActive={false} connectNulls strokeWidth={1.5} />
            </LineChart>
          </ResponsiveContainer>
        </figure>
      ))}
    </div>
  );
}
