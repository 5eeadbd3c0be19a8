import { describe, expect, it } from "vitest";
import { newItem, nextToStart, parseClockOffset, totals, uploadReducer, type UploadItem } from "./uploadQueue";

function files(n: number): UploadItem[] {
  return Array.from({ length: n }, (_, i) => newItem(new File(["x".repeat(100)], `f${i}.txt`)));
}

describe("upload queue", () => {
  it("starts at most the concurrency limit, oldest first", () => {
    let items = uploadReducer([], { type: "add", items: files(5) });
    expect(nextToStart(items, 2)).toEqual([]); // staged, not queued
    items = uploadReducer(items, { type: "queueAll" });
    const first = nextToStart(items, 2);
    expect(first).toEqual([items[0]!.id, items[1]!.id]);
    for (const id of first) items = uploadReducer(items, { type: "start", id });
    expect(nextToStart(items, 2)).toEqual([]);
    items = uploadReducer(items, { type: "sent", id: first[0]! });
    expect(nextToStart(items, 2)).toEqual([]); // still being stored by the server: still in flight
    items = uploadReducer(items, { type: "done", id: first[0]!, result: { artifacts: [], created: [] } });
    expect(nextToStart(items, 2)).toEqual([items[2]!.id]);
  });

  it("tracks progress and totals", () => {
    let items = uploadReducer([], { type: "add", items: files(2) });
    items = uploadReducer(items, { type: "queueAll" });
    items = uploadReducer(items, { type: "start", id: items[0]!.id });
    items = uploadReducer(items, { type: "progress", id: items[0]!.id, loaded: 40, total: 100 });
    expect(items[0]!.loaded).toBe(40);
    expect(totals(items)).toEqual({ loaded: 40, total: 200, active: 2 });
  });

  it("never overwrites a host the user typed with a guess", () => {
    let items = uploadReducer([], { type: "add", items: files(2) });
    items = uploadReducer(items, { type: "edit", id: items[0]!.id, changes: { host: "typed" } });
    items = uploadReducer(items, { type: "guessed", id: items[0]!.id, host: "guess" });
    items = uploadReducer(items, { type: "guessed", id: items[1]!.id, host: "guess" });
    expect(items.map((item) => [item.host, item.hostGuessed])).toEqual([
      ["typed", false],
      ["guess", true],
    ]);
  });

  it("cancels, fails, retries; a late failure after cancel is ignored", () => {
    let items = uploadReducer([], { type: "add", items: files(1) });
    const id = items[0]!.id;
    items = uploadReducer(items, { type: "queueAll" });
    items = uploadReducer(items, { type: "start", id });
    items = uploadReducer(items, { type: "cancel", id });
    items = uploadReducer(items, { type: "failed", id, error: "Cancelled." });
    expect(items[0]!.state).toBe("cancelled");
    items = uploadReducer(items, { type: "retry", id });
    expect(items[0]!.state).toBe("queued");
    items = uploadReducer(items, { type: "start", id });
    items = uploadReducer(items, { type: "failed", id, error: "413 too large" });
    expect(items[0]).toMatchObject({ state: "error", error: "413 too large" });
  });

  it("does not remove or edit an upload in flight", () => {
    let items = uploadReducer([], { type: "add", items: files(1) });
    const id = items[0]!.id;
    items = uploadReducer(uploadReducer(items, { type: "queueAll" }), { type: "start", id });
    items = uploadReducer(items, { type: "edit", id, changes: { host: "x" } });
    items = uploadReducer(items, { type: "remove", id });
    expect(items).toHaveLength(1);
    expect(items[0]!.host).toBe("");
  });

  it("reads the clock offset", () => {
    expect(parseClockOffset("")).toBe(0);
    expect(parseClockOffset(" -2.5 ")).toBe(-2.5);
    expect(parseClockOffset("3s")).toBeNull();
  });
});
