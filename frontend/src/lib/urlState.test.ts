import { describe, expect, it } from "vitest";
import { clampToWindow, formatViewState, paddedRange, parseInstant, parseViewState, safeNextPath } from "./urlState";

describe("view state in the URL", () => {
  it("reads range, host, finding and evidence", () => {
    expect(parseViewState("?from=1000&to=5000&host=web-01&finding=time_wait_storm&evidence=2")).toEqual({
      range: { from: 1000, to: 5000 },
      host: "web-01",
      finding: "time_wait_storm",
      evidence: 2,
      lanes: [],
    });
  });

  it("ignores a half or reversed range and junk numbers", () => {
    expect(parseViewState("?from=1000").range).toBeNull();
    expect(parseViewState("?from=5000&to=1000").range).toBeNull();
    expect(parseViewState("?from=abc&to=1000").range).toBeNull();
    expect(parseViewState("?finding=x&evidence=-1").evidence).toBeNull();
    expect(parseViewState("?evidence=1").evidence).toBeNull(); // no finding: no evidence
    expect(parseViewState("?host=%20%20").host).toBeNull();
  });

  it("accepts ISO instants in hand-written links", () => {
    expect(parseInstant("2026-11-21T07:50:13Z")).toBe(Date.UTC(2026, 10, 21, 7, 50, 13));
    expect(parseInstant("1795247413914")).toBe(1795247413914);
    expect(parseInstant("")).toBeNull();
  });

  it("writes what it reads, keeping unrelated parameters", () => {
    const state = { range: { from: 1.4, to: 99.6 }, host: "db 1", finding: "gc_pauses", evidence: 0, lanes: [] };
    const params = formatViewState(state, "?tab=artifacts&host=old");
    expect(params.get("tab")).toBe("artifacts");
    expect(params.toString()).toBe("tab=artifacts&from=1&to=100&host=db+1&finding=gc_pauses&evidence=0");
    expect(parseViewState(params)).toEqual({ ...state, range: { from: 1, to: 100 } });
  });

  it("drops cleared fields", () => {
    const params = formatViewState({ range: null, host: null, finding: null, evidence: 3, lanes: [] }, "from=1&to=2&finding=x&lanes=a");
    expect(params.toString()).toBe("");
  });
});

describe("lanes in the URL", () => {
  it("keeps the added lanes in order, once each", () => {
    const view = parseViewState("?lanes=tcp.conn.cwnd&lanes=gc.pause_ms&lanes=tcp.conn.cwnd&lanes=%20");
    expect(view.lanes).toEqual(["tcp.conn.cwnd", "gc.pause_ms"]);
    expect(formatViewState(view).toString()).toBe("lanes=tcp.conn.cwnd&lanes=gc.pause_ms");
  });
});

describe("paddedRange", () => {
  it("pads by a fifth of the length, at least 5 s", () => {
    expect(paddedRange(100_000, 200_000)).toEqual({ from: 80_000, to: 220_000 });
    expect(paddedRange(100_000, 101_000)).toEqual({ from: 95_000, to: 106_000 });
    expect(paddedRange(100_000, null)).toEqual({ from: 95_000, to: 105_000 });
    expect(paddedRange(null, null)).toBeNull();
  });
});

describe("safeNextPath", () => {
  it("follows only our own paths", () => {
    expect(safeNextPath("/incidents/1?from=2")).toBe("/incidents/1?from=2");
    expect(safeNextPath("//evil.example/")).toBe("/");
    expect(safeNextPath("/\\evil.example")).toBe("/");
    expect(safeNextPath("https://evil.example/")).toBe("/");
    expect(safeNextPath("/login?next=/x")).toBe("/");
    expect(safeNextPath(null)).toBe("/");
  });
});

describe("clampToWindow", () => {
  const window = { from: 1000, to: 2000 };
  it("keeps a range inside the window as it is", () => {
    const inside = { from: 1200, to: 1300 };
    expect(clampToWindow(inside, window)).toBe(inside);
  });
  it("cuts a range that sticks out to the part inside", () => {
    expect(clampToWindow({ from: 500, to: 1500 }, window)).toEqual({ from: 1000, to: 1500 });
    expect(clampToWindow({ from: 1900, to: 9000 }, window)).toEqual({ from: 1900, to: 2000 });
  });
  it("shows the whole incident for a range outside it or around it", () => {
    expect(clampToWindow({ from: 3000, to: 4000 }, window)).toBeNull();
    expect(clampToWindow({ from: 0, to: 999 }, window)).toBeNull();
    expect(clampToWindow({ from: 0, to: 9999 }, window)).toBeNull();
  });
  it("leaves a range alone while the incident has no window yet", () => {
    expect(clampToWindow({ from: 1, to: 2 }, null)).toEqual({ from: 1, to: 2 });
    expect(clampToWindow(null, window)).toBeNull();
  });
});
