import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useCreateAnnotation, useReviewFinding } from "./queries";

// Which cached queries a write marks stale. The network is stubbed: what is under test is the
// cache keys (the e2e suite runs the same writes against the real server).
const base = "/api/incidents/i1";
const seeded = [
  ["incidents", "", 0],
  [base, "incident"],
  [base, "checklist"],
  [base, "annotations"],
  [base, "artifacts"],
  [base, "series", "all"],
  [base, "timeline", "1,2", null, null, 800],
  ["/api/incidents/other", "checklist"],
];

function setup() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  for (const key of seeded) client.setQueryData(key, {});
  vi.stubGlobal("fetch", vi.fn(async () => new Response("{}", { status: 200 })));
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const stale = () =>
    seeded.filter((key) => client.getQueryState(key)?.isInvalidated).map((key) => key.slice(0, 2).join(" "));
  return { wrapper, stale };
}

afterEach(() => vi.unstubAllGlobals());

describe("invalidation after writes", () => {
  it("a review refreshes the checklist, the incident and the list's top causes, not the timeline", async () => {
    const { wrapper, stale } = setup();
    const { result } = renderHook(() => useReviewFinding(base), { wrapper });
    result.current.mutate({ findingId: "f", verdict_override: null, note: "", author: "" });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(stale()).toEqual(["incidents ", `${base} incident`, `${base} checklist`]);
  });

  it("an annotation refreshes the annotations (the list and the timeline's markers) only", async () => {
    const { wrapper, stale } = setup();
    const { result } = renderHook(() => useCreateAnnotation(base), { wrapper });
    result.current.mutate({ text: "x", from_ms: 1, to_ms: null, author: "", host: null });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(stale()).toEqual([`${base} annotations`]);
  });
});
