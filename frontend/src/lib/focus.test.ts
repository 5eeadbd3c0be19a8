import { describe, expect, it } from "vitest";
import { dataFocus, formatApart } from "./focus";

const HOUR = 3_600_000;
const YEAR = 365.25 * 24 * HOUR;
const NOW = Date.UTC(2026, 10, 21, 7, 0);

describe("dataFocus", () => {
  it("opens on the capture, not on the years between it and an old sample", () => {
    const old = { from: NOW - 12 * YEAR, to: NOW - 12 * YEAR + HOUR };
    const captures = [
      { from: NOW, to: NOW + HOUR },
      { from: NOW + 0.5 * HOUR, to: NOW + 2 * HOUR },
    ];
    const focus = dataFocus([old, ...captures]);
    expect(focus).not.toBeNull();
    expect(focus!.inside).toBe(2);
    expect(focus!.outside).toBe(1);
    expect(focus!.range.from).toBeLessThan(NOW);
    expect(focus!.range.from).toBeGreaterThan(NOW - HOUR);
    expect(focus!.range.to).toBeGreaterThan(NOW + 2 * HOUR);
    expect(formatApart(focus!.apartMs)).toBe("12 years");
  });

  it("keeps captures less than a week apart together, however empty the span between", () => {
    // An incident and its reproduction two days later: 98 % of the span is empty.
    expect(dataFocus([
      { from: NOW, to: NOW + HOUR },
      { from: NOW + 48 * HOUR, to: NOW + 49 * HOUR },
    ])).toBeNull();
  });

  it("keeps the whole incident when the data fills a tenth of it or more", () => {
    // Two captures an 8-hour gap apart over 10 hours: 20 % of the span holds data.
    expect(dataFocus([
      { from: NOW, to: NOW + HOUR },
      { from: NOW + 9 * HOUR, to: NOW + 10 * HOUR },
    ])).toBeNull();
    expect(dataFocus([{ from: NOW, to: NOW + HOUR }])).toBeNull();
    expect(dataFocus([])).toBeNull();
  });

  it("follows the evidence of the findings over the number of files", () => {
    const old = { from: NOW - 2 * YEAR, to: NOW - 2 * YEAR + HOUR };
    const captures = [
      { from: NOW, to: NOW + HOUR },
      { from: NOW, to: NOW + HOUR },
    ];
    const focus = dataFocus([old, ...captures], [[{ from: old.from + 60_000, to: old.from + 120_000 }]]);
    expect(focus!.inside).toBe(1);
    expect(focus!.range.from).toBeLessThan(old.from);
    expect(focus!.range.to).toBeLessThan(NOW);
  });

  it("counts findings, not their evidence items: a tie falls to the side with more files", () => {
    const old = { from: NOW - 2 * YEAR, to: NOW - 2 * YEAR + HOUR };
    const captures = [
      { from: NOW, to: NOW + HOUR },
      { from: NOW, to: NOW + HOUR },
    ];
    const inOld = { from: old.from + 60_000, to: old.from + 120_000 };
    // One finding with four evidence items in the old sample, one with one in the captures.
    const focus = dataFocus([old, ...captures], [[inOld, inOld, inOld, inOld], [{ from: NOW, to: NOW + 1000 }]]);
    expect(focus!.inside).toBe(2);
    expect(focus!.range.from).toBeGreaterThan(NOW - HOUR);
  });

  it("splits again inside the part it keeps, and prefers the later part on a tie", () => {
    const spans = [
      { from: NOW - 10 * YEAR, to: NOW - 10 * YEAR + HOUR },
      { from: NOW - 30 * 24 * HOUR, to: NOW - 30 * 24 * HOUR + HOUR },
      { from: NOW, to: NOW + HOUR },
    ];
    const focus = dataFocus(spans);
    expect(focus!.inside).toBe(1);
    expect(focus!.range.from).toBeGreaterThan(NOW - HOUR);
    expect(formatApart(focus!.apartMs)).toBe("30 days");
  });
});

describe("dataFocus on snapshots", () => {
  const MINUTE = 60_000;
  const at = (minutes: number) => ({ from: NOW + minutes * MINUTE, to: NOW + minutes * MINUTE });

  it("never opens on one instant: a capture and a snapshot taken an hour after it", () => {
    // Before: a tie on evidence and files went to the later part, a 2-second view of the
    // snapshot, the capture hidden.
    expect(dataFocus([{ from: NOW, to: NOW + 5 * MINUTE }, at(65)])).toBeNull();
    expect(dataFocus([at(0), at(0), at(0), at(10), at(10), at(10)])).toBeNull();
    expect(dataFocus([at(0), at(60)], [[{ from: NOW, to: NOW + 60 * MINUTE }]])).toBeNull();
  });

  it("stops splitting before it reaches one instant", () => {
    const old = { from: NOW - 12 * YEAR, to: NOW - 12 * YEAR + HOUR };
    const focus = dataFocus([old, { from: NOW, to: NOW + HOUR }, at(3 * 24 * 60)]);
    expect(focus!.inside).toBe(2);
    expect(focus!.range.from).toBeLessThan(NOW);
    expect(focus!.range.to).toBeGreaterThan(NOW + 3 * 24 * HOUR);
    expect(formatApart(focus!.apartMs)).toBe("12 years");
  });
});
