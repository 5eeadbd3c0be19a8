import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook } from "@testing-library/react";
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { describe, expect, it } from "vitest";
import type { Artifact } from "../../api/types";
import { artifact } from "../../test/fixtures";
import { clampToWindow, type TimeRange } from "../../lib/urlState";
import { useOpenOnTheData, type OpeningView } from "./openOnTheData";

const API = "/api/incidents/i1";
const GC_FROM = Date.UTC(2022, 0, 12, 9, 0, 0);
const GC_TO = Date.UTC(2022, 0, 12, 11, 30, 0);
const UPLOADED = Date.UTC(2026, 10, 27, 10, 0, 0);

const gcLog = (status: Artifact["status"]) =>
  artifact({ id: "gc", filename: "gc.log", kind: "gc_log", status, time_start_ms: status === "parsed" ? GC_FROM : null, time_end_ms: status === "parsed" ? GC_TO : null });
const ssListing = (status: Artifact["status"]) =>
  artifact({ id: "ss", filename: "ss.txt", kind: "ss", status, placed_at_upload: true, time_start_ms: status === "parsed" ? UPLOADED : null, time_end_ms: status === "parsed" ? UPLOADED : null });

/** The hook on a page whose view lives in state (as it lives in the URL), the files in the query cache. */
function setup(
  artifacts: Artifact[],
  initial: OpeningView = { range: null, finding: null },
  window: TimeRange = { from: GC_FROM, to: UPLOADED },
) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  client.setQueryData([API, "artifacts"], artifacts);
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const hook = renderHook(
    () => {
      const [view, setViewState] = useState<OpeningView>(initial);
      const setView = useCallback((changes: { range?: TimeRange | null; finding?: string | null }) => setViewState((v) => ({ ...v, ...changes })), []);
      const [extent, setExtent] = useState<TimeRange>(window);
      // As the workspace does: a range is held to the incident's window.
      useEffect(() => {
        const clamped = clampToWindow(view.range, extent);
        if (clamped !== view.range) setView({ range: clamped });
      }, [view.range, extent, setView]);
      const focus = useOpenOnTheData(API, view, extent, [], setView);
      return { view, setView, setExtent, focus };
    },
    { wrapper },
  );
  // The query cache tells its observers on the next tick.
  const arrive = (list: Artifact[]) =>
    act(async () => {
      client.setQueryData([API, "artifacts"], list);
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  return { hook, arrive };
}

describe("useOpenOnTheData", () => {
  it("opens on the data cluster when files years apart arrive while the page is open", async () => {
    const { hook, arrive } = setup([]);
    expect(hook.result.current.view.range).toBeNull();
    await arrive([gcLog("pending"), ssListing("pending")]);
    expect(hook.result.current.view.range).toBeNull(); // still queued: not decided yet
    await arrive([gcLog("parsed"), ssListing("parsed")]);
    const range = hook.result.current.view.range!;
    expect(range).not.toBeNull();
    expect(range.from).toBeLessThanOrEqual(GC_FROM);
    expect(range.to).toBeGreaterThanOrEqual(GC_TO);
    expect(range.to).toBeLessThan(UPLOADED - 365 * 86_400_000); // not the 4.8-year span
    expect(hook.result.current.focus).toMatchObject({ inside: 1, outside: 1 });
  });

  it("shows the chosen range once the incident's window, read after the files, reaches it", async () => {
    const { hook, arrive } = setup([], undefined, { from: UPLOADED, to: UPLOADED + 1000 });
    await arrive([gcLog("parsed"), ssListing("parsed")]);
    expect(hook.result.current.view.range).toBeNull(); // held to the window as last read
    await act(async () => hook.result.current.setExtent({ from: GC_FROM, to: UPLOADED }));
    const range = hook.result.current.view.range!;
    expect(range).not.toBeNull();
    expect(range.to).toBeLessThan(UPLOADED - 365 * 86_400_000);
  });

  it("leaves a view the user zoomed alone when a file arrives", async () => {
    const { hook, arrive } = setup([]);
    const zoomed = { from: UPLOADED - 120_000, to: UPLOADED };
    act(() => hook.result.current.setView({ range: zoomed }));
    await arrive([gcLog("parsed"), ssListing("parsed")]);
    expect(hook.result.current.view.range).toEqual(zoomed);
    expect(hook.result.current.focus).toBeNull();
  });

  it("leaves 'Show everything' alone after it focused", async () => {
    const { hook, arrive } = setup([gcLog("parsed"), ssListing("parsed")]);
    expect(hook.result.current.view.range).not.toBeNull();
    act(() => hook.result.current.setView({ range: null }));
    await arrive([gcLog("parsed"), ssListing("parsed"), artifact({ id: "ss2", time_start_ms: UPLOADED, time_end_ms: UPLOADED, placed_at_upload: true })]);
    expect(hook.result.current.view.range).toBeNull();
  });

  it("never moves a page opened on a link's range", async () => {
    const linked = { from: GC_FROM, to: GC_FROM + 60_000 };
    const { hook, arrive } = setup([], { range: linked, finding: null });
    await arrive([gcLog("parsed"), ssListing("parsed")]);
    expect(hook.result.current.view.range).toEqual(linked);
    expect(hook.result.current.focus).toBeNull();
  });

  it("names the range as the data's part after a reload on the range it chose", async () => {
    // The page chose a range (kept in the URL); a reload opens on that link.
    const first = setup([gcLog("parsed"), ssListing("parsed")]);
    const chosen = first.hook.result.current.view.range!;
    expect(chosen).not.toBeNull();
    const reloaded = setup([gcLog("parsed"), ssListing("parsed")], { range: chosen, finding: null });
    expect(reloaded.hook.result.current.view.range).toEqual(chosen);
    expect(reloaded.hook.result.current.focus).toMatchObject({ inside: 1, outside: 1 });
    // Zoomed after the reload: no longer the data's part.
    act(() => reloaded.hook.result.current.setView({ range: { from: GC_FROM, to: GC_FROM + 1000 } }));
    expect(reloaded.hook.result.current.view.range).toEqual({ from: GC_FROM, to: GC_FROM + 1000 });
  });
});
