import { describe, expect, it } from "vitest";
import { cursorTimes, gapThreshold, largestPoints, linePath, mergeLinePoints, nearestIndex, valueAt, yScale } from "./data";
import { batchIds, hostsOf, isAppErrorSeries, LANES, pinKey, planLanes, searchNames, seriesNames, topConnections } from "./lanes";
import type { SeriesMeta } from "./types";

let nextId = 1;
function s(name: string, labels: Record<string, string>, extra: Partial<SeriesMeta> = {}): SeriesMeta {
  return {
    id: nextId++,
    artifact_id: "a",
    name,
    labels,
    unit: "x",
    point_count: 10,
    first_ms: 1000,
    last_ms: 9000,
    min: 0,
    max: 1,
    ...extra,
  };
}

function conn(host: string, local: string, peer: string, acked: number, first = 1000, last = 9000) {
  const labels = { host, local, peer };
  return [
    s("tcp.conn.bytes_acked", labels, { max: acked, first_ms: first, last_ms: last }),
    s("tcp.conn.cwnd", labels, { first_ms: first, last_ms: last }),
    s("tcp.conn.rtt_ms", labels, { first_ms: first, last_ms: last }),
  ];
}

const base = { host: null, range: null, added: [], highlight: null };

/** The TCP states lane of a plan (the application lanes come before it). */
function tcpStates(plan: ReturnType<typeof planLanes>) {
  return plan.lanes.find((l) => l.key === "tcp_states")!;
}

describe("lane assignment", () => {
  it("puts every known series in its lane, with short labels", () => {
    const list = [
      s("tcp.state.estab", { host: "a" }),
      s("tcp.state.time-wait", { host: "a" }),
      s("netstat.TcpRetransSegs", { host: "a" }),
      s("netstat.TcpRetransSegs.total", { host: "a" }),
      s("cpu.user_pct", { host: "a" }),
      s("cpu.core.user_pct", { host: "a", cpu: "1" }),
      s("threadpool.active", { host: "a", pool: "biz" }),
      s("threadpool.max", { host: "a", pool: "biz" }),
      s("gc.pause_ms", { host: "a" }),
      s("tcp.listen.recvq", { host: "a", local: "0.0.0.0:5005", port: "5005" }),
      s("tcp.listen.recvq", { host: "a", local: "0.0.0.0:22", port: "22" }),
    ];
    const plan = planLanes(list, base);
    const lane = (key: string) => plan.lanes.find((l) => l.key === key)!;
    expect(plan.lanes.map((l) => l.key)).toEqual(LANES.map((d) => d.key));
    expect(lane("tcp_states").lines.map((l) => l.label)).toEqual(["estab", "time-wait"]);
    expect(lane("retransmissions").lines.map((l) => l.name)).toEqual(["netstat.TcpRetransSegs"]);
    expect(lane("retransmissions").lines[0]!.label).toBe("RetransSegs");
    expect(lane("cpu").lines.map((l) => l.name)).toEqual(["cpu.user_pct"]);
    expect(lane("thread_pools").lines.map((l) => l.label)).toEqual(["active", "max"]);
    expect(lane("gc_pauses").kind).toBe("scatter");
    // Only the varying label tells the two listeners apart (the same name, the same host).
    expect(lane("listen").lines.map((l) => l.label).sort()).toEqual(["0.0.0.0:22", "0.0.0.0:5005"]);
    expect(lane("memory").lines).toEqual([]);
  });

  it("draws one line for the same series stored by several artifacts", () => {
    const a = s("tcp.state.estab", { host: "a" }, { first_ms: 0, last_ms: 10 });
    const b = s("tcp.state.estab", { host: "a" }, { first_ms: 20, last_ms: 30 });
    const lane = tcpStates(planLanes([a, b], base));
    expect(lane.lines).toHaveLength(1);
    expect(lane.lines[0]!.ids).toEqual([a.id, b.id]);
  });

  it("names the host when lines come from several", () => {
    const plan = planLanes([s("tcp.state.estab", { host: "client" }), s("tcp.state.estab", { host: "server" })], base);
    expect(tcpStates(plan).lines.map((l) => l.label)).toEqual(["@client", "@server"]);
  });

  it("filters by host", () => {
    const list = [s("tcp.state.estab", { host: "client" }), s("tcp.state.estab", { host: "server" })];
    const plan = planLanes(list, { ...base, host: "server" });
    expect(tcpStates(plan).lines).toHaveLength(1);
    expect(tcpStates(plan).lines[0]!.labels.host).toBe("server");
    expect(hostsOf(list)).toEqual(["client", "server"]);
  });

  it("caps lines per lane at the highest peaks and says how many were dropped", () => {
    const list = Array.from({ length: 15 }, (_, i) => s("tcp.state.estab", { host: `h${i}` }, { max: i }));
    const lane = tcpStates(planLanes(list, base));
    expect(lane.lines).toHaveLength(12);
    expect(lane.dropped).toBe(3);
    expect(lane.lines.some((l) => l.labels.host === "h0")).toBe(false);
  });
});

describe("application lanes", () => {
  const app = [
    s("app.checkout_latency.p99_ms", { host: "web-1" }, { unit: "ms", max: 490 }),
    s("app.checkout_latency.rps", { host: "web-1" }, { unit: "per_s", max: 480 }),
    s("app.checkout_latency.errors", { host: "web-1" }, { unit: "count", max: 3 }),
    s("app.log.errors", { host: "web-1", kind: "socket_timeout" }, { unit: "per_s", max: 2 }),
    s("app.log.errors", { host: "web-1", kind: "exception" }, { unit: "per_s", max: 1 }),
    s("app.gateway.latency_p99", { host: "web-1" }, { unit: "ms", max: 310 }),
    s("app.gateway.requests_per_sec", { host: "web-1" }, { unit: "per_s", max: 480 }),
    s("app.jobs.duration_s", { host: "web-1" }, { unit: "s", max: 9 }),
    s("gc.pause_ms", { host: "web-1" }, { unit: "ms" }),
  ];

  it("come first, in the table and on the page", () => {
    expect(LANES.slice(0, 3).map((d) => d.key)).toEqual(["app_latency", "app_errors", "app_other"]);
  });

  it("split the app series by unit and name so each lane has one scale", () => {
    const plan = planLanes(app, base);
    const lane = (key: string) => plan.lanes.find((l) => l.key === key)!;
    // Latency in milliseconds only: a p99 of 490 ms does not share an axis with 480 requests/s.
    expect(lane("app_latency").lines.map((l) => l.label)).toEqual(["checkout_latency.p99_ms", "gateway.latency_p99"]);
    expect(lane("app_latency").unit).toBe("ms");
    // Errors: the log's per-second counts first (named by their kind), then error columns.
    expect(lane("app_errors").lines.map((l) => l.label)).toEqual([
      "log.errors exception",
      "log.errors socket_timeout",
      "checkout_latency.errors",
    ]);
    // The rest: throughput, and a latency written in seconds (it would squash a ms axis).
    expect(lane("app_other").lines.map((l) => l.name)).toEqual([
      "app.checkout_latency.rps",
      "app.gateway.requests_per_sec",
      "app.jobs.duration_s",
    ]);
    expect(lane("gc_pauses").lines.map((l) => l.name)).toEqual(["gc.pause_ms"]);
  });

  it("leave the app lanes empty, with what to collect, when there is no app series", () => {
    const plan = planLanes([s("gc.pause_ms", {}, { unit: "ms" })], base);
    const latency = plan.lanes.find((l) => l.key === "app_latency")!;
    expect(latency.lines).toEqual([]);
    expect(latency.hint).toMatch(/latency export/);
  });

  it("recognise error series by name words, not by unit alone", () => {
    expect(isAppErrorSeries("app.log.errors", "per_s")).toBe(true);
    expect(isAppErrorSeries("app.api.http_5xx", "count")).toBe(true);
    expect(isAppErrorSeries("app.api.rps", "per_s")).toBe(false);
    expect(isAppErrorSeries("app.api.terrors", "count")).toBe(false);
    expect(isAppErrorSeries("threadpool.rejected_per_s", "per_s")).toBe(false);
  });
});

describe("top connections", () => {
  const list = [
    ...conn("srv", "10.0.0.1:80", "10.0.0.2:1", 100),
    ...conn("srv", "10.0.0.1:80", "10.0.0.2:2", 5000),
    ...conn("srv", "10.0.0.1:80", "10.0.0.2:3", 300, 50_000, 60_000),
    ...conn("cli", "10.0.0.2:4", "10.0.0.1:80", 9000),
  ];

  it("ranks by bytes acked", () => {
    const top = topConnections(list, 2, null);
    expect(top.total).toBe(4);
    expect([...top.keys]).toEqual(["cli|10.0.0.2:4|10.0.0.1:80", "srv|10.0.0.1:80|10.0.0.2:2"]);
  });

  it("ranks only the connections seen in the visible range", () => {
    const top = topConnections(list, 1, { from: 55_000, to: 56_000 });
    expect(top.total).toBe(1);
    expect([...top.keys]).toEqual(["srv|10.0.0.1:80|10.0.0.2:3"]);
  });

  it("tells a lane with no connection in the range from one never captured", () => {
    const plan = planLanes(list, { ...base, range: { from: 900_000_000, to: 900_001_000 } });
    const cwnd = plan.lanes.find((l) => l.key === "conn_cwnd")!;
    expect(cwnd.lines).toEqual([]);
    expect(cwnd.stored).toBe(true);
    expect(plan.lanes.find((l) => l.key === "memory")!.stored).toBe(false);
  });

  it("fills the per-connection lanes with the top N only", () => {
    const plan = planLanes(list, { ...base, topConnections: 2 });
    const cwnd = plan.lanes.find((l) => l.key === "conn_cwnd")!;
    expect(cwnd.lines).toHaveLength(2);
    expect(cwnd.note).toBe("top 2 of 4 connections by bytes acked");
    expect(cwnd.lines.map((l) => l.label)).toEqual(["10.0.0.2:4 → 10.0.0.1:80 @cli", "10.0.0.1:80 → 10.0.0.2:2 @srv"]);
  });

  it("draws a picked connection beside the busiest ones and counts the server's total", () => {
    const plan = planLanes(list, {
      ...base,
      topConnections: 1,
      pinned: new Set([pinKey({ local: "10.0.0.1:80", peer: "10.0.0.2:1" })]),
      connectionsTotal: 7000,
    });
    const cwnd = plan.lanes.find((l) => l.key === "conn_cwnd")!;
    expect(cwnd.lines.map((l) => l.label)).toEqual(["10.0.0.2:4 → 10.0.0.1:80 @cli", "10.0.0.1:80 → 10.0.0.2:1 @srv"]);
    expect(cwnd.note).toBe("top 1 of 7,000 connections by bytes acked + 1 picked");
    expect(plan.connections).toEqual({ shown: 2, total: 7000 });
  });

  it("pins nothing that is not listed", () => {
    const top = topConnections(list, 1, null, new Set(["10.9.9.9:1|10.9.9.9:2"]));
    expect(top.keys.size).toBe(1);
    expect(top.pinned).toBe(0);
  });
});

describe("added series and highlight", () => {
  const list = [
    s("tcp.state.time-wait", { host: "server" }),
    s("tcp.state.estab", { host: "server" }),
    s("netstat.TcpExtTW", { host: "server" }),
  ];

  it("adds a lane per picked name or prefix", () => {
    const plan = planLanes(list, { ...base, added: ["netstat.TcpExtTW", "tcp.state.*"] });
    const added = plan.lanes.filter((l) => l.added);
    expect(added.map((l) => l.key)).toEqual(["added:netstat.TcpExtTW", "added:tcp.state.*"]);
    expect(added[1]!.lines).toHaveLength(2);
  });

  it("finds the lane of the highlighted series", () => {
    const highlight = { series: "tcp.state.time-wait", labels: { host: "server" }, from_ms: 1, to_ms: 2 };
    const plan = planLanes(list, { ...base, highlight });
    expect(plan.highlightLane).toBe("tcp_states");
  });

  it("adds an evidence lane when no lane draws the highlighted series", () => {
    const highlight = { series: "netstat.TcpExtTW", labels: {}, from_ms: null, to_ms: null };
    const plan = planLanes(list, { ...base, highlight });
    expect(plan.highlightLane).toBe("highlight:netstat.TcpExtTW");
    expect(plan.lanes.at(-1)!.title).toBe("Evidence: netstat.TcpExtTW");
  });

  it("searches names for the picker", () => {
    const names = seriesNames([...list, s("tcp.state.estab", { host: "client" })]);
    expect(names.find((n) => n.name === "tcp.state.estab")!.count).toBe(2);
    expect(searchNames(names, "state wait").map((n) => n.name)).toEqual(["tcp.state.time-wait"]);
    expect(searchNames(names, "tcp.state*").map((n) => n.name)).toEqual(["tcp.state.estab", "tcp.state.time-wait"]);
  });
});

describe("batching and points", () => {
  it("splits ids into requests of bounded size without repeating any", () => {
    const list = Array.from({ length: 7 }, (_, i) => s("tcp.state.estab", { host: `h${i}` }));
    const plan = planLanes(list, base);
    expect(batchIds(plan.lanes, 3).map((b) => b.length)).toEqual([3, 3, 1]);
  });

  it("merges a line's parts in time order", () => {
    const merged = mergeLinePoints([{ t: [5, 7], v: [50, 70] }, { t: [1, 6], v: [10, 60] }, { t: [], v: [] }]);
    expect(merged).toEqual({ t: [1, 5, 6, 7], v: [10, 50, 60, 70] });
  });

  it("reads a line's value at a time and the cursor's nearest stop", () => {
    const p = { t: [10, 20, 30], v: [1, 2, 3] };
    expect(valueAt(p, 25)).toEqual({ t: 20, v: 2 });
    expect(valueAt(p, 5)).toEqual({ t: 10, v: 1 });
    expect(valueAt({ t: [], v: [] }, 5)).toBeNull();
    const stops = [10, 20, 30];
    expect(nearestIndex(stops, 24)).toBe(1);
    expect(nearestIndex(stops, 26)).toBe(2);
    expect(nearestIndex(stops, 25)).toBe(1); // a tie goes to the earlier stop
    expect(nearestIndex(stops, -100)).toBe(0);
    expect(nearestIndex(stops, 100)).toBe(2);
    expect(nearestIndex([], 5)).toBe(0);
  });

  it("keeps the largest points in view (GC pauses)", () => {
    const p = { t: [1, 2, 3, 4, 5], v: [5, 50, 10, 40, 99] };
    expect(largestPoints(p, { from: 1, to: 4 }, 2)).toEqual({ t: [2, 4], v: [50, 40] });
    expect(largestPoints(p, null, 10)).toEqual({ t: [5, 2, 4, 3, 1], v: [99, 50, 40, 10, 5] });
  });
});

describe("drawing", () => {
  it("gives the cursor at most one stop per pixel column", () => {
    const range = { from: 0, to: 100 };
    const stops = cursorTimes([{ t: [0, 1, 2, 50, 51, 99, 150], v: [] }, { t: [3, 52], v: [] }], range, 10);
    expect(stops).toEqual([0, 50, 99]);
  });

  it("scales the y axis to round ticks from zero", () => {
    expect(yScale([{ t: [1, 2], v: [3, 87] }], null)).toEqual({ lo: 0, hi: 100, ticks: [0, 50, 100], log: false });
    expect(yScale([{ t: [1, 2], v: [-3, 7] }], null).lo).toBeLessThan(0);
    expect(yScale([], null)).toEqual({ lo: 0, hi: 1, ticks: [0, 1], log: false });
  });

  it("breaks a line across a gap in the data", () => {
    const t = [0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 101];
    expect(gapThreshold(t)).toBe(8);
    const d = linePath({ t, v: t.map(() => 1) }, (x) => x, (y) => y);
    expect(d.match(/M/g)).toHaveLength(2);
  });
});
