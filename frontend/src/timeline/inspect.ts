/**
 * "Inspect data": the numbers behind a lane as a table (one row per sample time in view, one
 * column per line) and as tab-separated text to copy. Pure.
 */
import type { LinePoints } from "./data";
import type { TimeRange } from "./types";

export interface InspectTable {
  /** Sample times in view, ascending (at most `limit`). */
  times: number[];
  /** values[row][column]: the line's value at that time, or null when it has no sample there. */
  values: (number | null)[][];
  /** Rows in view in all (more than `times.length` when cut). */
  total: number;
}

export function inspectTable(points: readonly LinePoints[], range: TimeRange | null, limit = 1000): InspectTable {
  const byTime = new Map<number, (number | null)[]>();
  points.forEach((p, col) => {
    for (let i = 0; i < p.t.length; i++) {
      const t = p.t[i]!;
      if (range && (t < range.from || t > range.to)) continue;
      let row = byTime.get(t);
      if (!row) byTime.set(t, (row = new Array<number | null>(points.length).fill(null)));
      row[col] = p.v[i]!;
    }
  });
  const all = [...byTime.keys()].sort((a, b) => a - b);
  const times = all.slice(0, limit);
  return { times, values: times.map((t) => byTime.get(t)!), total: all.length };
}

/** Tab-separated text: a header of column names, ISO-8601 UTC times, raw numbers (empty: none). */
export function tableToTsv(table: InspectTable, columns: readonly string[]): string {
  const clean = (s: string) => s.replace(/[\t\n\r]/g, " ");
  const lines = [["time (UTC)", ...columns.map(clean)].join("\t")];
  table.times.forEach((t, i) => {
    lines.push([new Date(t).toISOString(), ...table.values[i]!.map((v) => (v === null ? "" : String(v)))].join("\t"));
  });
  return lines.join("\n") + "\n";
}
