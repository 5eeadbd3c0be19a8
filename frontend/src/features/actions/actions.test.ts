import { describe, expect, it } from "vitest";
import type { ActionItem } from "../../api/types";
import { groupByOwner } from "../../pages/ActionsPage";
import { viewStateOf } from "../../pages/SharePage";
import { shareViewOf } from "../share/ShareDialog";
import { isOverdue, today } from "./ActionItems";

describe("action items", () => {
  it("is overdue only while still to do", () => {
    expect(isOverdue({ status: "open", due_date: "2026-01-01" }, "2026-01-02")).toBe(true);
    expect(isOverdue({ status: "in_progress", due_date: "2026-01-02" }, "2026-01-02")).toBe(false);
    expect(isOverdue({ status: "done", due_date: "2026-01-01" }, "2026-01-02")).toBe(false);
    expect(isOverdue({ status: "open", due_date: null }, "2026-01-02")).toBe(false);
    expect(today(new Date(2026, 0, 5))).toBe("2026-01-05");
  });

  it("groups by owner in the API's order", () => {
    const item = (id: number, owner: string) => ({ id, owner }) as ActionItem;
    const groups = groupByOwner([item(1, "dev"), item(2, "dev"), item(3, "ops")]);
    expect(groups.map(([owner, list]) => [owner, list.map((i) => i.id)])).toEqual([
      ["dev", [1, 2]],
      ["ops", [3]],
    ]);
  });
});

describe("a share's view", () => {
  it("stores the page's view and gives it back", () => {
    const view = { range: { from: 1000.4, to: 5000 }, host: "web-1", finding: "gc_pauses", evidence: 2, lanes: ["gc.pause_ms"] };
    const stored = shareViewOf(view);
    expect(stored).toEqual({ from_ms: 1000, to_ms: 5000, host: "web-1", finding: "gc_pauses", evidence: 2, lanes: ["gc.pause_ms"] });
    expect(viewStateOf(stored!)).toEqual({ ...view, range: { from: 1000, to: 5000 } });
    expect(shareViewOf({ range: null, host: null, finding: null, evidence: null, lanes: [] })).toBeNull();
  });
});
