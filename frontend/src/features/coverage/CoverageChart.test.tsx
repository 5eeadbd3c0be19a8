import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { artifact, renderWithData } from "../../test/fixtures";
import { buildCoverage, CoverageChart, coverageTicks, STATUS_COLORS, tickFormatter } from "./CoverageChart";

afterEach(cleanup);

const base = "/api/incidents/i1";
const T = 1_795_247_400_000;

const data = [
  artifact({ id: "b", kind: "bundle", filename: "web.tar.gz", host: "web-01", time_start_ms: T, time_end_ms: T + 600_000 }),
  artifact({ id: "m1", parent_id: "b", filename: "web/ss.txt", host: "web-01", kind: "ss", time_start_ms: T, time_end_ms: T + 300_000 }),
  artifact({ id: "m2", parent_id: "b", filename: "web/ss2.txt", host: "web-01", kind: "ss", status: "partial", time_start_ms: T + 310_000, time_end_ms: T + 600_000 }),
  artifact({ id: "db", filename: "db/nstat.txt", host: "db-01", kind: "nstat", status: "failed", time_start_ms: T + 3_600_000, time_end_ms: T + 3_900_000 }),
  artifact({ id: "uptime", filename: "gc.log", host: "db-01", kind: "gc_unified", anchored: false, time_start_ms: 780, time_end_ms: 10_674 }),
  artifact({ id: "none", filename: "empty.txt", host: "db-01", time_start_ms: null, time_end_ms: null }),
];

describe("coverage chart", () => {
  it("groups bars by host and kind, leaves out listed bundles, and counts artifacts without a range", () => {
    const coverage = buildCoverage(data);
    expect(coverage.rows).toEqual(["db-01 · nstat", "web-01 · ss"]);
    expect(coverage.bars.map((bar) => bar.artifact.id)).toEqual(["db", "m1", "m2"]);
    expect(coverage.skipped).toBe(1);
    expect(coverage.unanchored).toBe(1);
    expect(coverage.domain![0]).toBeLessThan(T);
    expect(coverage.domain![1]).toBeGreaterThan(T + 3_900_000);
  });

  it("renders a heading, a legend by status, one row per host and kind, one bar per artifact", () => {
    const { container } = renderWithData(<CoverageChart apiBase={base} timezone="UTC" size={{ width: 800 }} />, [
      [[base, "artifacts"], data],
    ]);
    const chart = screen.getByTestId("coverage-chart");
    expect(within(chart).getByRole("heading", { name: "Coverage by host" })).toBeTruthy();
    const legend = screen.getAllByTestId("coverage-legend-item");
    expect(legend.map((item) => [item.dataset.status, item.textContent])).toEqual([
      ["parsed", "parsed (1)"],
      ["partial", "partial (1)"],
      ["failed", "failed (1)"],
    ]);
    const rows = screen.getAllByTestId("coverage-row");
    expect(rows.map((row) => row.textContent?.split(":")[0])).toEqual(["db-01 · nstat", "web-01 · ss"]);
    expect(rows[1]?.textContent).toContain("web/ss.txt");
    expect(screen.getByTestId("coverage-skipped").textContent).toMatch(/1 artifact has no time range/);
    expect(screen.getByTestId("coverage-unanchored").textContent).toMatch(/1 unanchored GC log is not shown/);
    // Recharts drew the bars, coloured by status, with both web-01 bars on the same row.
    const rects = [...container.querySelectorAll(".recharts-bar-rectangle path")];
    expect(rects.map((rect) => rect.getAttribute("fill"))).toEqual([
      STATUS_COLORS.failed,
      STATUS_COLORS.parsed,
      STATUS_COLORS.partial,
    ]);
    const ys = rects.map((rect) => rect.getAttribute("y"));
    expect(ys[1]).toBe(ys[2]);
    expect(ys[0]).not.toBe(ys[1]);
  }, 30_000);

  it("says so when no artifact has a time range", () => {
    renderWithData(<CoverageChart apiBase={base} timezone="UTC" size={{ width: 800 }} />, [
      [[base, "artifacts"], [artifact({ time_start_ms: null, time_end_ms: null })]],
    ]);
    expect(screen.getByText(/No artifact with a time range yet/)).toBeTruthy();
    expect(screen.getByTestId("coverage-skipped").textContent).toMatch(/1 artifact has/);
  });
});

describe("coverage axis ticks", () => {
  const labels = (container: HTMLElement) =>
    [...container.querySelectorAll(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value")].map((tick) => tick.textContent ?? "");

  it("are distinct on a span of seconds", () => {
    const start = Date.UTC(2026, 10, 27, 11, 28, 3, 0);
    const short = [artifact({ id: "s", filename: "ss.txt", host: "web-01", time_start_ms: start, time_end_ms: start + 400 })];
    const { container } = renderWithData(<CoverageChart apiBase={base} timezone="UTC" size={{ width: 800 }} />, [
      [[base, "artifacts"], short],
    ]);
    const ticks = labels(container);
    expect(ticks.length).toBeGreaterThan(1);
    expect(new Set(ticks).size, ticks.join(", ")).toBe(ticks.length);
  });

  it("step by round instants, at most six, written to the step's precision", () => {
    const start = Date.UTC(2026, 10, 27, 11, 28, 3, 0);
    const found = coverageTicks([start - 1000, start + 3000])!;
    expect(found.step).toBe(1000);
    expect(found.ticks).toHaveLength(5);
    const fine = coverageTicks([start, start + 2500])!;
    expect(fine.step).toBe(500);
    const write = tickFormatter(2500, "UTC", fine.step);
    expect(fine.ticks.map(write)).toEqual(["11:28:03.000", "11:28:03.500", "11:28:04.000", "11:28:04.500", "11:28:05.000", "11:28:05.500"]);
    expect(coverageTicks([start, start + 3 * 86_400_000])).toBeNull();
    for (const span of [1, 999, 4000, 90_000, 3_600_000, 86_399_999]) {
      const { ticks, step } = coverageTicks([start, start + span])!;
      expect(ticks.length).toBeLessThanOrEqual(6);
      const texts = ticks.map(tickFormatter(span, "UTC", step));
      expect(new Set(texts).size).toBe(texts.length);
    }
  });
});
