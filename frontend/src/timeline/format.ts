/**
 * Time (in the incident's zone) and value formatting, and time-axis ticks. Pure. Durations:
 * formatDuration in src/lib/time.ts.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** One numeric-parts formatter per zone (an unknown zone reads as UTC). */
const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormatters.get(timeZone);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    };
    try {
      f = new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
    } catch {
      f = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" });
    }
    partsFormatters.set(timeZone, f);
  }
  return f;
}

function partsOf(t: number, timeZone: string): Parts {
  const out: Record<string, number> = {};
  for (const p of partsFormatter(timeZone).formatToParts(new Date(t))) {
    if (p.type !== "literal") out[p.type] = Number(p.value);
  }
  return {
    year: out.year ?? 1970,
    month: out.month ?? 1,
    day: out.day ?? 1,
    hour: (out.hour ?? 0) % 24,
    minute: out.minute ?? 0,
    second: out.second ?? 0,
  };
}

/** Offset of `timeZone` from UTC at instant `t`, in ms (Berlin in winter: +3 600 000). */
export function zoneOffsetMs(t: number, timeZone: string): number {
  const p = partsOf(t, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (Math.floor(t / 1000) * 1000);
}

/** "UTC", "UTC+01:00", "UTC+05:30", "UTC-03:00". */
export function offsetLabel(t: number, timeZone: string): string {
  const minutes = Math.round(zoneOffsetMs(t, timeZone) / 60000);
  if (minutes === 0) return "UTC";
  const sign = minutes > 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `UTC${sign}${hh}:${mm}`;
}

/** "Europe/Berlin (UTC+01:00)" or "UTC". */
export function zoneLabel(t: number, timeZone: string): string {
  const offset = offsetLabel(t, timeZone);
  return timeZone === "UTC" || timeZone === "Etc/UTC" ? "UTC" : `${timeZone} (${offset})`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "2026-11-21 08:48:03.120" in the zone (milliseconds only when not zero). */
export function formatFull(t: number, timeZone: string): string {
  const p = partsOf(t, timeZone);
  const ms = ((t % 1000) + 1000) % 1000;
  const base = `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return ms ? `${base}.${pad(ms, 3)}` : base;
}

/** A tick label fitting its step: seconds shown only for sub-minute steps, the date at midnight. */
export function formatTick(t: number, timeZone: string, stepMs: number): string {
  const p = partsOf(t, timeZone);
  const date = `${pad(p.month)}-${pad(p.day)}`;
  // Ticks weeks apart may cross a year (captures of different years in one incident).
  if (stepMs > 7 * DAY) return `${p.year}-${date}`;
  if (stepMs >= DAY) return date;
  const clock = stepMs < MINUTE ? `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` : `${pad(p.hour)}:${pad(p.minute)}`;
  if (p.hour === 0 && p.minute === 0 && p.second === 0) return `${date} ${clock}`;
  return clock;
}

const TICK_STEPS = [
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY,
]; // prettier-ignore

/** The smallest step giving at most `maxTicks` ticks over `span`. */
export function tickStep(spanMs: number, maxTicks: number): number {
  const wanted = spanMs / Math.max(1, maxTicks);
  for (const step of TICK_STEPS) if (step >= wanted) return step;
  return Math.ceil(wanted / DAY) * DAY;
}

/**
 * Tick instants over [from, to], at round local times in `timeZone` (08:00, 08:15 ... in
 * Berlin, not in UTC), at most about `maxTicks` of them.
 */
export function timeTicks(from: number, to: number, timeZone: string, maxTicks: number): number[] {
  if (!(to > from)) return [];
  const step = tickStep(to - from, maxTicks);
  const offset = zoneOffsetMs(from, timeZone);
  const ticks: number[] = [];
  let local = Math.ceil((from + offset) / step) * step;
  for (let i = 0; i < 1000; i++, local += step) {
    // Re-read the offset at each tick so a DST change keeps ticks on round local times.
    const guess = local - offset;
    const t = local - zoneOffsetMs(guess, timeZone);
    if (t > to) break;
    if (t >= from) ticks.push(t);
  }
  return ticks;
}

// ---- values and units ----

/**
 * Units a person reads at once: rates as `/s`, bytes in IEC units with the unit written (`KiB`,
 * nmon's `MB` and `KB/s` are powers of 1024 too), counts and bit rates in SI (`k`, `M`).
 */

/** Stored units whose values are bytes times this factor (nmon writes MiB as "MB"). */
const BYTE_UNITS: Record<string, number> = { bytes: 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
/** Stored units whose values are bytes per second times this factor. */
const BYTE_RATE_UNITS: Record<string, number> = { "bytes/s": 1, "B/s": 1, "KB/s": 1024, "MB/s": 1024 ** 2 };
/** Units whose values are whole things: their axis ticks are integers. */
const WHOLE_UNITS = new Set([
  "bytes", "B", "sockets", "connections", "count", "segments", "threads", "processes", "packets", "tasks", "port",
]); // prettier-ignore
const IEC = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** Bytes (or bytes/s) per stored value, or null when `unit` is not a byte unit. */
export function bytesPerUnit(unit: string): { factor: number; rate: boolean } | null {
  if (unit in BYTE_UNITS) return { factor: BYTE_UNITS[unit]!, rate: false };
  if (unit in BYTE_RATE_UNITS) return { factor: BYTE_RATE_UNITS[unit]!, rate: true };
  return null;
}

/** Whether values of `unit` count whole things (bytes, sockets ...): no 0.5 ticks. */
export function isWholeUnit(unit: string): boolean {
  return WHOLE_UNITS.has(unit) || bytesPerUnit(unit) !== null;
}

/** How a stored unit is written next to a number (a lane header, a table heading). */
export function displayUnit(unit: string): string {
  switch (unit) {
    case "per_s":
      return "/s";
    case "per_min":
      return "/min";
    case "percent":
      return "%";
    case "bool":
    case "code":
      return "";
    case "bytes":
      return "B";
    default: {
      const bytes = bytesPerUnit(unit);
      if (bytes) return IEC[Math.round(Math.log(bytes.factor) / Math.log(1024))]! + (bytes.rate ? "/s" : "");
      return unit;
    }
  }
}

/** One formatter for every value (toLocaleString builds a new one per call: the tooltip's hot path). */
const wholeNumber = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function trim(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs === 0) return "0";
  if (abs >= 100) return wholeNumber.format(Math.round(n));
  return String(+n.toPrecision(digits));
}

/** 1234 -> "1,234", 25000 -> "25k", 2500000 -> "2.5M" (SI). */
function compact(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${trim(n / 1e9)}G`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e4) return `${trim(n / 1e3)}k`;
  return trim(n);
}

function scaled(n: number, base: number, suffixes: string[]): string {
  let i = 0;
  let v = n;
  while (Math.abs(v) >= base && i < suffixes.length - 1) {
    v /= base;
    i++;
  }
  return `${trim(v)} ${suffixes[i]}`;
}

/** A byte count in IEC units, the unit written: "512 B", "21.2 KiB", "1.5 GiB". */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) < 1024) return `${trim(bytes)} B`;
  return scaled(bytes, 1024, IEC);
}

/**
 * The unit a lane's header names: the one its axis writes. A byte axis writes each tick in the
 * IEC unit that reads best (nmon's "MB" values reaching 8 GiB read "8 GiB"), so the header
 * names the unit of the largest tick, not the stored one ("(MiB)" over GiB ticks misleads).
 */
export function axisUnit(unit: string, ticks: readonly number[]): string {
  const bytes = bytesPerUnit(unit);
  if (!bytes) return displayUnit(unit);
  const top = Math.max(0, ...ticks.filter(Number.isFinite).map(Math.abs)) * bytes.factor;
  const label = formatBytes(top);
  return label.slice(label.indexOf(" ") + 1) + (bytes.rate ? "/s" : "");
}

/** Seconds read at once: 0.007 -> "7 ms", 12.5 -> "12.5 s", 125 -> "2 min 5 s". */
export function formatSeconds(s: number): string {
  const abs = Math.abs(s);
  if (abs === 0) return "0 s";
  if (abs < 1) return `${trim(s * 1000)} ms`;
  if (abs < 60) return `${trim(s)} s`;
  const minutes = Math.floor(abs / 60);
  const rest = Math.round(abs - minutes * 60);
  const sign = s < 0 ? "-" : "";
  if (minutes < 60) return `${sign}${minutes} min${rest ? ` ${rest} s` : ""}`;
  return `${sign}${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
}

/** A value with its unit, readable: "21.2 KiB", "1.05 Mbit/s", "224 ms", "7 ms", "12.5 %", "3.1k/s". */
export function formatValue(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const bytes = bytesPerUnit(unit);
  if (bytes) return formatBytes(v * bytes.factor) + (bytes.rate ? "/s" : "");
  switch (unit) {
    case "bits/s":
      return scaled(v, 1000, ["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"]);
    case "ms":
      return Math.abs(v) >= 10000 ? formatSeconds(v / 1000) : `${trim(v)} ms`;
    case "s":
      return formatSeconds(v);
    case "%":
    case "percent":
      return `${trim(v)} %`;
    case "bool":
      return v ? "yes" : "no";
    default: {
      const u = displayUnit(unit);
      const shown = compact(v);
      if (!u) return shown;
      if (u.startsWith("/")) return `${shown}${u}`;
      return `${shown} ${shown === "1" ? singularUnit(u) : u}`;
    }
  }
}

const UNIT_PREPOSITIONS = new Set(["in", "per", "of", "at"]);

/**
 * A unit that counts things, for one of them: "lines" -> "line", "snapshots in a row" ->
 * "snapshot in a row", "runnable threads per core" -> "runnable thread per core", "families" ->
 * "family". Rates ("connections/s") and units that are no plural ("MB", "% of total") stay.
 */
export function singularUnit(unit: string): string {
  if (unit.includes("/")) return unit;
  const words = unit.split(" ");
  const preposition = words.findIndex((word, i) => i > 0 && UNIT_PREPOSITIONS.has(word));
  const head = preposition > 0 ? preposition - 1 : words.length - 1;
  const word = words[head]!;
  if (!/^[a-z-]{3,}$/.test(word) || /(ss|us|is|series)$/.test(word)) return unit;
  if (word.endsWith("ies")) words[head] = `${word.slice(0, -3)}y`;
  else if (word.endsWith("s")) words[head] = word.slice(0, -1);
  return words.join(" ");
}

/** A y-axis tick: short, but bytes keep their IEC unit ("64 KiB"; the lane header has the rest). */
export function formatAxisValue(v: number, unit: string): string {
  const bytes = bytesPerUnit(unit);
  if (bytes) return formatBytes(v * bytes.factor);
  switch (unit) {
    case "bits/s":
      return scaled(v, 1000, ["", "k", "M", "G", "T"]).replace(" ", "");
    case "s":
      return formatSeconds(v);
    default:
      return compact(v);
  }
}
