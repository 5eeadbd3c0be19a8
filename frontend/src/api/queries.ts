/**
 * TanStack Query hooks: server state lives here only. An incident's keys start with its api base
 * (`[apiBase, what]`, the timeline's too), so invalidating `[apiBase]` refreshes all of it; the
 * incident list is `["incidents", ...]`.
 */
import { useEffect, useRef } from "react";
import {
  type Query,
  type QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type UseQueryResult,
} from "@tanstack/react-query";
import { api, ApiError, type Schemas, unwrap, unwrapEmpty } from "./client";
import { parseApiBase, readGet } from "./reads";
import type {
  ActionItem,
  ActionItemCreate,
  ActionItemPage,
  ActionItemUpdate,
  ActionStatus,
  Annotation,
  AnnotationCreate,
  Artifact,
  Checklist,
  Comparison,
  Incident,
  IncidentCreate,
  IncidentPage,
  IncidentUpdate,
  Me,
  Postmortem,
  PostmortemSection,
  PostmortemStatus,
  Revision,
  SectionKey,
  ShareCreated,
  ShareRead,
  SharedIncident,
  ShareView,
  TokenCreated,
  TokenRead,
  TokenScope,
  UploadResult,
  Verdict,
} from "./types";
import { isQueued } from "./types";

export const incidentBase = (id: string) => `/api/incidents/${encodeURIComponent(id)}`;
export const sharedBase = (token: string) => `/api/shared/${encodeURIComponent(token)}`;

/** The path parameter of a private incident's `apiBase` (writes exist for incidents only). */
function incidentPath(apiBase: string): { incident_id: string } {
  const base = parseApiBase(apiBase);
  if (base.incident_id === undefined) throw new Error("a shared view writes nothing");
  return { incident_id: base.incident_id };
}

function sharedPath(apiBase: string): { token: string } {
  const base = parseApiBase(apiBase);
  if (base.token === undefined) throw new Error(`not a share link: ${apiBase}`);
  return { token: base.token };
}

// ---- auth ------------------------------------------------------------------------------------

export const ME_KEY = ["auth", "me"] as const;
const TOKENS_KEY = ["tokens"] as const;
const INCIDENTS_KEY = ["incidents"] as const;
const sharesKey = (incidentId: string) => [incidentBase(incidentId), "shares"] as const;

/** The signed-in user (401 when there is none). */
export function useMe(): UseQueryResult<Me, ApiError> {
  return useQuery<Me, ApiError>({
    queryKey: ME_KEY,
    queryFn: ({ signal }) => unwrap(api.GET("/api/auth/me", { signal })),
    retry: false,
    staleTime: 60_000,
  });
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation<Me, ApiError, { username: string; password: string }>({
    mutationFn: (body) => unwrap(api.POST("/api/auth/login", { body })),
    onSuccess: (me) => {
      client.clear();
      client.setQueryData(ME_KEY, me);
    },
  });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation<void, ApiError>({
    mutationFn: () => unwrapEmpty(api.POST("/api/auth/logout")),
    onSettled: () => client.clear(),
  });
}

export function useChangePassword() {
  const client = useQueryClient();
  return useMutation<
    void,
    ApiError,
    { current_password: string | null; new_password: string }
  >({
    mutationFn: (body) => unwrapEmpty(api.POST("/api/auth/password", { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ME_KEY }),
  });
}

// ---- tokens ----------------------------------------------------------------------------------

export function useTokens() {
  return useQuery<TokenRead[], ApiError>({
    queryKey: TOKENS_KEY,
    queryFn: ({ signal }) => unwrap(api.GET("/api/tokens", { signal })),
  });
}

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation<
    TokenCreated,
    ApiError,
    { name: string; scope: TokenScope; incident_id: string | null }
  >({
    mutationFn: (body) => unwrap(api.POST("/api/tokens", { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: TOKENS_KEY }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation<void, ApiError, TokenRead["id"]>({
    mutationFn: (id) => unwrapEmpty(api.DELETE("/api/tokens/{token_id}", { params: { path: { token_id: id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: TOKENS_KEY }),
  });
}

// ---- incidents -------------------------------------------------------------------------------

const INCIDENTS_PAGE_SIZE = 50;

export function useIncidents(q: string, page: number) {
  return useQuery<IncidentPage, ApiError>({
    queryKey: [...INCIDENTS_KEY, q, page],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/incidents", {
          params: { query: { q: q || undefined, limit: INCIDENTS_PAGE_SIZE, offset: page * INCIDENTS_PAGE_SIZE } },
          signal,
        }),
      ),
    placeholderData: (previous) => previous,
  });
}

export function useIncident(apiBase: string) {
  return useQuery<Incident, ApiError>({
    queryKey: [apiBase, "incident"],
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/incidents/{incident_id}", { params: { path: incidentPath(apiBase) }, signal })),
  });
}

export function useSharedIncident(apiBase: string) {
  return useQuery<SharedIncident, ApiError>({
    queryKey: [apiBase, "share-info"],
    queryFn: ({ signal }) => unwrap(api.GET("/api/shared/{token}", { params: { path: sharedPath(apiBase) }, signal })),
    retry: false,
  });
}

export function useCreateIncident() {
  const client = useQueryClient();
  return useMutation<Incident, ApiError, IncidentCreate>({
    mutationFn: (body) => unwrap(api.POST("/api/incidents", { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: INCIDENTS_KEY }),
  });
}

export function useUpdateIncident(id: string) {
  const client = useQueryClient();
  return useMutation<Incident, ApiError, IncidentUpdate>({
    mutationFn: (body) => unwrap(api.PATCH("/api/incidents/{incident_id}", { params: { path: { incident_id: id } }, body })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
      // A new timezone changes how zone-less artifacts are read: refresh everything.
      void client.invalidateQueries({ queryKey: [incidentBase(id)] });
    },
  });
}

export function useDeleteIncident() {
  const client = useQueryClient();
  return useMutation<void, ApiError, string>({
    mutationFn: (id) => unwrapEmpty(api.DELETE("/api/incidents/{incident_id}", { params: { path: { incident_id: id } } })),
    onSuccess: (_data, id) => {
      client.removeQueries({ queryKey: [incidentBase(id)] });
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
    },
  });
}

// ---- artifacts -------------------------------------------------------------------------------

const artifactsKey = (apiBase: string) => [apiBase, "artifacts"] as const;

/** How often the artifacts list is read again while anything of the incident is queued. */
export const PARSE_POLL_MS = 1000;

/** The artifacts list's refetch interval: poll while anything is queued, not at all otherwise. */
export function parsePollInterval(artifacts: readonly Artifact[] | undefined): number | false {
  return artifacts?.some(isQueued) ? PARSE_POLL_MS : false;
}

/**
 * Whether a parse landed between two reads of the artifacts list: an artifact is done now that
 * was queued before, was not listed yet (a small file can be parsed between two polls) or has
 * been parsed again. No previous read means nothing to compare: all of it is being read anyway.
 */
export function parseFinished(previous: readonly Artifact[] | undefined, current: readonly Artifact[]): boolean {
  if (!previous) return false;
  const before = new Map(previous.map((artifact) => [artifact.id, artifact]));
  return current.some((artifact) => {
    if (isQueued(artifact)) return false;
    const was = before.get(artifact.id);
    return !was || isQueued(was) || was.parsed_at_ms !== artifact.parsed_at_ms;
  });
}

/** `list` with `updates` in place of the artifacts of the same id, and the new ones added. */
export function mergeArtifacts(list: readonly Artifact[], updates: readonly Artifact[]): Artifact[] {
  const byId = new Map(updates.map((artifact) => [artifact.id, artifact]));
  const merged = list.map((artifact) => byId.get(artifact.id) ?? artifact);
  const known = new Set(list.map((artifact) => artifact.id));
  return merged.concat(updates.filter((artifact) => !known.has(artifact.id)));
}

/**
 * After an upload or a re-parse (answered at once, its artifacts `pending`): their rows show the
 * queue straight away and the list starts polling. Parsed data follows as parses finish.
 */
export function artifactsQueued(client: QueryClient, apiBase: string, result: UploadResult): void {
  client.setQueryData<Artifact[]>(artifactsKey(apiBase), (list) => list && mergeArtifacts(list, result.artifacts));
  // Also cancels a poll that was under way, whose answer would predate this write.
  void client.invalidateQueries({ queryKey: artifactsKey(apiBase) });
  void client.invalidateQueries({ queryKey: [apiBase, "incident"] });
  void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
}

/** What parsed data feeds, by the second part of an incident's (or a share's) query keys. */
const PARSED_DATA = new Set(["series", "timeline", "events", "checklist", "incident", "share-info"]);

/** Whether `query` holds what parses feed: `apiBase`'s parsed data, or the incident list. */
function fedByParses(apiBase: string): (query: Query) => boolean {
  return ({ queryKey: [first, what] }) =>
    first === INCIDENTS_KEY[0] || (first === apiBase && PARSED_DATA.has(what as string));
}

/** While parses keep landing, parsed data is read again at most this often (the last one at once). */
export const PARSED_REFRESH_MS = 5000;

/**
 * After a read of the artifacts list. A parse that landed marks what parses feed stale; once
 * nothing is queued it is all read again at once. While more is queued, stale data on screen is
 * read again once its last read is `PARSED_REFRESH_MS` old: a big upload lands a parse every
 * poll, and each read of the series list and the timeline is megabytes on a large incident. The
 * bookkeeping is the query cache's own (which data is stale, when it was last read), so it goes
 * with the client and with each query: there is no state of its own to keep or reset.
 */
export function refreshParsedData(
  client: QueryClient,
  apiBase: string,
  finished: boolean,
  stillQueued: boolean,
  nowMs = Date.now(),
): void {
  const fed = fedByParses(apiBase);
  if (finished) void client.invalidateQueries({ predicate: fed, refetchType: stillQueued ? "none" : "active" });
  if (!stillQueued) return;
  void client.refetchQueries(
    {
      type: "active",
      predicate: (query) =>
        fed(query) && query.state.isInvalidated && nowMs - query.state.dataUpdatedAt >= PARSED_REFRESH_MS,
    },
    // A read under way is awaited, not restarted: one longer than the poll would never finish.
    { cancelRefetch: false },
  );
}

export function useArtifacts(apiBase: string) {
  return useQuery<Artifact[], ApiError>({
    queryKey: artifactsKey(apiBase),
    queryFn: async ({ client, signal }) => {
      const artifacts = await readGet(apiBase, "/artifacts", { signal });
      // Compared here, once per read, however many components show the list.
      const finished = parseFinished(client.getQueryData<Artifact[]>(artifactsKey(apiBase)), artifacts);
      refreshParsedData(client, apiBase, finished, artifacts.some(isQueued));
      return artifacts;
    },
    // A refused read (a revoked share, a deleted incident) will not change by asking again.
    refetchInterval: (query) =>
      query.state.error && query.state.error.status >= 400 && query.state.error.status < 500
        ? false
        : parsePollInterval(query.state.data),
  });
}

export type ReparseOptions = Schemas["ReparseOptions"];

/** Re-parse an artifact, with the upload's options changed first (those given; `null` clears one). */
export function useReparse(apiBase: string) {
  const client = useQueryClient();
  return useMutation<UploadResult, ApiError, { artifactId: string; options?: ReparseOptions }>({
    mutationFn: ({ artifactId, options }) =>
      unwrap(
        api.POST("/api/incidents/{incident_id}/artifacts/{artifact_id}/reparse", {
          params: { path: { ...incidentPath(apiBase), artifact_id: artifactId } },
          body: options ?? null,
        }),
      ),
    onSuccess: (result) => artifactsQueued(client, apiBase, result),
  });
}

// ---- checklist -------------------------------------------------------------------------------

export function useChecklist(apiBase: string) {
  return useQuery<Checklist, ApiError>({
    queryKey: [apiBase, "checklist"],
    queryFn: ({ signal }) => readGet(apiBase, "/checklist", { signal }),
  });
}

export function useReviewFinding(apiBase: string) {
  const client = useQueryClient();
  return useMutation<
    unknown,
    ApiError,
    { findingId: string; verdict_override: Verdict | null; note: string; author: string }
  >({
    mutationFn: ({ findingId, ...body }) =>
      unwrap(
        api.PATCH("/api/incidents/{incident_id}/checklist/{finding_id}", {
          params: { path: { ...incidentPath(apiBase), finding_id: findingId } },
          body,
        }),
      ),
    // A review changes verdicts (the checklist, the incident's top causes), not the timeline's data.
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: [apiBase, "checklist"] });
      void client.invalidateQueries({ queryKey: [apiBase, "incident"] });
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
    },
  });
}

// ---- annotations -----------------------------------------------------------------------------

/** Shared with the timeline's annotation markers: a change here redraws them too. */
const annotationsKey = (apiBase: string) => [apiBase, "annotations"] as const;

export function useAnnotations(apiBase: string) {
  return useQuery<Annotation[], ApiError>({
    queryKey: annotationsKey(apiBase),
    queryFn: ({ signal }) => readGet(apiBase, "/annotations", { signal }),
  });
}

export function useCreateAnnotation(apiBase: string) {
  const client = useQueryClient();
  return useMutation<Annotation, ApiError, AnnotationCreate>({
    mutationFn: (body) =>
      unwrap(api.POST("/api/incidents/{incident_id}/annotations", { params: { path: incidentPath(apiBase) }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: annotationsKey(apiBase) }),
  });
}

export function useDeleteAnnotation(apiBase: string) {
  const client = useQueryClient();
  return useMutation<void, ApiError, number>({
    mutationFn: (annotationId) =>
      unwrapEmpty(
        api.DELETE("/api/incidents/{incident_id}/annotations/{annotation_id}", {
          params: { path: { ...incidentPath(apiBase), annotation_id: annotationId } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: annotationsKey(apiBase) }),
  });
}

// ---- shares ----------------------------------------------------------------------------------

export function useShares(incidentId: string) {
  return useQuery<ShareRead[], ApiError>({
    queryKey: sharesKey(incidentId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/incidents/{incident_id}/shares", { params: { path: { incident_id: incidentId } }, signal })),
  });
}

export function useCreateShare(incidentId: string) {
  const client = useQueryClient();
  return useMutation<
    ShareCreated,
    ApiError,
    { label: string; expires_at_ms: number | null; allow_raw: boolean; redacted: boolean; view: ShareView | null }
  >({
    mutationFn: (body) =>
      unwrap(api.POST("/api/incidents/{incident_id}/shares", { params: { path: { incident_id: incidentId } }, body })),
    onSuccess: () =>
      client.invalidateQueries({ queryKey: sharesKey(incidentId) }),
  });
}

export function useRevokeShare(incidentId: string) {
  const client = useQueryClient();
  return useMutation<void, ApiError, ShareRead["id"]>({
    mutationFn: (shareId) =>
      unwrapEmpty(
        api.DELETE("/api/incidents/{incident_id}/shares/{share_id}", {
          params: { path: { incident_id: incidentId, share_id: shareId } },
        }),
      ),
    onSuccess: () =>
      client.invalidateQueries({ queryKey: sharesKey(incidentId) }),
  });
}

// ---- postmortem ------------------------------------------------------------------------------

/** The incident behind a private `apiBase` (a share link reads, never writes). */
function editable(apiBase: string): { incident_id: string } {
  const base = parseApiBase(apiBase);
  if (base.incident_id === undefined) throw new Error("a share link is read-only");
  return { incident_id: base.incident_id };
}

export const postmortemKey = (apiBase: string) => [apiBase, "postmortem"] as const;

/** The incident's postmortem, or null while none is drafted (at a share link: published). */
export function usePostmortem(apiBase: string, options: { refetchMs?: number } = {}) {
  return useQuery<Postmortem | null, ApiError>({
    queryKey: postmortemKey(apiBase),
    queryFn: async ({ signal }) => {
      try {
        return await readGet(apiBase, "/postmortem", { signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404 && error.code.startsWith("postmortem_")) return null;
        throw error;
      }
    },
    // Others' edits show up while the page is open.
    refetchInterval: options.refetchMs ?? false,
  });
}

export function useCreatePostmortem(apiBase: string) {
  const client = useQueryClient();
  return useMutation<Postmortem, ApiError>({
    mutationFn: () => unwrap(api.POST("/api/incidents/{incident_id}/postmortem", { params: { path: editable(apiBase) } })),
    onSuccess: (postmortem) => client.setQueryData(postmortemKey(apiBase), postmortem),
  });
}

export function useSetPostmortemStatus(apiBase: string) {
  const client = useQueryClient();
  return useMutation<Postmortem, ApiError, { status: PostmortemStatus; version: number }>({
    mutationFn: (body) => unwrap(api.PATCH("/api/incidents/{incident_id}/postmortem", { params: { path: editable(apiBase) }, body })),
    onSuccess: (postmortem) => {
      client.setQueryData(postmortemKey(apiBase), postmortem);
      void client.invalidateQueries({ queryKey: [apiBase, "incident"] });
      void client.invalidateQueries({ queryKey: [apiBase, "revisions"] });
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
    },
    // A conflict: someone else moved it; show what it is now.
    onError: () => client.invalidateQueries({ queryKey: postmortemKey(apiBase) }),
  });
}

/** Save one section's text edited from `version` (409 `postmortem_conflict` when it is older). */
export function saveSection(
  apiBase: string,
  key: SectionKey,
  body: { text: string; version: number },
  keepalive = false,
): Promise<PostmortemSection> {
  return unwrap(
    api.PUT("/api/incidents/{incident_id}/postmortem/sections/{section}", {
      params: { path: { ...editable(apiBase), section: key } },
      body,
      // Outlives the page (a save sent as the tab closes).
      keepalive,
    }),
  );
}

/** A saved section into the cached postmortem. */
export function sectionSaved(client: QueryClient, apiBase: string, section: PostmortemSection): void {
  client.setQueryData<Postmortem | null>(postmortemKey(apiBase), (postmortem) =>
    postmortem
      ? { ...postmortem, sections: postmortem.sections.map((s) => (s.key === section.key ? section : s)) }
      : postmortem,
  );
  void client.invalidateQueries({ queryKey: [apiBase, "revisions"] });
}

export function useRevisions(apiBase: string, section: SectionKey, enabled: boolean) {
  return useQuery<Revision[], ApiError>({
    queryKey: [apiBase, "revisions", section],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/incidents/{incident_id}/postmortem/revisions", {
          params: { path: editable(apiBase), query: { section } },
          signal,
        }),
      ),
    enabled,
  });
}

// ---- action items ----------------------------------------------------------------------------

const ALL_ACTIONS_KEY = ["action-items"] as const;
const actionItemsKey = (apiBase: string) => [apiBase, "action-items"] as const;

export function useActionItems(apiBase: string) {
  return useQuery<ActionItem[], ApiError>({
    queryKey: actionItemsKey(apiBase),
    queryFn: ({ signal }) => readGet(apiBase, "/action-items", { signal }),
  });
}

export interface ActionFilters {
  owner?: string;
  status?: ActionStatus[];
  due_before?: string;
}

/** Action items across incidents, by owner then due date. */
export function useAllActionItems(filters: ActionFilters) {
  return useQuery<ActionItemPage, ApiError>({
    queryKey: [...ALL_ACTIONS_KEY, filters],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/action-items", {
          params: {
            query: { owner: filters.owner || undefined, status: filters.status, due_before: filters.due_before || undefined, limit: 1000 },
          },
          signal,
        }),
      ),
    placeholderData: (previous) => previous,
  });
}

function invalidateActionItems(client: QueryClient, apiBase: string) {
  void client.invalidateQueries({ queryKey: actionItemsKey(apiBase) });
  void client.invalidateQueries({ queryKey: ALL_ACTIONS_KEY });
}

export function useCreateActionItem(apiBase: string) {
  const client = useQueryClient();
  return useMutation<ActionItem, ApiError, ActionItemCreate>({
    mutationFn: (body) => unwrap(api.POST("/api/incidents/{incident_id}/action-items", { params: { path: editable(apiBase) }, body })),
    onSuccess: () => invalidateActionItems(client, apiBase),
  });
}

/** Changes an item of any incident (the /actions page edits items of many). */
export function useUpdateActionItem() {
  const client = useQueryClient();
  return useMutation<ActionItem, ApiError, { item: ActionItem; changes: ActionItemUpdate }>({
    mutationFn: ({ item, changes }) =>
      unwrap(
        api.PATCH("/api/incidents/{incident_id}/action-items/{item_id}", {
          params: { path: { incident_id: item.incident_id, item_id: item.id } },
          body: changes,
        }),
      ),
    onSuccess: (item) => invalidateActionItems(client, incidentBase(item.incident_id)),
  });
}

export function useDeleteActionItem() {
  const client = useQueryClient();
  return useMutation<void, ApiError, ActionItem>({
    mutationFn: (item) =>
      unwrapEmpty(
        api.DELETE("/api/incidents/{incident_id}/action-items/{item_id}", {
          params: { path: { incident_id: item.incident_id, item_id: item.id } },
        }),
      ),
    onSuccess: (_data, item) => invalidateActionItems(client, incidentBase(item.incident_id)),
  });
}

// ---- compare ---------------------------------------------------------------------------------

export interface CompareParams {
  a: string;
  b: string;
  a_from?: number;
  a_to?: number;
  b_from?: number;
  b_to?: number;
}

export function useComparison(params: CompareParams | null) {
  return useQuery<Comparison, ApiError>({
    queryKey: ["compare", params],
    queryFn: ({ signal }) => {
      const { a, b, a_from, a_to, b_from, b_to } = params!;
      const time = (ms: number | undefined) => (ms === undefined ? undefined : String(ms));
      const query = { a, b, a_from: time(a_from), a_to: time(a_to), b_from: time(b_from), b_to: time(b_to) };
      return unwrap(api.GET("/api/compare", { params: { query }, signal }));
    },
    enabled: params !== null,
  });
}

// ---- live updates ------------------------------------------------------------------------------

/** How often an open incident (or shared) page asks whether anything changed. */
export const VERSION_POLL_MS = 3000;

/**
 * Keeps a page live: polls the incident's data version (one indexed read on the server; a counter
 * bumped by uploads, parses, new findings, reviews, annotations and edits) and, when it moves,
 * invalidates everything under `apiBase`, so artifacts, lanes, markers and verdicts are read
 * again, whoever made the change (the collector's `--upload`, curl, another browser).
 *
 * Polling rather than server-sent events: the server keeps no per-client state and holds no
 * connection or thread per open page (several stateless workers, SQLite or PostgreSQL, no
 * pub/sub between processes); a hidden tab stops polling; a poll costs one small request.
 */
export function useLiveIncident(apiBase: string, enabled = true) {
  const client = useQueryClient();
  const version = useQuery<Schemas["IncidentVersion"], ApiError>({
    queryKey: [apiBase, "version"],
    queryFn: ({ signal }) => readGet(apiBase, "/version", { signal }),
    enabled,
    refetchInterval: (query) =>
      query.state.error && query.state.error.status >= 400 && query.state.error.status < 500 ? false : VERSION_POLL_MS,
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
    staleTime: 0,
    retry: false,
  });
  const current = version.data?.version;
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (current === undefined) return;
    const before = seen.current;
    seen.current = current;
    if (before !== undefined && before !== current) {
      void client.invalidateQueries({
        predicate: (query) => query.queryKey[0] === apiBase && query.queryKey[1] !== "version",
      });
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
    }
  }, [client, apiBase, current]);
  return version;
}
