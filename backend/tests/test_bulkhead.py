"""The bulkhead: heavy requests wait in line, cheap ones pass them, a long wait is a 503."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from rootline.bulkhead import Bulkhead, is_heavy


def test_heavy_routes_are_the_data_reads_private_and_shared() -> None:
    assert is_heavy("GET", "/api/incidents/7/timeline")
    assert is_heavy("GET", "/api/shared/abcDEF_-123/timeline")
    assert is_heavy("GET", "/api/incidents/7/artifacts/3/raw")
    assert is_heavy("GET", "/api/incidents/7/checklist")
    assert not is_heavy("GET", "/api/shared/abcDEF_-123")
    assert not is_heavy("GET", "/api/incidents/7/series")
    assert not is_heavy("GET", "/api/health")
    assert not is_heavy("POST", "/api/incidents/7/timeline")


def _app(release: asyncio.Event, started: asyncio.Event) -> Starlette:
    async def heavy(_request: Request) -> PlainTextResponse:
        started.set()
        await release.wait()
        return PlainTextResponse("points")

    async def cheap(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[
            Route("/api/incidents/{id}/timeline", heavy),
            Route("/api/shared/{token}", cheap),
        ]
    )


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_cheap_requests_pass_a_full_line_and_a_long_wait_is_503(anyio_backend: str) -> None:
    release, started = asyncio.Event(), asyncio.Event()
    app = Bulkhead(_app(release, started), slots=1, wait_s=0.3)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        first = asyncio.create_task(client.get("/api/incidents/1/timeline"))
        await asyncio.wait_for(started.wait(), 5)
        # The one slot is taken: a cheap request goes straight through ...
        cheap = await asyncio.wait_for(client.get("/api/shared/tok"), 5)
        assert cheap.status_code == 200
        # ... a second heavy one waits its turn and, past wait_s, is told to come back.
        second = await asyncio.wait_for(client.get("/api/incidents/2/timeline"), 5)
        assert second.status_code == 503
        assert second.headers["retry-after"] == "2"
        assert second.json()["code"] == "server_busy"
        # Once the slot is free, the next heavy request runs.
        release.set()
        assert (await first).status_code == 200
        third = await asyncio.wait_for(client.get("/api/incidents/3/timeline"), 5)
        assert third.status_code == 200
