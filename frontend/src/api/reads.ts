/**
 * The read routes an incident and a share link both serve (each backend domain's `read_routes`:
 * `/api/incidents/{incident_id}/events` and `/api/shared/{token}/events` are one function), called
 * with an `apiBase` ("/api/incidents/<id>" or "/api/shared/<token>") and typed from the OpenAPI
 * document: the suffix must be a shared read route, and query, path parameters and answer are
 * those of the incident's route of the same suffix.
 */
import { api, unwrap } from "./client";
import type { paths } from "./schema";

type SharedReadPath = Extract<keyof paths, `/api/shared/{token}/${string}`>;
/** "/events", "/events/{event_id}/threads", "/timeline", "/version" ... */
export type ReadSuffix = SharedReadPath extends `/api/shared/{token}${infer Suffix}` ? Suffix : never;

type PrivatePath<S extends ReadSuffix> = `/api/incidents/{incident_id}${S}` & keyof paths;
type Operation<S extends ReadSuffix> = paths[PrivatePath<S>]["get"];
type Parameters<S extends ReadSuffix> = Operation<S> extends { parameters: infer P } ? P : never;
type QueryOf<S extends ReadSuffix> = Parameters<S> extends { query?: infer Q } ? Q : never;
type PathOf<S extends ReadSuffix> = Parameters<S> extends { path: infer P } ? Omit<P, "incident_id"> : never;
export type ReadData<S extends ReadSuffix> = Operation<S> extends {
  responses: { 200: { content: { "application/json": infer D } } };
}
  ? D
  : never;

export interface ReadOptions<S extends ReadSuffix> {
  query?: QueryOf<S>;
  /** The suffix's own path parameters (`event_id`), not the base's. */
  path?: PathOf<S>;
  signal?: AbortSignal;
}

/** Which base: an incident (by id) or a share link (by token). */
export type Base = { incident_id: string; token?: never } | { token: string; incident_id?: never };

export function parseApiBase(apiBase: string): Base {
  const shared = /^\/api\/shared\/([^/]+)$/.exec(apiBase);
  if (shared) return { token: decodeURIComponent(shared[1]!) };
  const incident = /^\/api\/incidents\/([^/]+)$/.exec(apiBase);
  if (incident) return { incident_id: decodeURIComponent(incident[1]!) };
  throw new Error(`not an API base: ${apiBase}`);
}

/** GET a read route of the incident or share behind `apiBase`. */
export function readGet<S extends ReadSuffix>(apiBase: string, suffix: S, options: ReadOptions<S> = {}): Promise<ReadData<S>> {
  const base = parseApiBase(apiBase);
  const template = base.token !== undefined ? `/api/shared/{token}${suffix}` : `/api/incidents/{incident_id}${suffix}`;
  // The two templates are one backend function: the incident route's types describe both. A
  // generic suffix cannot pick openapi-fetch's overload, hence the one widening here.
  const get = api.GET as unknown as (
    path: string,
    init: { params: { path: Record<string, unknown>; query?: unknown }; signal?: AbortSignal },
  ) => Promise<{ data?: ReadData<S>; error?: unknown; response: Response }>;
  return unwrap(
    get(template, {
      params: { path: { ...options.path, ...base }, query: options.query },
      signal: options.signal,
    }),
  );
}
