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

describe("dataFocus on captures far apart", () => {
  const MINUTE = 60_000;

  it("opens on the file with its own clock, not on a listing placed at the upload time", () => {
    // A new user's walk: a 2022 GC log and an ss listing without a timestamp, placed at the
    // upload four years later. The page opened on the whole 4.3 years.
    const gcLog = { from: NOW - 4.3 * YEAR, to: NOW - 4.3 * YEAR + 6 * HOUR };
    const listing = { from: NOW, to: NOW, assumed: true };
    const focus = dataFocus([gcLog, listing]);
    expect(focus).not.toBeNull();
    expect(focus!.inside).toBe(1);
    expect(focus!.range.from).toBeLessThan(gcLog.from);
    expect(focus!.range.to).toBeLessThan(NOW - 4 * YEAR);
    expect(formatApart(focus!.apartMs)).toBe("4 years");
  });

  it("keeps the side with extent when the other one, preferred, is one instant", () => {
    // Without assumed times: a tie goes to the later side, here a single snapshot.
    const capture = { from: NOW - 2 * YEAR, to: NOW - 2 * YEAR + HOUR };
    const snapshot = { from: NOW, to: NOW };
    const focus = dataFocus([capture, snapshot]);
    expect(focus!.inside).toBe(1);
    expect(focus!.range.to).toBeLessThan(NOW - YEAR);
  });

  it("opens on one of several clusters years apart, none of whose gaps alone is 90 % of the span", () => {
    const cluster = (years: number, files: number) =>
      Array.from({ length: files }, (_, i) => ({
        from: NOW - years * YEAR + i * MINUTE,
        to: NOW - years * YEAR + i * MINUTE + HOUR,
      }));
    const spans = [...cluster(12, 1), ...cluster(8, 1), ...cluster(4, 3), ...cluster(0, 1)];
    const focus = dataFocus(spans);
    expect(focus).not.toBeNull();
    expect(focus!.inside).toBe(3); // the cluster with the most files
    expect(focus!.range.from).toBeGreaterThan(NOW - 4 * YEAR - HOUR);
    expect(focus!.range.to).toBeLessThan(NOW - 3 * YEAR);
    // With the evidence in the first cluster, that one.
    const first = cluster(12, 1)[0]!;
    const followed = dataFocus(spans, [[{ from: first.from, to: first.from + MINUTE }]]);
    expect(followed!.inside).toBe(1);
    expect(followed!.range.to).toBeLessThan(NOW - 11 * YEAR);
  });

  it("keeps a month of daily samples together however empty the days between", () => {
    // Short gaps do not count towards the emptiness, however many: one 8-day hole is 21 %.
    const days = Array.from({ length: 30 }, (_, d) => d + (d >= 15 ? 8 : 0));
    const spans = days.map((d) => ({ from: NOW + d * 24 * HOUR, to: NOW + d * 24 * HOUR + 5 * MINUTE }));
    expect(dataFocus(spans)).toBeNull();
  });
});
