import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, errorFromBody, request, setUnauthorizedHandler } from "./client";

afterEach(() => {
  vi.unstubAllGlobals();
  setUnauthorizedHandler(null);
  document.cookie = "rootline_csrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT";
});

describe("error mapping", () => {
  it("uses the API's code and message", () => {
    const error = errorFromBody(403, "Forbidden", '{"code":"csrf_failed","message":"CSRF token missing"}');
    expect(error).toBeInstanceOf(ApiError);
    expect([error.status, error.code, error.message]).toEqual([403, "csrf_failed", "CSRF token missing"]);
  });

  it("reads FastAPI validation errors and non-JSON bodies", () => {
    const validation = errorFromBody(422, "Unprocessable", '{"detail":[{"loc":["body","title"],"msg":"Field required"}]}');
    expect([validation.code, validation.message]).toEqual(["validation_error", "title: Field required"]);
    const proxy = errorFromBody(502, "Bad Gateway", "<html>nginx</html>");
    expect([proxy.code, proxy.message]).toEqual(["http_error", "502 Bad Gateway"]);
  });
});

describe("request", () => {
  it("sends the CSRF cookie as a header on writes only", async () => {
    document.cookie = "rootline_csrf=tok%2B1";
    const fetchMock = vi.fn(async () => new Response('{"ok":true}', { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);
    await request("POST", "/api/incidents", { json: { title: "x" } });
    await request("GET", "/api/incidents", { params: { q: "a b", limit: 5, skip: undefined } });
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][];
    expect(calls[0]![1].headers).toEqual({ "X-CSRF-Token": "tok+1", "Content-Type": "application/json" });
    expect(calls[0]![1].credentials).toBe("same-origin");
    expect(calls[1]![0]).toBe("/api/incidents?q=a+b&limit=5");
    expect(calls[1]![1].headers).toEqual({});
  });

  it("reports 401 from private routes only", async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);
    vi.stubGlobal("fetch", vi.fn(async () => new Response('{"code":"unauthenticated","message":"Sign in"}', { status: 401 })));
    await expect(request("GET", "/api/incidents")).rejects.toMatchObject({ status: 401, message: "Sign in" });
    expect(handler).toHaveBeenCalledTimes(1);
    await expect(request("POST", "/api/auth/login", { json: {} })).rejects.toBeInstanceOf(ApiError);
    await expect(request("GET", "/api/shared/abc/checklist")).rejects.toBeInstanceOf(ApiError);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("returns nothing for 204", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(null, { status: 204 })));
    await expect(request("DELETE", "/api/tokens/1")).resolves.toBeUndefined();
  });
});
