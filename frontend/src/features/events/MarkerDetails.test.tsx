import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Marker } from "../../timeline/Markers";
import { deadlockCycle, type EventRead } from "./details";
import { MarkerDetails } from "./MarkerDetails";

// As the thread_dump parser emits it for the corpus' jdk25 jstack deadlock.
const deadlock: EventRead = {
  id: 7,
  artifact_id: "jstack",
  kind: "thread_deadlock",
  host: "app-1",
  time_ms: 1_766_316_484_000,
  duration_ms: null,
  labels: {},
  attrs: {
    threads: ["DeadlockThread-A", "DeadlockThread-B"],
    monitors: ["0x000000052c830070", "0x000000052c830078"],
    cycle: [
      { thread: "DeadlockThread-A", monitor: "0x000000052c830070", class: "java.lang.Object", held_by: "DeadlockThread-B" },
      { thread: "DeadlockThread-B", monitor: "0x000000052c830078", class: "java.lang.Object", held_by: "DeadlockThread-A" },
    ],
    dump_index: 0,
  },
};

describe("a deadlock marker", () => {
  it("reads as the cycle, each thread waiting for a lock the next holds, not as JSON", () => {
    const marker: Marker = { kind: "dump", t: deadlock.time_ms, duration: null, text: "thread deadlock", event: deadlock };
    render(<MarkerDetails apiBase="/api/incidents/x" marker={marker} timezone="UTC" onClose={() => {}} />);
    const steps = within(screen.getByRole("list", { name: "Deadlock cycle" })).getAllByRole("listitem");
    expect(steps.map((li) => li.textContent)).toEqual([
      "DeadlockThread-A waits for <0x000000052c830070> (a java.lang.Object) held by DeadlockThread-B",
      "DeadlockThread-B waits for <0x000000052c830078> (a java.lang.Object) held by DeadlockThread-A",
    ]);
    expect(screen.getByTestId("marker-details").textContent).not.toContain('"held_by"');
    expect(screen.getByRole("heading", { level: 2 }).textContent).toContain("thread deadlock");
  });

  it("rebuilds the cycle of an event stored before the parser kept it, from the JVM's order", () => {
    const { cycle: _cycle, ...old } = deadlock.attrs as Record<string, unknown>;
    expect(deadlockCycle({ ...old, threads: ["A", "B", "C"], monitors: ["0x1", "0x2", "0x3"] })).toEqual([
      { thread: "A", lock: "0x1", lockClass: null, heldBy: "B" },
      { thread: "B", lock: "0x2", lockClass: null, heldBy: "C" },
      { thread: "C", lock: "0x3", lockClass: null, heldBy: "A" },
    ]);
  });
});
