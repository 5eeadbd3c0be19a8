import { describe, expect, it } from "vitest";
import { evidenceRange, paddedEvidenceRange, typicalInterval } from "./evidenceRange";
import type { SeriesHighlight, SeriesMeta } from "./types";

const MIN = 60_000;
const T0 = Date.UTC(2024, 2, 5, 8, 0, 0);

function series(name: string, host: string, first: number, step: number, count: number, id = 1): SeriesMeta {
  return {
    id,
    artifact_id: "a",
    name,
    labels: { host },
    first_ms: first,
    last_ms: first + step * (count - 1),
    point_count: count,
    min: 0,
    max: 1,
    unit: "bytes",
  };
}

function instant(name: string | null, host: string, at: number, to = at): SeriesHighlight {
  return { series: name, labels: { host }, from_ms: at, to_ms: to };
}

describe("evidenceRange", () => {
  it("pads an instant on a 20-min nmon capture by 3 samples each side, not 5 s", () => {
    const nmon = [
      series("mem_available_bytes", "aix01", T0, 20 * MIN, 30),
      series("cpu_busy_percent", "aix01", T0, 20 * MIN, 30, 2),
    ];
    const at = T0 + 43 * MIN + 57_000;
    const range = evidenceRange(instant("mem_available_bytes", "aix01", at), nmon)!;
    expect(range).toEqual({ from: at - 60 * MIN, to: at + 60 * MIN });
    // At least a few points of a lane fall inside it, not one lone dot.
    expect((range.to - range.from) / (20 * MIN)).toBeGreaterThanOrEqual(6);
  });

  it("does not zoom out a dense GC log to 10 s around one pause", () => {
    const gc = [series("jvm_gc_pause_ms", "app01", T0, 150, 400)];
    const at = T0 + 30_000;
    const range = evidenceRange(instant("jvm_gc_pause_ms", "app01", at), gc)!;
    expect(range.to - range.from).toBeLessThan(5000);
    expect(range).toEqual({ from: at - 500, to: at + 500 }); // the timeline's 1 s minimum
  });

  it("uses the pace of the incident's data around the instant when the evidence names no series", () => {
    const list = [
      series("cpu_busy_percent", "aix01", T0, 20 * MIN, 30),
      series("cpu_busy_percent", "web01", T0, 1000, 100, 2), // another host
      series("disk_busy_percent", "aix01", T0 + 30 * 24 * 60 * MIN, 1000, 100, 3), // not near
    ];
    expect(typicalInterval(list, instant(null, "aix01", T0 + 60 * MIN), T0 + 60 * MIN)).toBe(20 * MIN);
  });

  it("keeps the former pad when nothing tells the pace, and a fifth of a long span", () => {
    expect(evidenceRange(instant("x", "h", 100_000), undefined)).toEqual({ from: 95_000, to: 105_000 });
    expect(evidenceRange(instant("x", "h", 100_000), [])).toEqual({ from: 95_000, to: 105_000 });
    expect(paddedEvidenceRange(0, 10 * 3_600_000, 60_000)).toEqual({ from: -2 * 3_600_000, to: 12 * 3_600_000 });
    expect(paddedEvidenceRange(null, null, 1000)).toBeNull();
  });
});

describe("paddedEvidenceRange held to the incident's window", () => {
  it("pads by at most an eighth of the window, so a sparse series' mean step cannot swallow it", () => {
    // A counter listed 3 times over a 60 s incident: a mean step of 30 s, 3 steps = 90 s.
    const range = paddedEvidenceRange(10_000, 10_000, 30_000, 60_000)!;
    expect(range).toEqual({ from: 2_500, to: 17_500 });
    // Without the window, the pace alone.
    expect(paddedEvidenceRange(10_000, 10_000, 30_000)).toEqual({ from: -80_000, to: 100_000 });
    // A 10 h AIX capture at 20 min: 3 intervals (60 min) are within an eighth (75 min).
    const aix = paddedEvidenceRange(0, 0, 1_200_000, 36_000_000)!;
    expect(aix).toEqual({ from: -3_600_000, to: 3_600_000 });
  });
});
