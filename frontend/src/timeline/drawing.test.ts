/** The timeline's pure modules: sources per line, zero folding, legend, layout, tooltip, inspect, events, status, scales. */
import { describe, expect, it } from "vitest";
import { linePath, linePoints, yFraction, yScale } from "./data";
import type { LinePoints } from "./data";
import { stripMarkers } from "./events";
import { inspectTable, tableToTsv } from "./inspect";
import { foldZeroLines, oneSourcePerSpan, planLanes } from "./lanes";
import { EMPTY_LAYOUT, formatLayout, moveLane, orderLanes, parseLayout, patchLane } from "./layout";
import { legendClick, liveHidden } from "./legend";
import { laneStatus } from "./status";
import { valueNear } from "./tooltip";
import type { EventKindSummary, EventRead, SeriesMeta, TimelineSeries } from "./types";

let nextId = 1000;
function meta(name: string, artifact: string, extra: Partial<SeriesMeta> = {}): SeriesMeta {
  return {
    id: nextId++,
    artifact_id: artifact,
    name,
    labels: { host: "server" },
    unit: "bytes",
    point_count: 60,
    first_ms: 0,
    last_ms: 60_000,
    min: 0,
    max: 1,
    ...extra,
  };
}
const base = { host: null, range: null, added: [], highlight: null };

/** Samples every `step` ms from `start`, valued by `f`. */
function samples(start: number, step: number, n: number, f: (i: number) => number): LinePoints {
  return { t: Array.from({ length: n }, (_, i) => start + i * step), v: Array.from({ length: n }, (_, i) => f(i)) };
}
function stored(id: number, p: LinePoints): TimelineSeries {
  return { id, name: "", labels: {}, unit: "", level: 0, points_in_range: p.t.length, t: p.t, v: p.v } as unknown as TimelineSeries;
}

describe("one source per line (wrong drawing 1: the Recv-Q sawtooth)", () => {
  it("draws the richest of two overlapping artifacts, not both interleaved", () => {
    // ss -lnt wrote 0 every second; ss -tinm the connections' sum, 10 ms later each time.
    const listener = meta("tcp.connections.recvq.bytes", "ss-lnt", { point_count: 60, max: 0 });
    const conns = meta("tcp.connections.recvq.bytes", "ss-tinm", { point_count: 60, max: 348, first_ms: 10, last_ms: 60_010 });
    const lane = planLanes([listener, conns], base).lanes.find((l) => l.key === "queues")!;
    expect(lane.lines).toHaveLength(1);
    expect(lane.lines[0]!.ids).toEqual([conns.id]);
    expect(lane.lines[0]!.shadowed).toBe(1);
    // and drawn, the line never drops to 0 between two 348s
    const byId = new Map([
      [listener.id, stored(listener.id, samples(0, 1000, 60, () => 0))],
      [conns.id, stored(conns.id, samples(10, 1000, 60, () => 348))],
    ]);
    const [drawn] = linePoints(lane.lines, byId);
    expect(new Set(drawn!.v)).toEqual(new Set([348]));
  });

  it("joins sources one after the other (rotated logs, consecutive captures)", () => {
    const a = meta("gc.pause_ms", "gc.log.0", { first_ms: 0, last_ms: 100 });
    const b = meta("gc.pause_ms", "gc.log.1", { first_ms: 200, last_ms: 300 });
    expect(oneSourcePerSpan([b, a]).drawn.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("breaks ties by the highest peak, then the artifact, as the detectors do", () => {
    const low = meta("x", "a", { max: 1 });
    const high = meta("x", "b", { max: 5 });
    expect(oneSourcePerSpan([low, high]).drawn).toEqual([high]);
    const c = meta("x", "c");
    const d = meta("x", "d");
    expect(oneSourcePerSpan([d, c]).drawn).toEqual([d]);
  });
});

describe("wrong drawing 2: the packets lane with nstat and netstat -s", () => {
  it("draws one continuous counter per host, never a gap from interleaving", () => {
    const nstat = meta("netstat.TcpInSegs", "nstat.txt", { unit: "per_s", point_count: 60, max: 900 });
    const netstat = meta("netstat.TcpInSegs", "netstat-s.txt", { unit: "per_s", point_count: 59, max: 905, first_ms: 12, last_ms: 59_012 });
    const lane = planLanes([nstat, netstat], base).lanes.find((l) => l.key === "net_packets")!;
    expect(lane.lines).toHaveLength(1);
    expect(lane.lines[0]!.ids).toEqual([nstat.id]);
    const byId = new Map([
      [nstat.id, stored(nstat.id, samples(0, 1000, 60, (i) => 800 + i))],
      [netstat.id, stored(netstat.id, samples(12, 1000, 59, (i) => 800 + i))],
    ]);
    const [p] = linePoints(lane.lines, byId);
    const path = linePath(p!, (t) => t / 100, (v) => v);
    expect(path.match(/M/g)).toHaveLength(1); // one stroke: no step taken for a gap
  });
});

describe("wrong drawing 3: event counts count what the label says", () => {
  const visible = { from: 0, to: 100_000 };
  const pauses = samples(0, 100, 818, (i) => 1 + (i % 50));
  const exhausted: EventRead[] = Array.from({ length: 19 }, (_, i) => ({
    id: i,
    kind: "gc_to_space_exhausted",
    time_ms: 1000 * i,
    duration_ms: null,
    host: "server",
    attrs: {},
    artifact_id: "gc",
  })) as unknown as EventRead[];
  const kinds = [
    { kind: "gc_pause", count: 818 },
    { kind: "gc_to_space_exhausted", count: 19 },
  ] as EventKindSummary[];

  it("GC pauses count pauses, to-space-exhausted events their own entry", () => {
    const { entries } = stripMarkers({
      visible,
      gc: [{ points: pauses, name: "gc.pause_ms", label: "" }],
      overflows: [],
      events: exhausted,
      kinds,
      annotations: [],
      host: null,
      maxMarkers: 200,
    });
    expect(entries.map((e) => e.label)).toEqual(["GC pauses: longest 200 of 818 shown", "GC to-space exhausted: 19"]);
  });

  it("counts listen overflows by the samples that had some, in view only", () => {
    const rates = { t: [10, 20, 30, 200_000], v: [0, 3, 2, 9] };
    const { entries } = stripMarkers({
      visible,
      gc: [],
      overflows: [{ points: rates, name: "netstat.TcpExtListenOverflows", label: "" }],
      events: [],
      kinds: [],
      annotations: [],
      host: null,
      maxMarkers: 200,
    });
    expect(entries.map((e) => e.label)).toEqual(["samples with listen overflows: 2"]);
  });
});

describe("flat-zero lines", () => {
  it("keeps at most a few and counts the rest", () => {
    const lines = [{ peak: 5, low: 0 }, ...Array.from({ length: 12 }, () => ({ peak: 0, low: 0 }))];
    const folded = foldZeroLines(lines, 3);
    expect(folded.lines).toHaveLength(4);
    expect(folded.folded).toBe(9);
  });

  it("folds in the plan unless the lane is unfolded", () => {
    const list = ["TcpRetransSegs", "TcpExtTCPTimeouts", "TcpExtTCPLostRetransmit", "TcpExtTCPSynRetrans", "TcpExtTCPFastRetrans"].map((c) =>
      meta(`netstat.${c}`, "nstat", { unit: "per_s", max: 0, min: 0 }),
    );
    const lane = (o = {}) => planLanes(list, { ...base, ...o }).lanes.find((l) => l.key === "retransmissions")!;
    expect(lane().lines).toHaveLength(3);
    expect(lane().zeros).toBe(2);
    expect(lane({ allZeros: new Set(["retransmissions"]) }).lines).toHaveLength(5);
  });
});

describe("legend", () => {
  const keys = ["a", "b", "c"];
  it("click hides and shows one line", () => {
    expect(legendClick([], "b", keys, false)).toEqual(["b"]);
    expect(legendClick(["b"], "b", keys, false)).toEqual([]);
  });
  it("shift-click isolates, and again shows all", () => {
    expect(legendClick([], "b", keys, true)).toEqual(["a", "c"]);
    expect(legendClick(["a", "c"], "b", keys, true)).toEqual([]);
    expect(legendClick(["a"], "c", keys, true)).toEqual(["a", "b"]);
  });
  it("forgets lines that are gone", () => {
    expect([...liveHidden(["a", "gone"], keys)]).toEqual(["a"]);
  });
});

describe("layout in the URL", () => {
  it("round-trips", () => {
    let l = { ...EMPTY_LAYOUT, added: ["tcp.conn.rtt_ms"], order: ["cpu", "queues"] };
    l = patchLane(l, "cpu", { log: true, min: 1, max: null, hidden: ["cpu.user_pct{host=a}"] });
    l = patchLane(l, "queues", { collapsed: true, zeros: true });
    const text = formatLayout(l)!;
    expect(parseLayout(text)).toEqual(l);
    expect(formatLayout(EMPTY_LAYOUT)).toBeNull();
  });
  it("drops empty lane entries and reads junk as the default", () => {
    const l = patchLane(patchLane(EMPTY_LAYOUT, "cpu", { log: true }), "cpu", { log: false });
    expect(l.lanes).toEqual({});
    expect(parseLayout("{nope")).toEqual(EMPTY_LAYOUT);
    expect(parseLayout('{"l":{"cpu":{"y":["x",5]}},"a":[1,"n"]}')).toEqual({ added: ["n"], order: [], lanes: { cpu: { max: 5 } } });
  });
  it("orders and moves lanes", () => {
    const lanes = [{ key: "a" }, { key: "b" }, { key: "c" }, { key: "new" }];
    expect(orderLanes(lanes, ["c", "a", "b"]).map((l) => l.key)).toEqual(["c", "a", "b", "new"]);
    expect(moveLane(["a", "b", "c"], "c", -1)).toEqual(["a", "c", "b"]);
    expect(moveLane(["a", "b", "c"], "a", -1)).toEqual(["a", "b", "c"]);
  });
});

describe("tooltip values", () => {
  const p = { t: [0, 1000, 2000, 3000, 30_000, 31_000, 32_000, 33_000], v: [1, 2, 3, 4, 5, 6, 7, 8] };
  it("holds a sample until the next one", () => {
    expect(valueNear(p, 1500, 10)).toEqual({ t: 1000, v: 2 });
    expect(valueNear(p, 1995, 10)).toEqual({ t: 2000, v: 3 });
  });
  it("says nothing past the last point, before the first, or in a gap", () => {
    // a connection closed at 33 s says nothing 6 s later
    expect(valueNear(p, 39_000, 10)).toBeNull();
    expect(valueNear(p, -500, 10)).toBeNull();
    expect(valueNear(p, 15_000, 10)).toBeNull();
    expect(valueNear(p, 33_005, 10)).toEqual({ t: 33_000, v: 8 });
  });
  it("gives points only at a point with gap 0 (GC pauses)", () => {
    expect(valueNear(p, 1500, 10, 0)).toBeNull();
    expect(valueNear(p, 1005, 10, 0)).toEqual({ t: 1000, v: 2 });
  });
});

describe("inspect data", () => {
  it("tabulates the lines by time in view and writes TSV", () => {
    const table = inspectTable([{ t: [0, 1000, 5000], v: [1, 2, 3] }, { t: [1000, 2000], v: [7, 8] }], { from: 500, to: 2500 });
    expect(table.times).toEqual([1000, 2000]);
    expect(table.values).toEqual([[2, 7], [null, 8]]);
    expect(tableToTsv(table, ["a (B)", "b\tc"])).toBe(
      "time (UTC)\ta (B)\tb c\n1970-01-01T00:00:01.000Z\t2\t7\n1970-01-01T00:00:02.000Z\t\t8\n",
    );
    expect(inspectTable([{ t: [1, 2, 3], v: [1, 2, 3] }], null, 2)).toMatchObject({ times: [1, 2], total: 3 });
  });
});

describe("lane status", () => {
  const ok = { isError: false, isPlaceholderData: false, data: { range: { from: 0, to: 10 } } };
  const input = { listError: null, listReady: true, width: 800, lines: 2, requests: [ok], visible: { from: 0, to: 10 }, hasPoints: true };
  it("is drawn when every request answered for the visible range", () => {
    expect(laneStatus(input).state).toBe("drawn");
    expect(laneStatus({ ...input, hasPoints: false }).state).toBe("empty");
    expect(laneStatus({ ...input, visible: { from: 0, to: 5 } }).state).toBe("loading");
    expect(laneStatus({ ...input, requests: [{ ...ok, isError: true, error: { message: "boom" } }] })).toMatchObject({ state: "error", error: "boom" });
    expect(laneStatus({ ...input, listError: "down" }).state).toBe("error");
    expect(laneStatus({ ...input, lines: 0 }).state).toBe("empty");
  });
});

describe("y scales", () => {
  it("has integer ticks for bytes, in round IEC steps", () => {
    const y = yScale([{ t: [1], v: [3] }], null, 3, { whole: true, bytesFactor: 1 });
    expect(y.ticks.every((v) => Number.isInteger(v))).toBe(true);
    const big = yScale([{ t: [1], v: [100_000] }], null, 3, { whole: true, bytesFactor: 1 });
    expect(big.ticks.every((v) => v % 1024 === 0)).toBe(true);
  });
  it("is logarithmic on demand, zeros on the floor", () => {
    const y = yScale([{ t: [1, 2, 3], v: [0, 3, 4000] }], null, 3, { log: true });
    expect(y).toMatchObject({ lo: 1, hi: 10_000, log: true });
    expect(y.ticks).toEqual([1, 10, 100, 1000, 10_000]);
    expect(yFraction(y, 0)).toBe(0);
    expect(yFraction(y, 100)).toBeCloseTo(0.5);
  });
  it("takes the bounds the user set", () => {
    const y = yScale([{ t: [1], v: [50] }], null, 3, { min: 10, max: 20 });
    expect([y.lo, y.hi]).toEqual([10, 20]);
  });
});
