import { describe, expect, it } from "vitest";
import { formatBytes, formatDuration, formatInstant, formatRange, formatSpan, formatWindow } from "./time";

const T = Date.UTC(2026, 10, 21, 7, 50, 13, 914);

describe("dates in the incident's timezone", () => {
  it("shows the zone", () => {
    expect(formatInstant(T, "UTC")).toBe("2026-11-21 07:50:13 UTC");
    expect(formatInstant(T, "Asia/Shanghai")).toBe("2026-11-21 15:50:13 GMT+8");
    expect(formatInstant(T, "America/New_York", false)).toBe("2026-11-21 02:50 GMT-5");
  });

  it("falls back to UTC for an unknown zone", () => {
    expect(formatInstant(T, "Not/AZone")).toBe("2026-11-21 07:50:13 UTC");
  });

  it("shortens a same-day range", () => {
    expect(formatRange(T, T + 23_000, "UTC")).toBe("2026-11-21 07:50:13 – 07:50:36 UTC");
    expect(formatRange(T, T + 86_400_000, "UTC")).toBe("2026-11-21 07:50:13 UTC – 2026-11-22 07:50:13 UTC");
    expect(formatRange(null, null, "UTC")).toBe("—");
  });

  it("says a window of one instant is one, not 0 ms long", () => {
    expect(formatWindow(T, T, "UTC")).toBe("one instant at 2026-11-21 07:50:13 UTC");
    expect(formatWindow(T, T + 23_000, "UTC")).toBe("2026-11-21 07:50:13 – 07:50:36 UTC (23 s)");
    expect(formatWindow(null, null, "UTC")).toBe("No data yet");
    expect(formatSpan(T, T)).toBe("one instant");
    expect(formatSpan(T, T + 250_000)).toBe("4 min 10 s");
  });

  it("formats durations and sizes", () => {
    expect(formatDuration(23_352)).toBe("23 s");
    expect(formatDuration(250_000)).toBe("4 min 10 s");
    expect(formatDuration(3 * 86_400_000 + 2 * 3_600_000)).toBe("3 d 2 h");
    expect(formatDuration((4373 * 24 + 7) * 3_600_000)).toBe("12.0 years");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(300 * 1024 * 1024)).toBe("300 MB");
  });
});
