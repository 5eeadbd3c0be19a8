import { describe, expect, it } from "vitest";
import { describeView } from "./ShareDialog";

describe("the view a share link opens, in words", () => {
  const view = { from_ms: null, to_ms: null, host: null, finding: "memory_pressure", evidence: 1, lanes: [] };

  it("names the finding by the title the checklist shows, not by its id", () => {
    const words = describeView(view, "UTC", { memory_pressure: "Memory pressure" });
    expect(words).toBe('the whole incident, finding "Memory pressure"');
    expect(words).not.toContain("memory_pressure");
  });

  it("falls back to the id while the checklist is not loaded", () => {
    expect(describeView(view, "UTC")).toBe('the whole incident, finding "memory_pressure"');
  });

  it("says the whole incident for no stored view", () => {
    expect(describeView(null, "UTC")).toBe("the whole incident");
  });
});
