/** The one way the app talks to the API: same origin, cookies, CSRF header on writes, JSON errors. */
import type { components } from "./schema";

export type Schemas = components["schemas"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole JSON body (a 409 carries what is stored now). */
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type Params = Record<string, string | number | boolean | null | undefined | string[]>;

export function withParams(path: string, params?: Params): string {
  if (!params) return path;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) value.forEach((v) => query.append(key, v));
    else query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export function csrfToken(): string | null {
  const match = document.cookie.match(/(?:^|;\s*)rootline_csrf=([^;]+)/);
  return match ? decodeURIComponent(match[1]!) : null;
}

async function toError(response: Response): Promise<ApiError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body could not be read: the status line is the best there is.
  }
  return errorFromBody(response.status, response.statusText, text);
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

/** The API's JSON error body (`{code, message}`) from any response-like text, or a fallback. */
export function errorFromBody(status: number, statusText: string, text: string): ApiError {
  let code = "http_error";
  let message = `${status} ${statusText}`.trim();
  let parsed: unknown = null;
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; detail?: unknown };
    parsed = body;
    if (typeof body.code === "string") code = body.code;
    if (typeof body.message === "string") message = body.message;
    else if (typeof body.detail === "string") message = body.detail;
    else if (Array.isArray(body.detail)) {
      // FastAPI's validation error: [{loc, msg}, ...]
      const first = body.detail[0] as { loc?: unknown[]; msg?: string } | undefined;
      if (first?.msg) {
        code = "validation_error";
        message = `${(first.loc ?? []).filter((part) => part !== "body").join(".")}: ${first.msg}`;
      }
    }
  } catch {
    // Not JSON (a proxy's error page): the status line is the best there is.
  }
  return new ApiError(status, code, message, parsed);
}

/** A message for any thrown value, for error states. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export async function request<T>(
  method: string,
  path: string,
  options: { params?: Params; json?: unknown; body?: BodyInit; signal?: AbortSignal; keepalive?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (method !== "GET" && method !== "HEAD") {
    const token = csrfToken();
    if (token) headers["X-CSRF-Token"] = token;
  }
  let body = options.body;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  const response = await fetch(withParams(path, options.params), {
    method,
    headers,
    body,
    credentials: "same-origin",
    signal: options.signal,
    // Outlives the page (a save sent as the tab closes).
    keepalive: options.keepalive,
  });
  if (!response.ok) {
    const error = await toError(response);
    reportUnauthorized(path, error);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const apiGet = <T>(path: string, params?: Params, signal?: AbortSignal) =>
  request<T>("GET", path, { params, signal });
