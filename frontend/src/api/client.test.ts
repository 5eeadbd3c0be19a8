import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, errorFromBody, errorFromJson, fieldName, setUnauthorizedHandler, unwrap, unwrapEmpty } from "./client";
import { parseApiBase, readGet } from "./reads";

afterEach(() => {
  vi.unstubAllGlobals();
  setUnauthorizedHandler(null);
  document.cookie = "rootline_csrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT";
});

/** The requests the stubbed fetch was given (openapi-fetch passes one Request). */
function stub(answer: () => Response) {
  const fetchMock = vi.fn(async (_request: Request) => answer());
  vi.stubGlobal("fetch", fetchMock);
  return () => fetchMock.mock.calls.map(([request]) => request);
}

describe("error mapping", () => {
  it("uses the API's code and message", () => {
    const error = errorFromBody(403, "Forbidden", '{"code":"csrf_failed","message":"CSRF token missing"}');
    expect(error).toBeInstanceOf(ApiError);
    expect([error.status, error.code, error.message]).toEqual([403, "csrf_failed", "CSRF token missing"]);
  });

  it("names the field of a 422 (the API's errors[], not 'the request is not valid')", () => {
    const body = {
      code: "invalid_request",
      message: "the request is not valid",
      errors: [{ loc: ["body", "jvm_start"], message: "not a time" }],
    };
    const error = errorFromJson(422, "Unprocessable Entity", body);
    expect([error.code, error.message]).toEqual(["invalid_request", "jvm_start: not a time"]);
    expect(error.problemWith("jvm_start")).toBe("not a time");
    expect(error.problemWith("host")).toBeUndefined();
    expect(fieldName({ loc: ["path", "incident_id"], message: "" })).toBe("incident_id");
    expect(fieldName({ loc: ["body", "files", 0, "filename"], message: "" })).toBe("files.0.filename");
  });

  it("falls back to the status line for bodies that are not the API's", () => {
    const proxy = errorFromBody(502, "Bad Gateway", "<html>nginx</html>");
    expect([proxy.code, proxy.message]).toEqual(["http_error", "502 Bad Gateway"]);
  });
});

describe("the typed client", () => {
  it("sends the CSRF cookie as a header on writes only, and builds paths and queries", async () => {
    document.cookie = "rootline_csrf=tok%2B1";
    const requests = stub(() => Response.json({ ok: true }));
    await unwrap(api.POST("/api/incidents", { body: { title: "x", summary: "", timezone: "UTC" } }));
    await unwrap(api.GET("/api/incidents", { params: { query: { q: "a b", limit: 5 } } }));
    const [write, read] = requests();
    expect(write!.headers.get("X-CSRF-Token")).toBe("tok+1");
    expect(write!.headers.get("Content-Type")).toBe("application/json");
    expect(new URL(read!.url).pathname + new URL(read!.url).search).toBe("/api/incidents?q=a%20b&limit=5");
    expect(read!.headers.get("X-CSRF-Token")).toBeNull();
  });

  it("reports 401 from private routes only", async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);
    stub(() => Response.json({ code: "unauthenticated", message: "Sign in" }, { status: 401 }));
    await expect(unwrap(api.GET("/api/incidents"))).rejects.toMatchObject({ status: 401, message: "Sign in" });
    expect(handler).toHaveBeenCalledTimes(1);
    await expect(unwrap(api.POST("/api/auth/login", { body: { username: "a", password: "b" } }))).rejects.toBeInstanceOf(ApiError);
    await expect(readGet("/api/shared/abc", "/checklist")).rejects.toBeInstanceOf(ApiError);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("returns nothing for 204", async () => {
    stub(() => new Response(null, { status: 204 }));
    await expect(unwrapEmpty(api.DELETE("/api/tokens/{token_id}", { params: { path: { token_id: 1 } } }))).resolves.toBeUndefined();
  });
});

describe("read routes of either base", () => {
  it("call the incident's or the share's route of the same suffix", async () => {
    const requests = stub(() => Response.json({ threads: [] }));
    await readGet("/api/incidents/i%201", "/events/{event_id}/threads", { path: { event_id: 7 } });
    await readGet("/api/shared/tok", "/events", { query: { kind: ["gc_pause"], limit: 3 } });
    const [first, second] = requests().map((request) => new URL(request.url));
    expect(first!.pathname).toBe("/api/incidents/i%201/events/7/threads");
    expect(second!.pathname + second!.search).toBe("/api/shared/tok/events?kind=gc_pause&limit=3");
    expect(parseApiBase("/api/shared/t")).toEqual({ token: "t" });
    expect(() => parseApiBase("/elsewhere")).toThrow();
  });
});
