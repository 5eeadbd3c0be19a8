import { describe, expect, it } from "vitest";
import { findGcPause, listenersAt, overflowAt, type EventRead, type TimelineSeries } from "./details";

function event(id: number, kind: string, time_ms: number, duration_ms: number | null, attrs: Record<string, unknown>, extra: Partial<EventRead> = {}): EventRead {
  return { id, artifact_id: "gc-log", kind, host: "app-1", time_ms, duration_ms, attrs, labels: {}, ...extra };
}

describe("the GC pause behind a marker", () => {
  const events = [
    event(1, "gc_pause", 1000, 4.1, { gc_id: 7, cause: "G1 Evacuation Pause", heap_before_mb: 120, heap_after_mb: 40 }),
    event(2, "gc_concurrent", 1200, 30, { gc_id: 7, phase: "Concurrent Mark" }),
    event(3, "gc_pause", 1500, 2, { gc_id: 7, type: "Remark" }),
    event(4, "gc_pause", 1000, 9, { gc_id: 3 }, { host: "app-2", artifact_id: "other" }),
    event(5, "gc_pause", 2000, 1, { gc_id: 8 }),
  ];

  it("is the pause that starts at the point, with its cycle's phases and the heap it freed", () => {
    const found = findGcPause(events, { t: 1000, durationMs: 4.1, host: "app-1" })!;
    expect(found.pause.id).toBe(1);
    expect(found.phases.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(found.freedMb).toBe(80);
  });

  it("picks by duration when hosts are not known, and finds nothing elsewhere", () => {
    expect(findGcPause(events, { t: 1000, durationMs: 9, host: null })!.pause.id).toBe(4);
    expect(findGcPause(events, { t: 999, durationMs: 4.1, host: null })).toBeNull();
    expect(findGcPause([event(9, "gc_pause", 5, 1, {})], { t: 5, durationMs: 1, host: null })!.freedMb).toBeNull();
  });
});

describe("a listen overflow", () => {
  it("counts the overflows since the previous snapshot from the rate", () => {
    expect(overflowAt({ value: 2.5, previousT: 10_000 }, 14_000)).toEqual({ ratePerS: 2.5, intervalMs: 4000, increment: 10 });
    expect(overflowAt({ value: 2.5, previousT: null }, 14_000).increment).toBeNull();
  });

  it("shows each listener's accept queue and backlog at the time, fullest first", () => {
    const series = (name: string, local: string, t: number[], v: number[]): TimelineSeries => ({
      id: t.length + name.length, name, labels: { host: "web-1", local }, unit: "connections", level: 0, points_in_range: t.length, t, v,
    });
    const listeners = listenersAt(
      [
        series("tcp.listen.recvq", "0.0.0.0:22", [0, 10], [0, 0]),
        series("tcp.listen.backlog", "0.0.0.0:22", [0, 10], [128, 128]),
        series("tcp.listen.recvq", "0.0.0.0:8080", [0, 10, 20], [3, 129, 50]),
        series("tcp.listen.backlog", "0.0.0.0:8080", [0, 10, 20], [128, 128, 128]),
        series("tcp.state.listen", "x", [0], [1]),
      ],
      11,
    );
    expect(listeners.map((l) => [l.listener, l.queued, l.backlog, l.peakQueued, l.at])).toEqual([
      ["0.0.0.0:8080", 129, 128, 129, 10],
      ["0.0.0.0:22", 0, 128, 0, 10],
    ]);
  });
});
