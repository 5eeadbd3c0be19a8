import { describe, expect, it } from "vitest";
import {
  axisUnit,
  displayUnit,
  formatAxisValue,
  formatFull,
  formatTick,
  formatValue,
  offsetLabel,
  tickStep,
  timeTicks,
  zoneLabel,
  zoneOffsetMs,
} from "./format";

// 2026-11-21 07:50:00 UTC
const T = Date.UTC(2026, 10, 21, 7, 50, 0);

describe("time zones", () => {
  it("reads offsets, with DST", () => {
    expect(zoneOffsetMs(T, "UTC")).toBe(0);
    expect(zoneOffsetMs(T, "Europe/Berlin")).toBe(3_600_000);
    expect(zoneOffsetMs(Date.UTC(2026, 6, 1), "Europe/Berlin")).toBe(7_200_000);
    expect(zoneOffsetMs(T, "Asia/Kolkata")).toBe(19_800_000);
    expect(offsetLabel(T, "Asia/Kolkata")).toBe("UTC+05:30");
    expect(offsetLabel(T, "America/Sao_Paulo")).toBe("UTC-03:00");
    expect(zoneLabel(T, "Europe/Berlin")).toBe("Europe/Berlin (UTC+01:00)");
    expect(zoneLabel(T, "UTC")).toBe("UTC");
  });

  it("formats instants in the incident's zone", () => {
    expect(formatFull(T, "UTC")).toBe("2026-11-21 07:50:00");
    expect(formatFull(T + 120, "Europe/Berlin")).toBe("2026-11-21 08:50:00.120");
    expect(formatFull(T, "Asia/Tokyo")).toBe("2026-11-21 16:50:00");
  });

  it("formats ticks for their step, with the date at midnight", () => {
    expect(formatTick(T, "Europe/Berlin", 60_000)).toBe("08:50");
    expect(formatTick(T + 5000, "UTC", 5000)).toBe("07:50:05");
    expect(formatTick(Date.UTC(2026, 10, 20, 23, 0), "Europe/Berlin", 3_600_000)).toBe("11-21 00:00");
    expect(formatTick(T, "UTC", 86_400_000)).toBe("11-21");
    expect(formatTick(T, "UTC", 30 * 86_400_000)).toBe("2026-11-21"); // weeks apart: the year too
  });
});

describe("ticks", () => {
  it("picks a round step", () => {
    expect(tickStep(7 * 60_000, 10)).toBe(60_000);
    expect(tickStep(24 * 3_600_000, 12)).toBe(2 * 3_600_000);
    expect(tickStep(20_000, 10)).toBe(2000);
  });

  it("puts ticks on round local times, not round UTC times", () => {
    const from = Date.UTC(2026, 10, 21, 0, 10);
    const ticks = timeTicks(from, from + 6 * 3_600_000, "Asia/Kolkata", 6);
    expect(ticks.length).toBeGreaterThanOrEqual(5);
    for (const t of ticks) expect(formatTick(t, "Asia/Kolkata", 3_600_000)).toMatch(/:00$/);
    expect(ticks.every((t) => t >= from && t <= from + 6 * 3_600_000)).toBe(true);
  });

  it("returns nothing for an empty range", () => {
    expect(timeTicks(5, 5, "UTC", 10)).toEqual([]);
  });
});

describe("values", () => {
  it("writes values with readable units", () => {
    expect(formatValue(21_720, "bytes")).toBe("21.2 KiB");
    expect(formatValue(9_971_016, "bytes")).toBe("9.51 MiB");
    expect(formatValue(1_046_000 * 8, "bits/s")).toBe("8.37 Mbit/s");
    expect(formatValue(224, "ms")).toBe("224 ms");
    expect(formatValue(12_345, "ms")).toBe("12.3 s");
    expect(formatValue(63.25, "%")).toBe("63.3 %");
    expect(formatValue(2000, "per_s")).toBe("2,000/s");
    expect(formatValue(25_000, "per_s")).toBe("25k/s");
    expect(formatValue(9968, "sockets")).toBe("9,968 sockets");
    expect(formatValue(1, "sockets")).toBe("1 socket"); // the same cases as backend tests/postmortems/test_render.py
    expect(formatValue(1, "runnable threads per core")).toBe("1 runnable thread per core");
    expect(formatValue(0.5, "")).toBe("0.5");
    expect(formatValue(null, "ms")).toBe("–");
    expect(formatValue(1, "bool")).toBe("yes");
  });

  it("reads at once: /s, ms for short seconds, IEC bytes with the unit, SI rates", () => {
    expect(displayUnit("per_s")).toBe("/s");
    expect(displayUnit("MB")).toBe("MiB");
    expect(displayUnit("KB/s")).toBe("KiB/s");
    expect(displayUnit("bytes")).toBe("B");
    expect(formatValue(0.007, "s")).toBe("7 ms");
    expect(formatValue(12.5, "s")).toBe("12.5 s");
    expect(formatValue(125, "s")).toBe("2 min 5 s");
    expect(formatValue(7, "ms")).toBe("7 ms");
    expect(formatValue(2048, "MB")).toBe("2 GiB");
    expect(formatValue(1536, "KB/s")).toBe("1.5 MiB/s");
    expect(formatValue(1_500_000, "per_s")).toBe("1.5M/s");
    expect(formatValue(0, "bytes")).toBe("0 B");
    expect(formatAxisValue(1024 * 300, "MB")).toBe("300 GiB");
  });
  it("keeps axis ticks short", () => {
    expect(formatAxisValue(65_536, "bytes")).toBe("64 KiB");
    expect(formatAxisValue(512, "bytes")).toBe("512 B");
    expect(formatAxisValue(2_500_000, "bits/s")).toBe("2.5M");
    expect(formatAxisValue(36_000, "sockets")).toBe("36k");
  });
});

describe("axisUnit", () => {
  it("names the unit the byte axis writes, not the stored one", () => {
    // nmon's memory in "MB" (MiB) up to 8 GiB: the ticks read "0 B", "4 GiB", "8 GiB".
    expect(axisUnit("MB", [0, 4096, 8192])).toBe("GiB");
    expect(formatAxisValue(8192, "MB")).toBe("8 GiB");
    expect(axisUnit("MB", [0, 256, 512])).toBe("MiB");
    expect(axisUnit("bytes", [0, 500])).toBe("B");
    expect(axisUnit("KB/s", [0, 1024, 2048])).toBe("MiB/s");
    expect(axisUnit("percent", [0, 50, 100])).toBe("%");
    expect(axisUnit("MB", [])).toBe("B");
  });
});
