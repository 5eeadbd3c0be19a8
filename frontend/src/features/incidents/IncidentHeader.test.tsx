import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Incident } from "../../api/types";
import { IncidentHeader } from "./IncidentHeader";

const T = Date.UTC(2025, 11, 21, 11, 28, 4);

function incident(window_start_ms: number | null, window_end_ms: number | null): Incident {
  return {
    id: "i",
    title: "Deadlock",
    summary: "",
    timezone: "UTC",
    status: "draft",
    window_start_ms,
    window_end_ms,
    created_at_ms: T,
    updated_at_ms: T,
    artifact_count: 1,
    top_causes: [],
  } as Incident;
}

afterEach(cleanup);

describe("the incident header's window", () => {
  it("says one instant for a single thread dump, not (0 ms)", () => {
    render(<IncidentHeader incident={incident(T, T)} />);
    const window = screen.getByTestId("incident-window");
    expect(window.textContent).toBe("one instant at 2025-12-21 11:28:04 UTC");
  });

  it("gives a range its length", () => {
    render(<IncidentHeader incident={incident(T, T + 23_000)} />);
    expect(screen.getByTestId("incident-window").textContent).toBe("2025-12-21 11:28:04 – 11:28:27 UTC (23 s)");
  });
});
