/**
 * What the timeline draws: lane definitions (one declarative table) and the pure planning that
 * turns the incident's series list into lanes of lines (host filter, top-N connections,
 * labels, highlight). No React, no fetch: unit-tested in lanes.test.ts.
 */
import { overlaps } from "./range";
import type { SeriesHighlight, SeriesMeta, TimeRange } from "./types";

export type LaneKind = "line" | "scatter";

export interface LaneDef {
  key: string;
  title: string;
  /** Unit of most of its lines (the y axis); each line still carries its own. */
  unit: string;
  /** Series names; `prefix*` matches a prefix. Order = drawing/legend order. */
  match: string[];
  kind?: LaneKind;
  /** Short names for exact series names, for legends. */
  names?: Record<string, string>;
  /** What to collect when the lane is empty. */
  hint: string;
  /** Narrows `match` by the series' name and unit (several lanes share the `app.*` names). */
  accept?: (name: string, unit: string) => boolean;
}

/** How many connections the per-connection lanes show. */
const TOP_CONNECTIONS = 5;
/** Lines drawn per lane (highest peak first); the header says how many were left out. */
const MAX_LINES = 12;
/** Lines drawn for a series added with the picker (all matching series, highest first). */
const ADDED_MAX_LINES = 10;
/** Flat-zero lines a lane draws before folding the rest into "+ N at zero". */
export const MAX_ZERO_LINES = 3;

/** A lane's series by their short names: the table's keys are what it matches, in order. */
function named(names: Record<string, string>): Pick<LaneDef, "match" | "names"> {
  return { match: Object.keys(names), names };
}

/** `netstat.<counter>` series, named without their TcpExt/Tcp prefix. */
function netstat(counters: string[]): Pick<LaneDef, "match" | "names"> {
  const short = (counter: string) => counter.replace(/^TcpExt(TCP)?/, "").replace(/^Tcp/, "");
  return named(Object.fromEntries(counters.map((c) => [`netstat.${c}`, short(c)])));
}

/** An application series that counts failures (rootline/detectors/symptom.py reads the same words). */
const APP_ERROR_WORD = /(^|[._])(errors?|errs?|failures?|failed|fails?|timeouts?|exceptions?|5xx|rejected|rejections)($|[._])/;
/** Units the application latency lane draws (one y axis: milliseconds only). */
const LATENCY_UNITS = new Set(["ms"]);

export function isAppErrorSeries(name: string, unit: string): boolean {
  return name.startsWith("app.") && (unit === "count" || unit === "per_s") && APP_ERROR_WORD.test(name);
}

export const LANES: LaneDef[] = [
  // The application's own symptom first: what the users saw, then the causes below it.
  {
    key: "app_latency",
    title: "Application latency",
    unit: "ms",
    match: ["app.*"],
    accept: (_name, unit) => LATENCY_UNITS.has(unit),
    hint: "an application latency export (CSV / TSV / JSON lines with a time column, e.g. p99_ms)",
  },
  {
    key: "app_errors",
    title: "Application errors",
    unit: "per_s",
    match: ["app.log.errors", "app.*"],
    accept: isAppErrorSeries,
    hint: "the application's log (exceptions, timeouts) or an errors column in its metrics",
  },
  {
    key: "app_other",
    title: "Application throughput and other numbers",
    unit: "per_s",
    match: ["app.*"],
    hint: "application metrics (rps, qps ...) as CSV / TSV / JSON lines",
  },
  {
    key: "tcp_states",
    title: "TCP states",
    unit: "sockets",
    match: ["tcp.state.*"],
    hint: "ss -s, ss -tan or netstat -nat snapshots",
  },
  {
    key: "queues",
    title: "Send-Q / Recv-Q",
    unit: "bytes",
    ...named({
      "tcp.connections.sendq.bytes": "Send-Q (sum over connections)",
      "tcp.connections.recvq.bytes": "Recv-Q (sum over connections)",
      // The same totals as stored before their rename (artifacts not re-parsed since).
      "tcp.sendq.bytes": "Send-Q (sum over connections)",
      "tcp.recvq.bytes": "Recv-Q (sum over connections)",
      "tcp.conn.sendq.bytes": "Send-Q",
      "tcp.conn.recvq.bytes": "Recv-Q",
    }),
    hint: "ss -tan / ss -tinm snapshots",
  },
  {
    key: "conn_cwnd",
    title: "cwnd (top connections)",
    unit: "segments",
    match: ["tcp.conn.cwnd"],
    hint: "ss -tin snapshots",
  },
  {
    key: "conn_rtt",
    title: "RTT (top connections)",
    unit: "ms",
    match: ["tcp.conn.rtt_ms"],
    hint: "ss -tin snapshots",
  },
  {
    key: "conn_delivery",
    title: "Delivery rate (top connections)",
    unit: "bits/s",
    match: ["tcp.conn.delivery_rate_bps"],
    hint: "ss -tin snapshots",
  },
  {
    key: "listen",
    title: "Listen queues",
    unit: "connections",
    ...named({ "tcp.listen.recvq": "accept queue", "tcp.listen.backlog": "backlog" }),
    hint: "ss -lnt snapshots",
  },
  {
    key: "listen_overflows",
    title: "Listen overflows",
    unit: "per_s",
    ...netstat(["TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPReqQFullDrop"]),
    hint: "nstat or netstat -s snapshots",
  },
  {
    key: "retransmissions",
    title: "Retransmissions",
    unit: "per_s",
    ...netstat([
      "TcpRetransSegs",
      "TcpExtTCPTimeouts",
      "TcpExtTCPLostRetransmit",
      "TcpExtTCPSynRetrans",
      "TcpExtTCPFastRetrans",
    ]),
    hint: "nstat or netstat -s snapshots",
  },
  {
    key: "cpu",
    title: "CPU",
    unit: "%",
    ...named({
      "cpu.user_pct": "user",
      "cpu.sys_pct": "sys",
      "cpu.wait_pct": "iowait",
      "cpu.steal_pct": "steal",
      "cpu.busy_pct": "busy",
    }),
    hint: "an nmon capture (CPU_ALL)",
  },
  {
    key: "run_queue",
    title: "Run queue",
    unit: "processes",
    ...named({ "proc.runqueue": "runnable", "proc.blocked": "blocked" }),
    hint: "an nmon capture (PROC)",
  },
  {
    key: "net_rates",
    title: "Network interface rates",
    unit: "KB/s",
    ...named({ "net.read_kbs": "read", "net.write_kbs": "write" }),
    hint: "an nmon capture (NET)",
  },
  {
    key: "net_packets",
    title: "Network packets",
    unit: "/s",
    ...named({
      "net.packets_in": "packets in",
      "net.packets_out": "packets out",
      "net.errors_in": "errors in",
      "net.errors_out": "errors out",
      "netstat.TcpInSegs": "TCP segments in",
      "netstat.TcpOutSegs": "TCP segments out",
    }),
    hint: "an nmon capture (NETPACKET) or nstat snapshots",
  },
  {
    key: "memory",
    title: "Memory",
    unit: "MB",
    ...named({
      "mem.free_mb": "free",
      "mem.available_mb": "available",
      "mem.cached_mb": "cached",
      "mem.buffers_mb": "buffers",
      "mem.total_mb": "total",
      "mem.swap_free_mb": "swap free",
    }),
    hint: "an nmon capture (MEM)",
  },
  {
    key: "thread_pools",
    title: "Thread pools",
    unit: "threads",
    ...named({
      "threadpool.active": "active",
      "threadpool.max": "max",
      "threadpool.pool_size": "pool size",
      "threadpool.queue": "queue",
      "threadpool.queue_capacity": "queue capacity",
    }),
    hint: "thread-pool metrics (CSV / JSON lines / Prometheus)",
  },
  {
    key: "rejections",
    title: "Rejections",
    unit: "per_s",
    ...named({
      "threadpool.rejected_per_s": "rejected",
      "threadpool.rejected_events": "EXHAUSTED log lines",
    }),
    hint: "thread-pool metrics or application logs",
  },
  {
    key: "gc_pauses",
    title: "GC pauses",
    unit: "ms",
    kind: "scatter",
    ...named({ "gc.pause_ms": "pause" }),
    hint: "a GC log (-Xlog:gc* or -XX:+PrintGCDetails)",
  },
  {
    key: "heap",
    title: "Heap",
    unit: "MB",
    ...named({
      "gc.heap_before_mb": "before GC",
      "gc.heap_after_mb": "after GC",
      "gc.heap_total_mb": "committed",
    }),
    hint: "a GC log",
  },
  {
    key: "jvm_threads",
    title: "JVM threads (thread dumps)",
    unit: "threads",
    match: ["jvm.threads"],
    hint: "jstack thread dumps",
  },
];

/** Does `name` match a pattern (`exact` or `prefix*`)? */
export function matches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** Index of the first pattern `name` matches, or -1. */
function matchIndex(def: LaneDef, name: string): number {
  return def.match.findIndex((p) => matches(p, name));
}

/** Whether the lane takes the series: a pattern matches and its `accept` (if any) agrees. */
function laneTakes(def: LaneDef, name: string, unit: string): boolean {
  return matchIndex(def, name) >= 0 && (!def.accept || def.accept(name, unit));
}

// ---- connections ----

function isConnectionSeries(s: Pick<SeriesMeta, "name">): boolean {
  return s.name.startsWith("tcp.conn.");
}

/** One TCP connection: host + local + peer. */
function connectionKey(labels: Record<string, string>): string {
  return `${labels.host ?? ""}|${labels.local ?? ""}|${labels.peer ?? ""}`;
}

/** Series whose peak ranks a connection. */
const CONNECTION_VOLUME = new Set(["tcp.conn.bytes_acked", "tcp.conn.bytes_received", "tcp.conn.bytes_sent"]);

/**
 * The `n` busiest connections seen in `range`: by the highest peak of bytes_acked,
 * bytes_received or bytes_sent, then by how many points their series hold.
 */
export function topConnections(
  series: readonly SeriesMeta[],
  n: number,
  range: TimeRange | null,
  pinned: ReadonlySet<string> = new Set(),
): { keys: Set<string>; total: number; pinned: number } {
  const ranks = new Map<string, { key: string; score: number; points: number }>();
  for (const s of series) {
    if (!isConnectionSeries(s) || !overlaps(s.first_ms, s.last_ms, range)) continue;
    const key = connectionKey(s.labels);
    let r = ranks.get(key);
    if (!r) {
      r = { key, score: 0, points: 0 };
      ranks.set(key, r);
    }
    r.points += s.point_count;
    if (CONNECTION_VOLUME.has(s.name)) r.score = Math.max(r.score, s.max);
  }
  const list = [...ranks.values()];
  list.sort((a, b) => b.score - a.score || b.points - a.points || a.key.localeCompare(b.key));
  const keys = new Set(list.slice(0, n).map((r) => r.key));
  let added = 0;
  for (const r of list) {
    if (!keys.has(r.key) && pinned.has(pairOf(r.key))) {
      keys.add(r.key);
      added += 1;
    }
  }
  return { keys, total: list.length, pinned: added };
}

/** `local|peer` of a connection key (`host|local|peer`): how a picked connection is named. */
function pairOf(key: string): string {
  return key.slice(key.indexOf("|") + 1);
}

/** The name a picked (pinned) connection is kept under: `local|peer`. */
export function pinKey(c: { local: string; peer: string }): string {
  return `${c.local}|${c.peer}`;
}

// ---- lines ----

// ---- sources ----

/**
 * The series one line draws: one source (artifact) at a time. Series of several artifacts whose
 * spans overlap are the same signal read by two tools (`nstat` and `netstat -s` of one host, a
 * listener listing and a connection listing): interleaved, their samples ~10 ms apart make
 * sawtooths and gaps, so of each group of overlapping spans only the richest is drawn, by the
 * rule the detectors use (`quantities.richest`: most points, then the highest peak, then the
 * artifact). Spans that do not overlap (a rotated log, captures one after the other) join.
 * Returns the series drawn, in time order, and how many were left out.
 */
export function oneSourcePerSpan<T extends Pick<SeriesMeta, "artifact_id" | "first_ms" | "last_ms" | "point_count" | "max">>(
  series: readonly T[],
): { drawn: T[]; shadowed: T[] } {
  if (series.length < 2) return { drawn: [...series], shadowed: [] };
  const byArtifact = new Map<string, { items: T[]; first: number; last: number; points: number; max: number }>();
  for (const s of series) {
    let a = byArtifact.get(s.artifact_id);
    if (!a) byArtifact.set(s.artifact_id, (a = { items: [], first: Infinity, last: -Infinity, points: 0, max: -Infinity }));
    a.items.push(s);
    a.first = Math.min(a.first, s.first_ms);
    a.last = Math.max(a.last, s.last_ms);
    a.points += s.point_count;
    a.max = Math.max(a.max, s.max);
  }
  if (byArtifact.size < 2) return { drawn: [...series], shadowed: [] };
  const sources = [...byArtifact.entries()].sort((x, y) => x[1].first - y[1].first);
  const drawn: T[] = [];
  const shadowed: T[] = [];
  let group: typeof sources = [];
  let groupEnd = -Infinity;
  const flush = () => {
    if (!group.length) return;
    const best = group.reduce((b, c) =>
      c[1].points > b[1].points ||
      (c[1].points === b[1].points && (c[1].max > b[1].max || (c[1].max === b[1].max && c[0] > b[0])))
        ? c
        : b,
    );
    for (const g of group) (g === best ? drawn : shadowed).push(...g[1].items);
    group = [];
  };
  for (const source of sources) {
    if (group.length && source[1].first > groupEnd) {
      flush();
      groupEnd = -Infinity;
    }
    group.push(source);
    groupEnd = Math.max(groupEnd, source[1].last);
  }
  flush();
  return { drawn, shadowed };
}

/** Series with the same name and labels draw one line (one source at a time: oneSourcePerSpan). */
function lineKey(name: string, labels: Record<string, string>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`);
  return `${name}{${parts.join(",")}}`;
}

export interface LinePlan {
  key: string;
  name: string;
  labels: Record<string, string>;
  unit: string;
  /** Stored series drawing this line (one per artifact; overlapping sources: the richest). */
  ids: number[];
  /** Series of the same name and labels from other, overlapping sources: not drawn. */
  shadowed: number;
  label: string;
  peak: number;
  /** Lowest value stored (with `peak` 0: a flat-zero line). */
  low: number;
  points: number;
}

export interface LanePlan {
  key: string;
  title: string;
  unit: string;
  kind: LaneKind;
  lines: LinePlan[];
  /** Lines that matched but were not drawn (over the lane's limit). */
  dropped: number;
  /** Flat-zero lines folded away ("+ N at zero"; 0 when none or shown). */
  zeros: number;
  /** E.g. "top 5 of 285 connections by bytes acked". */
  note: string | null;
  hint: string;
  /** Whether the incident holds series for this lane at all (per-connection lanes draw
   * only the connections seen in the range: none there is not "no data"). */
  stored: boolean;
  /** Added with the series picker (removable). */
  added: boolean;
}

function shortName(def: LaneDef | null, name: string): string {
  const named = def?.names?.[name];
  if (named) return named;
  const prefix = def?.match.find((p) => p.endsWith("*") && matches(p, name));
  if (prefix) return name.slice(prefix.length - 1);
  return name.replace(/^netstat\./, "");
}

/** Labels that tell lines apart: keys whose value differs between lines (host only then). */
function varyingKeys(lines: { labels: Record<string, string> }[]): string[] {
  const values = new Map<string, Set<string>>();
  for (const line of lines) {
    for (const [k, v] of Object.entries(line.labels)) {
      let set = values.get(k);
      if (!set) values.set(k, (set = new Set()));
      set.add(v);
    }
  }
  const keys: string[] = [];
  for (const [k, set] of values) {
    const missing = lines.some((l) => !(k in l.labels));
    if (set.size > 1 || missing) keys.push(k);
  }
  // Connection identity first, then the rest alphabetically, host last.
  const order = (k: string) => (k === "local" ? 0 : k === "peer" ? 1 : k === "host" ? 3 : 2);
  return keys.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}

function labelLines(def: LaneDef | null, lines: LinePlan[]): void {
  const distinctNames = new Set(lines.map((l) => l.name)).size;
  const keys = varyingKeys(lines);
  for (const line of lines) {
    const parts: string[] = [];
    if (distinctNames > 1 || keys.length === 0) parts.push(shortName(def, line.name));
    const hasConn = keys.includes("local") && keys.includes("peer");
    if (hasConn && line.labels.local !== undefined && line.labels.peer !== undefined) {
      parts.push(`${line.labels.local} → ${line.labels.peer}`);
    }
    for (const k of keys) {
      if (hasConn && (k === "local" || k === "peer")) continue;
      if (k === "port" && keys.includes("local")) continue; // the address names the port
      const v = line.labels[k];
      if (v === undefined) continue;
      if (k === "host") parts.push(`@${v}`);
      else if (k === "local" || k === "peer") parts.push(v);
      else if (k === "port") parts.push(`:${v}`);
      else if (k === "pool" || k === "if" || k === "state" || k === "disk" || k === "kind") parts.push(v);
      else parts.push(`${k}=${v}`);
    }
    line.label = parts.join(" ");
  }
}

/** Group series into lines (same name + labels, one source at a time) in pattern order, then by label. */
function groupLines(def: LaneDef | null, series: SeriesMeta[]): LinePlan[] {
  const byKey = new Map<string, { first: SeriesMeta; all: SeriesMeta[]; order: number }>();
  for (const s of series) {
    const key = lineKey(s.name, s.labels);
    const found = byKey.get(key);
    if (found) found.all.push(s);
    else byKey.set(key, { first: s, all: [s], order: def ? matchIndex(def, s.name) : 0 });
  }
  const lines: (LinePlan & { order: number })[] = [];
  for (const [key, { first, all, order }] of byKey) {
    const { drawn, shadowed } = oneSourcePerSpan(all);
    const line = { key, name: first.name, labels: first.labels, unit: first.unit, ids: [] as number[], shadowed: shadowed.length, label: "", peak: -Infinity, low: Infinity, points: 0, order };
    for (const s of drawn) {
      line.ids.push(s.id);
      line.peak = Math.max(line.peak, s.max);
      line.low = Math.min(line.low, s.min);
      line.points += s.point_count;
    }
    lines.push(line);
  }
  return lines.sort((a, b) => a.order - b.order || a.key.localeCompare(b.key)).map(({ order: _order, ...line }) => line);
}

/** A line whose every stored value is 0. */
export function isFlatZero(line: Pick<LinePlan, "peak" | "low">): boolean {
  return line.peak === 0 && line.low === 0;
}

/** At most `max` flat-zero lines (the first ones); the rest are counted, to be unfolded on demand. */
export function foldZeroLines<T extends Pick<LinePlan, "peak" | "low">>(lines: T[], max: number): { lines: T[]; folded: number } {
  let zeros = 0;
  const kept = lines.filter((l) => !isFlatZero(l) || ++zeros <= max);
  return { lines: kept, folded: lines.length - kept.length };
}

/** Keep the `max` lines with the highest peaks, in their original order. */
function capLines(lines: LinePlan[], max: number): LinePlan[] {
  if (lines.length <= max) return lines;
  const keep = new Set([...lines].sort((a, b) => b.peak - a.peak).slice(0, max).map((l) => l.key));
  return lines.filter((l) => keep.has(l.key));
}

export function highlightMatches(h: SeriesHighlight | null, name: string, labels: Record<string, string>): boolean {
  if (!h || !h.series) return false;
  if (!matches(h.series, name)) return false;
  return Object.entries(h.labels).every(([k, v]) => labels[k] === v);
}

export interface PlanOptions {
  host: string | null;
  /** The visible range: connections are ranked among those seen in it. */
  range: TimeRange | null;
  /** Names (or prefix*) added with the picker. */
  added: readonly string[];
  highlight: SeriesHighlight | null;
  topConnections?: number;
  /** Connections drawn beside the busiest ones (`pinKey`): picked by address, or evidence. */
  pinned?: ReadonlySet<string>;
  /** Connections the incident holds (the server lists only the busiest ones' series). */
  connectionsTotal?: number;
  /** Lanes whose flat-zero lines are all drawn (unfolded by the user). */
  allZeros?: ReadonlySet<string>;
}

export interface Plan {
  lanes: LanePlan[];
  /** Lane holding the highlighted series, if any. */
  highlightLane: string | null;
  connections: { shown: number; total: number };
}

/** Lanes for a series list: the fixed lanes (possibly empty), then added and highlight lanes. */
export function planLanes(all: readonly SeriesMeta[], options: PlanOptions): Plan {
  const n = options.topConnections ?? TOP_CONNECTIONS;
  const series = options.host ? all.filter((s) => s.labels.host === options.host) : all;
  const top = topConnections(series, n, options.range, options.pinned);
  const total = Math.max(top.total, options.connectionsTotal ?? 0);
  const busiest = top.keys.size - top.pinned;
  const picked = top.pinned ? ` + ${top.pinned} picked` : "";
  const connNote = total > top.keys.size ? `top ${busiest} of ${total.toLocaleString("en-US")} connections by bytes acked${picked}` : null;

  const buckets = new Map<string, SeriesMeta[]>(LANES.map((d) => [d.key, []]));
  const laneByName = new Map<string, string | null>();
  const stored = new Set<string>();
  for (const s of series) {
    const nameAndUnit = `${s.name}\u0000${s.unit}`;
    let lane = laneByName.get(nameAndUnit);
    if (lane === undefined) {
      lane = LANES.find((def) => laneTakes(def, s.name, s.unit))?.key ?? null;
      laneByName.set(nameAndUnit, lane);
    }
    if (!lane) continue;
    stored.add(lane);
    if (isConnectionSeries(s) && !top.keys.has(connectionKey(s.labels))) continue;
    buckets.get(lane)!.push(s);
  }

  const lanes: LanePlan[] = LANES.map((def) => {
    const all = groupLines(def, buckets.get(def.key)!);
    const { lines: grouped, folded } = options.allZeros?.has(def.key) ? { lines: all, folded: 0 } : foldZeroLines(all, MAX_ZERO_LINES);
    const lines = capLines(grouped, MAX_LINES);
    labelLines(def, lines);
    const perConn = def.match.some((p) => p.startsWith("tcp.conn."));
    return {
      key: def.key,
      title: def.title,
      unit: def.unit,
      kind: def.kind ?? "line",
      lines,
      dropped: grouped.length - lines.length,
      zeros: folded,
      note: perConn ? connNote : null,
      hint: def.hint,
      stored: stored.has(def.key),
      added: false,
    };
  });

  const addedPlans = (names: readonly string[], isAdded: boolean, title: (n: string) => string) =>
    names.map((pattern): LanePlan => {
      const matched = series.filter((s) => matches(pattern, s.name));
      const grouped = groupLines(null, matched);
      const lines = capLines(grouped, ADDED_MAX_LINES);
      labelLines(null, lines);
      const units = new Set(lines.map((l) => l.unit));
      return {
        key: `${isAdded ? "added" : "highlight"}:${pattern}`,
        title: title(pattern),
        unit: units.size === 1 ? [...units][0]! : "",
        kind: "line",
        lines,
        dropped: grouped.length - lines.length,
        zeros: 0,
        note: null,
        hint: "no stored series by that name for this host",
        stored: matched.length > 0,
        added: isAdded,
      };
    });
  lanes.push(...addedPlans(options.added, true, (p) => p));

  let highlightLane: string | null = null;
  const h = options.highlight;
  if (h?.series) {
    highlightLane =
      lanes.find((l) => l.lines.some((line) => highlightMatches(h, line.name, line.labels)))?.key ?? null;
    if (!highlightLane) {
      const extra = addedPlans([h.series], false, (p) => `Evidence: ${p}`)[0]!;
      const wanted = extra.lines.filter((l) => highlightMatches(h, l.name, l.labels));
      if (wanted.length) extra.lines = wanted;
      lanes.push(extra);
      highlightLane = extra.key;
    }
  }
  return { lanes, highlightLane, connections: { shown: top.keys.size, total } };
}

/** Distinct hosts, sorted. */
export function hostsOf(series: readonly SeriesMeta[]): string[] {
  const hosts = new Set<string>();
  for (const s of series) if (s.labels.host) hosts.add(s.labels.host);
  return [...hosts].sort();
}

export interface NameCount {
  name: string;
  unit: string;
  count: number;
}

/** Distinct series names (for the picker), with how many series carry each. */
export function seriesNames(series: readonly SeriesMeta[]): NameCount[] {
  const byName = new Map<string, NameCount>();
  for (const s of series) {
    const entry = byName.get(s.name);
    if (entry) entry.count++;
    else byName.set(s.name, { name: s.name, unit: s.unit, count: 1 });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Picker suggestions: names containing every word of `query`, shortest first. */
export function searchNames(names: readonly NameCount[], query: string, limit = 30): NameCount[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return names.slice(0, limit);
  const hits = names.filter((n) => {
    const lower = n.name.toLowerCase();
    return words.every((w) => lower.includes(w.replace(/\*$/, "")));
  });
  return hits.sort((a, b) => a.name.length - b.name.length || a.name.localeCompare(b.name)).slice(0, limit);
}

/**
 * Split the ids of all lanes into requests of at most `maxSeries` ids (the API reads at most
 * 200 series per call), in lane order, so neighbouring lanes share a request.
 */
export function batchIds(lanes: readonly LanePlan[], maxSeries: number): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  const seen = new Set<number>();
  for (const lane of lanes) {
    for (const line of lane.lines) {
      for (const id of line.ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        if (current.length >= maxSeries) {
          batches.push(current);
          current = [];
        }
        current.push(id);
      }
    }
  }
  if (current.length) batches.push(current);
  return batches;
}
