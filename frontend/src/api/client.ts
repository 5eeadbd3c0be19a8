/**
 * The one way the app talks to the API: `openapi-fetch` over the generated `paths` (schema.d.ts,
 * `npm run api-types`), so every call's path, parameters, body and answer are typed from the
 * OpenAPI document. Same origin, cookies, CSRF header on writes; errors become `ApiError`s read
 * from the API's error body (`{code, message}`, plus `errors[]` naming each field on a 422).
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type FieldProblem = Schemas["FieldProblem"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A 422's problems, each naming its field (`loc` like `["body", "jvm_start"]`). */
    readonly fields: readonly FieldProblem[] = [],
    /** The whole JSON body (a 409 carries what is stored now). */
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** What is wrong with `field` (the last part of a problem's `loc`), if the API said. */
  problemWith(field: string): string | undefined {
    return this.fields.find((problem) => fieldName(problem) === field)?.message;
  }
}

/** The field a problem names: `jvm_start` for `["body", "jvm_start"]`, `files.0.filename` deeper. */
export function fieldName(problem: FieldProblem): string {
  const parts = problem.loc.filter((part, index) => !(index === 0 && typeof part === "string" && LOCATIONS.has(part)));
  return parts.join(".") || String(problem.loc[0] ?? "");
}

const LOCATIONS = new Set(["body", "query", "path", "header", "cookie"]);

export function csrfToken(): string | null {
  const match = document.cookie.match(/(?:^|;\s*)rootline_csrf=([^;]+)/);
  return match ? decodeURIComponent(match[1]!) : null;
}

/**
 * Called when the API answers 401 to a request that needed a signed-in user (the app sends the
 * browser to /login). Public routes (login itself, shared links) never trigger it.
 */
let unauthorizedHandler: ((error: ApiError) => void) | null = null;

export function setUnauthorizedHandler(handler: ((error: ApiError) => void) | null): void {
  unauthorizedHandler = handler;
}

export function isPublicPath(path: string): boolean {
  return path.startsWith("/api/shared/") || path === "/api/auth/login" || path === "/api/health";
}

/** Report a 401 from a private route to the app (shared with the XHR upload path). */
export function reportUnauthorized(path: string, error: ApiError): void {
  if (error.status === 401 && !isPublicPath(path)) unauthorizedHandler?.(error);
}

/** The API's error (`{code, message, errors?}`) from a parsed body, or a fallback from the status. */
export function errorFromJson(status: number, statusText: string, body: unknown): ApiError {
  let code = "http_error";
  let message = `${status} ${statusText}`.trim();
  let fields: FieldProblem[] = [];
  if (body && typeof body === "object") {
    const shape = body as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof shape.code === "string") code = shape.code;
    if (typeof shape.message === "string") message = shape.message;
    if (Array.isArray(shape.errors)) {
      fields = shape.errors.filter(
        (problem): problem is FieldProblem =>
          !!problem && Array.isArray((problem as FieldProblem).loc) && typeof (problem as FieldProblem).message === "string",
      );
      // "the request is not valid" says nothing: name the field and what is wrong with it.
      if (fields.length > 0) {
        message = fields.map((problem) => `${fieldName(problem)}: ${problem.message}`).join("; ");
      }
    }
  }
  return new ApiError(status, code, message, fields, body);
}

/** The API's error from any response-like text (the XHR upload path reads text). */
export function errorFromBody(status: number, statusText: string, text: string): ApiError {
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): the status line is the best there is.
  }
  return errorFromJson(status, statusText, body);
}

/** A message for any thrown value, for error states. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const csrfHeader: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method)) {
      const token = csrfToken();
      if (token) request.headers.set("X-CSRF-Token", token);
    }
    return request;
  },
};

const unauthorized: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401) {
      reportUnauthorized(new URL(request.url).pathname, new ApiError(401, "unauthenticated", "Sign in again"));
    }
    return response;
  },
};

/** The typed client. `fetch` is looked up per call (tests stub it); the base is this origin. */
export const api = createClient<paths>({
  baseUrl: typeof window === "undefined" ? "" : window.location.origin,
  credentials: "same-origin",
  fetch: (request) => globalThis.fetch(request),
});
api.use(csrfHeader, unauthorized);

/** What every openapi-fetch call answers. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a call, or the `ApiError` its answer describes. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromJson(response.status, response.statusText, error);
  return data as NonNullable<T>;
}

/** For calls answered 204: nothing, or the `ApiError`. */
export async function unwrapEmpty(call: Promise<Answer<unknown>>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) throw errorFromJson(response.status, response.statusText, error);
}
