import { QueryClient, QueryClientProvider, QueryObserver } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, type Mock, vi } from "vitest";
import { artifact } from "../test/fixtures";
import {
  mergeArtifacts,
  PARSE_POLL_MS,
  parseFinished,
  PARSED_REFRESH_MS,
  parsePollInterval,
  refreshParsedData,
  useArtifacts,
  useCreateAnnotation,
  useReparse,
  useReviewFinding,
} from "./queries";
import type { Artifact } from "./types";

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
  return { client, wrapper, stale };
}

afterEach(() => vi.unstubAllGlobals());

/** Waits past the next poll's time and checks that it did not happen. */
async function expectNoMorePolls(fetch: Mock) {
  const calls = fetch.mock.calls.length;
  await new Promise((resolve) => setTimeout(resolve, PARSE_POLL_MS * 1.5));
  expect(fetch.mock.calls.length).toBe(calls);
}

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

describe("polling while files are parsed", () => {
  const pending = artifact({ id: "a", status: "pending", parsed_at_ms: null, kind: "unknown" });
  const parsing = { ...pending, status: "parsing" as const };
  const parsed = artifact({ id: "a", parsed_at_ms: 10 });

  it("polls about every second while anything is pending or parsing, and not otherwise", () => {
    expect(PARSE_POLL_MS).toBeGreaterThanOrEqual(500);
    expect(PARSE_POLL_MS).toBeLessThanOrEqual(2000);
    expect(parsePollInterval([parsed, artifact({ id: "b", status: "pending" })])).toBe(PARSE_POLL_MS);
    expect(parsePollInterval([artifact({ id: "b", status: "parsing" })])).toBe(PARSE_POLL_MS);
    expect(parsePollInterval([parsed, artifact({ id: "f", status: "failed" }), artifact({ id: "p", status: "partial" })])).toBe(false);
    expect(parsePollInterval([])).toBe(false);
    expect(parsePollInterval(undefined)).toBe(false);
  });

  it("sees a parse finish when a queued artifact is done, a done one appears, or one is parsed again", () => {
    // The first read has nothing to compare with.
    expect(parseFinished(undefined, [parsed])).toBe(false);
    // Still queued, or moving along the queue: nothing new to show.
    expect(parseFinished([pending], [pending])).toBe(false);
    expect(parseFinished([pending], [parsing])).toBe(false);
    expect(parseFinished([parsed], [parsed])).toBe(false);
    // A new upload shows up queued: nothing parsed yet.
    expect(parseFinished([parsed], [parsed, artifact({ id: "b", status: "pending" })])).toBe(false);
    // Done, with any result.
    expect(parseFinished([parsing], [parsed])).toBe(true);
    expect(parseFinished([pending], [{ ...parsed, status: "failed" }])).toBe(true);
    // A bundle unpacked: the bundle is done, its members queued.
    const bundle = artifact({ id: "b", kind: "bundle", status: "pending", parsed_at_ms: null });
    const member = artifact({ id: "m", parent_id: "b", status: "pending", parsed_at_ms: null });
    expect(parseFinished([bundle], [{ ...bundle, status: "parsed", parsed_at_ms: 5 }, member])).toBe(true);
    // Parsed between two polls, never seen queued.
    expect(parseFinished([], [parsed])).toBe(true);
    // A re-parse that landed between two polls.
    expect(parseFinished([parsed], [{ ...parsed, parsed_at_ms: 20 }])).toBe(true);
  });

  it("spaces reads while parses keep landing, and reads everything when the last one lands", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
    const now = Date.now();
    const reads: string[] = [];
    // On screen (observed), last read at `readAtMs`.
    const shown = (what: string, readAtMs: number) => {
      client.setQueryData([base, what], {}, { updatedAt: readAtMs });
      const observer = new QueryObserver(client, {
        queryKey: [base, what],
        queryFn: async () => {
          reads.push(what);
          return {};
        },
      });
      return observer.subscribe(() => {});
    };
    const unsubscribe = [shown("checklist", now - 1000), shown("series", now - PARSED_REFRESH_MS)];
    const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

    refreshParsedData(client, base, true, true, now);
    await settled();
    expect(reads).toEqual(["series"]);
    // Owed: read again by a later poll, once due, even if nothing new landed.
    expect(client.getQueryState([base, "checklist"])?.isInvalidated).toBe(true);
    refreshParsedData(client, base, false, true, now + PARSED_REFRESH_MS);
    await settled();
    expect(reads).toEqual(["series", "checklist"]);

    reads.length = 0;
    refreshParsedData(client, base, true, false, now + PARSED_REFRESH_MS + 1);
    await settled();
    expect(reads.sort()).toEqual(["checklist", "series"]);
    unsubscribe.forEach((stop) => stop());
  });

  it("merges an upload's or a re-parse's answer into the list", () => {
    const other = artifact({ id: "o" });
    const added = artifact({ id: "n", status: "pending" });
    expect(mergeArtifacts([parsed, other], [pending, added]).map((a) => [a.id, a.status])).toEqual([
      ["a", "pending"],
      ["o", "parsed"],
      ["n", "pending"],
    ]);
  });

  it("marks what parsed data feeds, the shared page's incident too, not the annotations or other incidents", () => {
    const client = new QueryClient();
    const shared = "/api/shared/t";
    const keys = [
      [shared, "share-info"],
      [shared, "series", "all"],
      [shared, "timeline", "1", null, null, 800],
      [shared, "events", null, null, null],
      [shared, "checklist"],
      [shared, "annotations"],
      [shared, "artifacts"],
      ["/api/shared/other", "checklist"],
      ["incidents", "", 0],
    ];
    for (const key of keys) client.setQueryData(key, {});
    refreshParsedData(client, shared, true, true);
    expect(keys.filter((key) => client.getQueryState(key)?.isInvalidated).map((key) => key.slice(0, 2).join(" "))).toEqual([
      `${shared} share-info`,
      `${shared} series`,
      `${shared} timeline`,
      `${shared} events`,
      `${shared} checklist`,
      "incidents ",
    ]);
  });

  it("polls the list until the parse is done, then refreshes the parsed data once and stops", async () => {
    const { client, wrapper, stale } = setup();
    client.removeQueries({ queryKey: [base, "artifacts"] }); // a first visit: not read yet
    const answers: Artifact[][] = [[pending], [parsing], [parsed]];
    const fetch = vi.fn(async () => Response.json(answers.length > 1 ? answers.shift() : answers[0]));
    vi.stubGlobal("fetch", fetch);
    const { result, unmount } = renderHook(() => useArtifacts(base), { wrapper });

    await waitFor(() => expect(result.current.data?.[0]?.status).toBe("pending"));
    expect(stale()).toEqual([]);
    await waitFor(() => expect(result.current.data?.[0]?.status).toBe("parsing"), { timeout: 3000 });
    expect(stale()).toEqual([]);
    await waitFor(() => expect(result.current.data?.[0]?.status).toBe("parsed"), { timeout: 3000 });
    expect(stale()).toEqual(["incidents ", `${base} incident`, `${base} checklist`, `${base} series`, `${base} timeline`]);

    await expectNoMorePolls(fetch);
    unmount();
  }, 10_000);

  it("stops polling when the list is refused (a revoked share)", async () => {
    const { client, wrapper } = setup();
    client.removeQueries({ queryKey: [base, "artifacts"] });
    const answers = [Response.json([pending])];
    const fetch = vi.fn(async () => answers.shift() ?? Response.json({ code: "share_not_found", message: "gone" }, { status: 404 }));
    vi.stubGlobal("fetch", fetch);
    const { result, unmount } = renderHook(() => useArtifacts(base), { wrapper });
    await waitFor(() => expect(result.current.error?.status).toBe(404), { timeout: 3000 });
    await expectNoMorePolls(fetch);
    unmount();
  }, 10_000);

  it("a re-parse shows its artifacts queued at once and leaves the parsed data until it lands", async () => {
    const { client, wrapper, stale } = setup();
    client.setQueryData([base, "artifacts"], [parsed]);
    vi.stubGlobal("fetch", vi.fn(async () => Response.json({ artifacts: [pending], created: [false] }, { status: 202 })));
    const { result } = renderHook(() => useReparse(base), { wrapper });
    result.current.mutate({ artifactId: "a" });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(client.getQueryData<Artifact[]>([base, "artifacts"])?.map((a) => a.status)).toEqual(["pending"]);
    expect(stale()).toEqual(["incidents ", `${base} incident`, `${base} artifacts`]);
  });
});
