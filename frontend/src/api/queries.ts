/**
 * TanStack Query hooks: server state lives here only. An incident's keys start with its api base
 * (`[apiBase, what]`, the timeline's too), so invalidating `[apiBase]` refreshes all of it; the
 * incident list is `["incidents", ...]`.
 */
import {
  type QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type UseQueryResult,
} from "@tanstack/react-query";
import { ApiError, apiGet, request } from "./client";
import type {
  Annotation,
  AnnotationCreate,
  Artifact,
  Checklist,
  Incident,
  IncidentCreate,
  IncidentPage,
  IncidentUpdate,
  Me,
  ShareCreated,
  ShareRead,
  SharedIncident,
  TokenCreated,
  TokenRead,
  TokenScope,
  Verdict,
} from "./types";

export const incidentBase = (id: string) => `/api/incidents/${encodeURIComponent(id)}`;
export const sharedBase = (token: string) => `/api/shared/${encodeURIComponent(token)}`;

// ---- auth ------------------------------------------------------------------------------------

export const ME_KEY = ["auth", "me"] as const;
const TOKENS_KEY = ["tokens"] as const;
const INCIDENTS_KEY = ["incidents"] as const;
const sharesKey = (incidentId: string) => [incidentBase(incidentId), "shares"] as const;

/** The signed-in user (401 when there is none). */
export function useMe(): UseQueryResult<Me, ApiError> {
  return useQuery<Me, ApiError>({
    queryKey: ME_KEY,
    queryFn: ({ signal }) => apiGet<Me>("/api/auth/me", undefined, signal),
    retry: false,
    staleTime: 60_000,
  });
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation<Me, ApiError, { username: string; password: string }>({
    mutationFn: (body) => request<Me>("POST", "/api/auth/login", { json: body }),
    onSuccess: (me) => {
      client.clear();
      client.setQueryData(ME_KEY, me);
    },
  });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation<void, ApiError>({
    mutationFn: () => request<void>("POST", "/api/auth/logout"),
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
    mutationFn: (body) => request<void>("POST", "/api/auth/password", { json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ME_KEY }),
  });
}

// ---- tokens ----------------------------------------------------------------------------------

export function useTokens() {
  return useQuery<TokenRead[], ApiError>({
    queryKey: TOKENS_KEY,
    queryFn: ({ signal }) => apiGet<TokenRead[]>("/api/tokens", undefined, signal),
  });
}

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation<
    TokenCreated,
    ApiError,
    { name: string; scope: TokenScope; incident_id: string | null }
  >({
    mutationFn: (body) => request<TokenCreated>("POST", "/api/tokens", { json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: TOKENS_KEY }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation<void, ApiError, TokenRead["id"]>({
    mutationFn: (id) => request<void>("DELETE", `/api/tokens/${encodeURIComponent(String(id))}`),
    onSuccess: () => client.invalidateQueries({ queryKey: TOKENS_KEY }),
  });
}

// ---- incidents -------------------------------------------------------------------------------

const INCIDENTS_PAGE_SIZE = 50;

export function useIncidents(q: string, page: number) {
  return useQuery<IncidentPage, ApiError>({
    queryKey: [...INCIDENTS_KEY, q, page],
    queryFn: ({ signal }) =>
      apiGet<IncidentPage>(
        "/api/incidents",
        { q: q || undefined, limit: INCIDENTS_PAGE_SIZE, offset: page * INCIDENTS_PAGE_SIZE },
        signal,
      ),
    placeholderData: (previous) => previous,
  });
}

export function useIncident(apiBase: string) {
  return useQuery<Incident, ApiError>({
    queryKey: [apiBase, "incident"],
    queryFn: ({ signal }) => apiGet<Incident>(apiBase, undefined, signal),
  });
}

export function useSharedIncident(apiBase: string) {
  return useQuery<SharedIncident, ApiError>({
    queryKey: [apiBase, "share-info"],
    queryFn: ({ signal }) => apiGet<SharedIncident>(apiBase, undefined, signal),
    retry: false,
  });
}

export function useCreateIncident() {
  const client = useQueryClient();
  return useMutation<Incident, ApiError, IncidentCreate>({
    mutationFn: (body) => request<Incident>("POST", "/api/incidents", { json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: INCIDENTS_KEY }),
  });
}

export function useUpdateIncident(id: string) {
  const client = useQueryClient();
  return useMutation<Incident, ApiError, IncidentUpdate>({
    mutationFn: (body) => request<Incident>("PATCH", incidentBase(id), { json: body }),
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
    mutationFn: (id) => request<void>("DELETE", incidentBase(id)),
    onSuccess: (_data, id) => {
      client.removeQueries({ queryKey: [incidentBase(id)] });
      void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
    },
  });
}

// ---- artifacts -------------------------------------------------------------------------------

/**
 * After an upload or a re-parse: points, events, the checklist and the incident's window all
 * change under `apiBase`, and so do the list's counts and top causes.
 */
export function artifactsChanged(client: QueryClient, apiBase: string): void {
  void client.invalidateQueries({ queryKey: [apiBase] });
  void client.invalidateQueries({ queryKey: INCIDENTS_KEY });
}

export function useArtifacts(apiBase: string) {
  return useQuery<Artifact[], ApiError>({
    queryKey: [apiBase, "artifacts"],
    queryFn: ({ signal }) => apiGet<Artifact[]>(`${apiBase}/artifacts`, undefined, signal),
  });
}

export function useReparse(apiBase: string) {
  const client = useQueryClient();
  return useMutation<Artifact, ApiError, string>({
    mutationFn: (artifactId) =>
      request<Artifact>("POST", `${apiBase}/artifacts/${encodeURIComponent(artifactId)}/reparse`),
    onSuccess: () => artifactsChanged(client, apiBase),
  });
}

// ---- checklist -------------------------------------------------------------------------------

export function useChecklist(apiBase: string) {
  return useQuery<Checklist, ApiError>({
    queryKey: [apiBase, "checklist"],
    queryFn: ({ signal }) => apiGet<Checklist>(`${apiBase}/checklist`, undefined, signal),
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
      request("PATCH", `${apiBase}/checklist/${encodeURIComponent(findingId)}`, { json: body }),
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
    queryFn: ({ signal }) => apiGet<Annotation[]>(`${apiBase}/annotations`, undefined, signal),
  });
}

export function useCreateAnnotation(apiBase: string) {
  const client = useQueryClient();
  return useMutation<Annotation, ApiError, AnnotationCreate>({
    mutationFn: (body) => request<Annotation>("POST", `${apiBase}/annotations`, { json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: annotationsKey(apiBase) }),
  });
}

export function useDeleteAnnotation(apiBase: string) {
  const client = useQueryClient();
  return useMutation<void, ApiError, number>({
    mutationFn: (annotationId) =>
      request<void>("DELETE", `${apiBase}/annotations/${annotationId}`),
    onSuccess: () => client.invalidateQueries({ queryKey: annotationsKey(apiBase) }),
  });
}

// ---- shares ----------------------------------------------------------------------------------

export function useShares(incidentId: string) {
  return useQuery<ShareRead[], ApiError>({
    queryKey: sharesKey(incidentId),
    queryFn: ({ signal }) =>
      apiGet<ShareRead[]>(`${incidentBase(incidentId)}/shares`, undefined, signal),
  });
}

export function useCreateShare(incidentId: string) {
  const client = useQueryClient();
  return useMutation<
    ShareCreated,
    ApiError,
    { label: string; expires_at_ms: number | null; allow_raw: boolean }
  >({
    mutationFn: (body) =>
      request<ShareCreated>("POST", `${incidentBase(incidentId)}/shares`, { json: body }),
    onSuccess: () =>
      client.invalidateQueries({ queryKey: sharesKey(incidentId) }),
  });
}

export function useRevokeShare(incidentId: string) {
  const client = useQueryClient();
  return useMutation<void, ApiError, ShareRead["id"]>({
    mutationFn: (shareId) =>
      request<void>(
        "DELETE",
        `${incidentBase(incidentId)}/shares/${encodeURIComponent(String(shareId))}`,
      ),
    onSuccess: () =>
      client.invalidateQueries({ queryKey: sharesKey(incidentId) }),
  });
}
