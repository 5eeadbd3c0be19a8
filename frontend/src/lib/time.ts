/** Instants are UTC epoch ms everywhere; they are shown in the incident's IANA timezone. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, withSeconds: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withSeconds}`;
  let found = formatters.get(key);
  if (!found) {
    try {
      found = new Intl.DateTimeFormat("en-GB", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: withSeconds ? "2-digit" : undefined,
        hourCycle: "h23",
        timeZoneName: "short",
      });
    } catch {
      // An unknown zone name (typo in an old incident): fall back to UTC rather than crash.
      return formatter("UTC", withSeconds);
    }
    formatters.set(key, found);
  }
  return found;
}

/** `2026-11-21 07:50:13 UTC`: ISO-like date and time in `timeZone`, with the zone's short name. */
export function formatInstant(ms: number, timeZone: string, withSeconds = true): string {
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone, withSeconds).formatToParts(new Date(ms))) {
    parts[part.type] = part.value;
  }
  const time = withSeconds
    ? `${parts.hour}:${parts.minute}:${parts.second}`
    : `${parts.hour}:${parts.minute}`;
  return `${parts.year}-${parts.month}-${parts.day} ${time} ${parts.timeZoneName ?? timeZone}`;
}

/** A range; the end drops its date (and zone) when on the same day as the start. */
export function formatRange(
  fromMs: number | null | undefined,
  toMs: number | null | undefined,
  timeZone: string,
): string {
  if (fromMs == null && toMs == null) return "—";
  if (fromMs == null) return `until ${formatInstant(toMs!, timeZone)}`;
  if (toMs == null || toMs === fromMs) return formatInstant(fromMs, timeZone);
  const start = formatInstant(fromMs, timeZone);
  const end = formatInstant(toMs, timeZone);
  const [startDate] = start.split(" ");
  const [endDate, endTime, ...zone] = end.split(" ");
  if (startDate === endDate) {
    const startNoZone = start.split(" ").slice(0, 2).join(" ");
    return `${startNoZone} – ${endTime} ${zone.join(" ")}`;
  }
  return `${start} – ${end}`;
}

/**
 * An incident's window with its length: `2026-11-21 07:50:13 – 07:50:36 UTC (23 s)`, and
 * `one instant at 2026-11-21 07:50:13 UTC` when it starts and ends at the same time (a single
 * thread dump or snapshot), never "(0 ms)". `No data yet` without a start.
 */
export function formatWindow(
  fromMs: number | null | undefined,
  toMs: number | null | undefined,
  timeZone: string,
): string {
  if (fromMs == null) return "No data yet";
  if (toMs == null) return formatRange(fromMs, toMs, timeZone);
  if (toMs === fromMs) return `one instant at ${formatInstant(fromMs, timeZone)}`;
  return `${formatRange(fromMs, toMs, timeZone)} (${formatDuration(toMs - fromMs)})`;
}

/** How long a window lasted, `one instant` when it did not (not `0 ms`). */
export function formatSpan(fromMs: number, toMs: number): string {
  return toMs === fromMs ? "one instant" : formatDuration(toMs - fromMs);
}

/** `23 s`, `4 min 10 s`, `2 h 5 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return ms < 1000 ? `${Math.round(ms)} ms` : `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min${seconds % 60 ? ` ${seconds % 60} s` : ""}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  const days = Math.floor(hours / 24);
  // Spans of years (an old sample beside a new capture): in years, not thousands of days.
  if (days >= 2 * 365) return `${(days / 365.25).toFixed(1)} years`;
  return `${days} d${hours % 24 ? ` ${hours % 24} h` : ""}`;
}

/** Bytes in B/KB/MB/GB (powers of 1024), one decimal above KB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

export function formatNumber(value: number): string {
  return numberFormat.format(value);
}

let zones: readonly string[] | null = null;

/** Every IANA zone the browser knows (for the timezone pickers), UTC first; read once. */
export function timeZones(): readonly string[] {
  if (!zones) {
    const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
    const known = supported ? supported("timeZone") : [];
    zones = ["UTC", ...known.filter((zone) => zone !== "UTC")];
  }
  return zones;
}

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
