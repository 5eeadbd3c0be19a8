import { describe, expect, it } from "vitest";
import { bucketSide, overlayRows } from "./overlay";

describe("overlay rows", () => {
  it("puts both sides on time since their own start", () => {
    const rows = overlayRows(
      { series: [{ t: [1000, 2000, 3000], v: [1, 2, 3] }], start: 1000, end: 3000 },
      { series: [{ t: [50_000, 51_000], v: [10, 20] }], start: 50_000, end: 51_000 },
      "max",
      2,
    );
    expect(rows).toEqual([
      { s: 0, a: 1, b: 10 },
      { s: 1, a: 2, b: 20 },
      { s: 2, a: 3, b: null },
    ]);
  });

  it("takes each series' max in a bucket, then sums or maxes across series", () => {
    const series = [
      { t: [0, 400, 1000], v: [1, 5, 2] },
      { t: [100, 1100], v: [10, 20] },
    ];
    expect(bucketSide(series, 0, 1000, 2, "sum")).toEqual([15, 22]);
    expect(bucketSide(series, 0, 1000, 2, "max")).toEqual([10, 20]);
    // Outside the range, and not finite: left out.
    expect(bucketSide([{ t: [-5, 500, 9000], v: [1, Number.NaN, 3] }], 0, 1000, 2, "max")).toEqual([null, null]);
  });
});
