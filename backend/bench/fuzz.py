"""Schemathesis over every route of a real server, authenticated and anonymous, for a while.

    cd backend && .venv/bin/python -m bench.fuzz                # 5 minutes (ROOTLINE_FUZZ_DURATION)
    cd backend && .venv/bin/python -m bench.fuzz --duration 30  # a smoke run

Starts `rootline serve` on a scratch PostgreSQL database (SQLite when PostgreSQL is not
reachable), with an incident holding a parsed capture, an annotation and a raw-allowing share
link, then until the time is up goes round every operation of the server's OpenAPI document:
schema-valid requests with a read-write API token (half aimed at the real ids), schema-invalid
ones, and schema-valid ones as nobody. The same setup as ``tests/test_api_fuzz.py``, over
HTTP and unbounded in examples. It prints the cases, the statuses, the server errors (5xx)
and the dropped connections (a request that got no answer), and exits 1 unless both are 0.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.result import Ok

from bench.load import prepare_database, start_server
from bench.run import PG_ADMIN
from rootline.db import create_scratch_database

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ss" / "ss-tinm-loop.txt"
ADMIN_PASSWORD = "fuzz bench admin password"
EXAMPLES = 10  # per operation and mode in one round; rounds repeat until the time is up


class Tally:
    def __init__(self) -> None:
        self.statuses: Counter[int] = Counter()
        self.server_errors: list[str] = []
        self.dropped: list[str] = []

    @property
    def cases(self) -> int:
        return sum(self.statuses.values()) + len(self.dropped)


def _ids(base: str, token: str, url: str) -> dict[str, str]:
    """An incident with a parsed capture, an annotation and a raw-allowing share link."""
    from rootline.accounts import service
    from rootline.db import make_engine, make_sessionmaker

    engine = make_engine(url)
    with make_sessionmaker(engine).begin() as session:
        service.create_user(session, "admin", password=ADMIN_PASSWORD, is_admin=True)
    engine.dispose()
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, timeout=120) as http:
        incident = http.post("/api/incidents", json={"title": "fuzz"}, headers=auth).json()["id"]
        uploaded = http.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": FIXTURE.name, "host": "web-1", "wait": 60},
            content=FIXTURE.read_bytes(),
            headers={**auth, "Content-Type": "application/octet-stream"},
        ).json()
        note = http.post(
            f"/api/incidents/{incident}/annotations",
            json={"from_ms": 1_763_700_000_000, "text": "x"},
            headers=auth,
        ).json()
        checklist = http.get(f"/api/incidents/{incident}/checklist", headers=auth).json()
        me = http.post("/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD})
        me.raise_for_status()
        share = http.post(
            f"/api/incidents/{incident}/shares",
            json={"allow_raw": True},
            headers={"X-CSRF-Token": me.json()["csrf_token"]},
        ).json()
    return {
        "incident_id": incident,
        "artifact_id": uploaded["artifacts"][0]["id"],
        "annotation_id": note["id"],
        "token": share["token"],
        "finding_id": checklist["findings"][0]["id"],
    }


def _round(
    operation: Any,
    mode: GenerationMode,
    headers: dict[str, str],
    tally: Tally,
    ids: dict[str, str] | None,
) -> None:
    strategy = operation.as_strategy(generation_mode=mode)
    if ids is not None:
        names = {p.name for p in operation.path_parameters}
        aimed = operation.as_strategy(
            generation_mode=mode, path_parameters={k: v for k, v in ids.items() if k in names}
        )
        strategy = st.one_of(strategy, aimed)

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    def run(case: Any) -> None:
        try:
            response = case.call(headers=headers, timeout=60)
        except Exception as error:  # no answer: the connection dropped or timed out
            tally.dropped.append(f"{operation.label}: {error!r}")
            return
        tally.statuses[response.status_code] += 1
        if response.status_code >= 500:
            curl = case.as_curl_command(headers=headers)
            tally.server_errors.append(f"{operation.label} {response.status_code}\n    {curl}")

    with suppress(Unsatisfiable):  # nothing about the operation can be made invalid
        run()


def fuzz(base: str, token: str, ids: dict[str, str], duration_s: float) -> tuple[Tally, Tally]:
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]
    authenticated, anonymous = Tally(), Tally()
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + duration_s
    rounds = 0
    while time.monotonic() < deadline:
        rounds += 1
        for operation in operations:
            if time.monotonic() >= deadline:
                break
            # Deleting the incident the cases aim at would leave only 404s to test.
            deletes_it = (operation.method.upper(), operation.path) == (
                "DELETE",
                "/api/incidents/{incident_id}",
            )
            aim = None if deletes_it else ids
            _round(operation, GenerationMode.POSITIVE, headers, authenticated, aim)
            _round(operation, GenerationMode.NEGATIVE, headers, authenticated, None)
            _round(operation, GenerationMode.POSITIVE, {}, anonymous, aim)
        print(
            f"  round {rounds}: {authenticated.cases} authenticated and {anonymous.cases}"
            f" anonymous cases so far",
            flush=True,
        )
    return authenticated, anonymous


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--duration", type=float, default=float(os.environ.get("ROOTLINE_FUZZ_DURATION", 300))
    )
    args = parser.parse_args()
    scratch = create_scratch_database(PG_ADMIN, "rootline_fuzz")
    with tempfile.TemporaryDirectory(prefix="rootline-fuzz-") as tmp:
        url = scratch.url if scratch else f"sqlite:///{tmp}/rootline.db"
        print(f"schemathesis over every route for {args.duration:.0f} s on {url.split(':')[0]}")
        token = prepare_database(url)
        # Generated credentials fail a lot: no rate limit should turn that into 429s.
        os.environ["ROOTLINE_LOGIN_RATE_LIMIT"] = "1000000"
        os.environ["ROOTLINE_SHARE_RATE_LIMIT"] = "1000000"
        log = Path(tmp) / "server.log"
        process, base = start_server(url, Path(tmp) / "data", 1, log)
        try:
            ids = _ids(base, token, url)
            started = time.monotonic()
            authenticated, anonymous = fuzz(base, token, ids, args.duration)
            elapsed = time.monotonic() - started
        finally:
            process.terminate()
            process.wait(timeout=30)
            if scratch:
                scratch.drop()
        tracebacks = log.read_text(errors="replace").count("Traceback")
    errors = authenticated.server_errors + anonymous.server_errors
    dropped = authenticated.dropped + anonymous.dropped
    for name, tally in (("authenticated", authenticated), ("anonymous", anonymous)):
        print(
            f"  {name}: {tally.cases} cases, statuses {dict(sorted(tally.statuses.items()))},"
            f" {len(tally.server_errors)} server errors, {len(tally.dropped)} dropped connections"
        )
    print(
        f"schemathesis: {authenticated.cases + anonymous.cases} cases in {elapsed:.0f} s,"
        f" {len(errors)} server errors, {len(dropped)} dropped connections,"
        f" {tracebacks} tracebacks in the server log"
    )
    for problem in (errors + dropped)[:20]:
        print(f"  {problem}")
    if errors or dropped:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
