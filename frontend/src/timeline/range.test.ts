import { describe, expect, it } from "vitest";
import { clampRange, maxPointsFor, MIN_SPAN_MS, panRange, selectionToRange, timeToX, viewableExtent, xToTime, zoomRange } from "./range";

const W = { from: 0, to: 100_000 };

describe("range math", () => {
  it("zooms in around the middle and back out to the window", () => {
    const r = { from: 20_000, to: 60_000 };
    expect(zoomRange(r, 0.5, W)).toEqual({ from: 30_000, to: 50_000 });
    expect(zoomRange(r, 2, W)).toEqual({ from: 0, to: 80_000 });
    expect(zoomRange(r, 10, W)).toEqual(W);
  });

  it("zooms around a chosen instant", () => {
    expect(zoomRange({ from: 0, to: 100_000 }, 0.5, W, 0)).toEqual({ from: 0, to: 50_000 });
  });

  it("never zooms below the minimum span", () => {
    const r = zoomRange({ from: 10_000, to: 10_400 }, 0.1, W);
    expect(r.to - r.from).toBe(MIN_SPAN_MS);
  });

  it("pans without leaving the window", () => {
    expect(panRange({ from: 10_000, to: 30_000 }, -0.5, W)).toEqual({ from: 0, to: 20_000 });
    expect(panRange({ from: 70_000, to: 90_000 }, 0.5, W)).toEqual({ from: 80_000, to: 100_000 });
    expect(panRange({ from: 40_000, to: 60_000 }, 0.5, null)).toEqual({ from: 50_000, to: 70_000 });
  });

  it("clamps reversed and oversized ranges", () => {
    expect(clampRange({ from: 60_000, to: 40_000 }, W)).toEqual({ from: 40_000, to: 60_000 });
    expect(clampRange({ from: -5, to: 200_000 }, W)).toEqual(W);
  });

  it("maps pixels to times and back", () => {
    const r = { from: 1000, to: 2000 };
    expect(xToTime(50, 100, r)).toBe(1500);
    expect(xToTime(-10, 100, r)).toBe(1000);
    expect(timeToX(1750, 100, r)).toBe(75);
  });

  it("turns a drag into a range, ignoring clicks", () => {
    const r = { from: 0, to: 100_000 };
    expect(selectionToRange(80, 20, 100, r)).toEqual({ from: 20_000, to: 80_000 });
    expect(selectionToRange(20, 22, 100, r)).toBeNull();
  });

  it("asks for about one point per pixel, rounded for cache hits", () => {
    expect(maxPointsFor(1201)).toBe(1300);
    expect(maxPointsFor(1250)).toBe(1300);
    expect(maxPointsFor(50)).toBe(200);
    expect(maxPointsFor(10_000)).toBe(3000);
  });
});

describe("viewableExtent", () => {
  it("widens an incident of one instant to a minute around it, and leaves wider ones alone", () => {
    expect(viewableExtent({ from: 1_000_000, to: 1_000_000 })).toEqual({ from: 970_000, to: 1_030_000 });
    expect(viewableExtent({ from: 0, to: 10_000 })).toEqual({ from: -25_000, to: 35_000 });
    const wide = { from: 0, to: 120_000 };
    expect(viewableExtent(wide)).toBe(wide);
    expect(viewableExtent(null)).toBeNull();
  });
});
