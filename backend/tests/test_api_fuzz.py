"""Schemathesis against the app's own OpenAPI document, in-process (ASGI).

Every operation gets a bounded, derandomized batch of generated requests (so a run is
repeatable): schema-valid ones (`POSITIVE`), half of them aimed at real ids (an incident
with a parsed capture, its artifact and annotation, a live share token that allows raw
downloads) so that the routes' real work is exercised and not only their 404s, and
schema-invalid ones (`NEGATIVE`). Authenticated with a read-write API token
(``Authorization: Bearer``), then once as nobody.

Checks kept, and why:
- ``not_a_server_error``: no request, however odd, may produce a 5xx.
- ``response_schema_conformance``: a response whose status the document declares must
  match the declared schema (the frontend's types are generated from it).
- ``negative_data_rejection``: a request that violates the schema must be refused (4xx).
Left out: ``status_code_conformance`` (401/403/404 are not listed per operation in the
document; the authorization matrix asserts them exactly) and ``positive_data_acceptance``
(a schema-valid request for a random id is rightly 404).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
)
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok

from rootline.settings import Settings
from tests.conftest import FIXTURES_DIR, add_token, add_user, sign_in

POSITIVE_EXAMPLES = 20
NEGATIVE_EXAMPLES = 8
ANONYMOUS_EXAMPLES = 5
CHECKS = [not_a_server_error, response_schema_conformance, negative_data_rejection]
PUBLIC = {"public", "shared"}
INCIDENT = "/api/incidents/{incident_id}"


def _settings(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


@pytest.fixture()
def fuzz_app(settings: Settings) -> Iterator[FastAPI]:
    from rootline.app import create_app

    # Generated credentials fail a lot: no rate limit should turn that into 429s.
    application = create_app(
        settings.model_copy(update={"login_rate_limit": 1_000_000, "share_rate_limit": 1_000_000})
    )
    # Started for the whole test (its parse workers too), whichever client calls the app.
    with TestClient(application):
        yield application
    application.state.engine.dispose()


@dataclass
class Ids:
    incident: str
    artifact: str
    annotation: str
    share: str
    finding: str

    def path_parameters(self) -> dict[str, str]:
        return {
            "incident_id": self.incident,
            "artifact_id": self.artifact,
            "annotation_id": self.annotation,
            "token": self.share,
            "finding_id": self.finding,
        }


def _real_ids(app: FastAPI, database_url: str, token: str) -> Ids:
    """An incident with a parsed capture, an annotation and a raw-allowing share link."""
    add_user(database_url, "admin", is_admin=True)
    # closing(), not `with TestClient`: the app is already started by the fixture.
    with closing(TestClient(app)) as client:
        auth = {"Authorization": f"Bearer {token}"}
        incident = client.post("/api/incidents", json={"title": "fuzz"}, headers=auth).json()["id"]
        uploaded = client.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": "ss-tinm-loop.txt", "host": "web-1", "wait": 60},
            content=(FIXTURES_DIR / "ss" / "ss-tinm-loop.txt").read_bytes(),
            headers={**auth, "Content-Type": "application/octet-stream"},
        )
        assert uploaded.status_code == 201, uploaded.text
        note = client.post(
            f"/api/incidents/{incident}/annotations",
            json={"from_ms": 1_763_700_000_000, "text": "x"},
            headers=auth,
        )
        checklist = client.get(f"/api/incidents/{incident}/checklist", headers=auth).json()
        sign_in(client, "admin")
        share = client.post(f"/api/incidents/{incident}/shares", json={"allow_raw": True})
        assert share.status_code == 201, share.text
        return Ids(
            incident=incident,
            artifact=uploaded.json()["artifacts"][0]["id"],
            annotation=note.json()["id"],
            share=share.json()["token"],
            finding=checklist["findings"][0]["id"],
        )


@dataclass
class Tally:
    cases: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    unsatisfiable: list[str] = field(default_factory=list)

    def count(self, status: int) -> None:
        self.cases += 1
        self.statuses[status] = self.statuses.get(status, 0) + 1


def _operations(app: FastAPI) -> list[tuple[Any, str]]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    access = {
        (method.upper(), path): operation["x-rootline-access"]
        for path, operations in app.openapi()["paths"].items()
        for method, operation in operations.items()
    }
    results = list(schema.get_all_operations())
    found = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(found) == len(access), [r for r in results if not isinstance(r, Ok)]
    return [(op, access[(op.method.upper(), op.path)]) for op in found]


def _fuzz(
    operation: Any,
    mode: GenerationMode,
    examples: int,
    headers: dict[str, str],
    tally: Tally,
    ids: Ids | None = None,
    expect: Callable[[Any], str | None] | None = None,
) -> None:
    strategy = operation.as_strategy(generation_mode=mode)
    real = (
        None
        if ids is None
        else operation.as_strategy(
            generation_mode=mode,
            path_parameters={
                k: v
                for k, v in ids.path_parameters().items()
                if k in {p.name for p in operation.path_parameters}
            },
        )
    )
    choices = st.one_of(strategy, real) if real is not None else strategy

    @given(case=choices)
    @_settings(examples)
    def run(case: Any) -> None:
        try:
            response = case.call(headers=headers)
        except Exception as error:  # an exception the app let escape (the test client re-raises)
            tally.count(500)
            curl = case.as_curl_command(headers=headers)
            tally.failures.append(f"{operation.label} [{mode.value}]: raised {error!r}\n    {curl}")
            return
        tally.count(response.status_code)
        problem = None
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except FailureGroup as group:
            problem = "; ".join(
                f"{f.title}: {' '.join(f.message.split())[:300]}" for f in group.exceptions
            )
        if problem is None and expect is not None:
            problem = expect(response)
        if problem is not None:
            curl = case.as_curl_command(headers=headers)
            tally.failures.append(f"{operation.label} [{mode.value}]: {problem}\n    {curl}")

    try:
        run()
    except Unsatisfiable:
        if mode is not GenerationMode.NEGATIVE:
            raise
        # Nothing about this operation can be made invalid (it takes no parameters).
        tally.unsatisfiable.append(operation.label)
    if os.environ.get("ROOTLINE_FUZZ_VERBOSE"):
        print(f"{operation.label} [{mode.value}] done, {tally.cases} cases so far", flush=True)


def test_fuzz_with_a_read_write_token(
    fuzz_app: FastAPI, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token = add_token(database_url, add_user(database_url, "fuzzer"))
    ids = _real_ids(fuzz_app, database_url, token)
    headers = {"Authorization": f"Bearer {token}"}
    tally = Tally()
    started = time.perf_counter()
    for operation, _access in _operations(fuzz_app):
        # Deleting the incident the other cases aim at would leave only 404s to test.
        deletes_it = (operation.method.upper(), operation.path) == ("DELETE", INCIDENT)
        aim = None if deletes_it else ids
        _fuzz(operation, GenerationMode.POSITIVE, POSITIVE_EXAMPLES, headers, tally, aim)
        _fuzz(operation, GenerationMode.NEGATIVE, NEGATIVE_EXAMPLES, headers, tally)
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(
            f"\nschemathesis (read-write token): {tally.cases} cases in {elapsed:.1f} s,"
            f" statuses {dict(sorted(tally.statuses.items()))}, {len(tally.failures)} findings;"
            f" no invalid request possible for {tally.unsatisfiable}"
        )
    assert tally.failures == [], "\n".join(tally.failures)


def test_fuzz_anonymous_gets_401_on_every_private_route(
    fuzz_app: FastAPI, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def unauthenticated(response: Any) -> str | None:
        if response.status_code != 401:
            return f"expected 401, got {response.status_code}"
        if response.json().get("code") != "unauthenticated":
            return f"expected code unauthenticated, got {response.text[:200]}"
        return None

    tally = Tally()
    private = 0
    for operation, access in _operations(fuzz_app):
        if access in PUBLIC:
            _fuzz(operation, GenerationMode.POSITIVE, ANONYMOUS_EXAMPLES, {}, tally)
            continue
        private += 1
        _fuzz(
            operation, GenerationMode.POSITIVE, ANONYMOUS_EXAMPLES, {}, tally, None, unauthenticated
        )
    with capsys.disabled():
        print(
            f"\nschemathesis (anonymous): {tally.cases} cases over {private} private operations,"
            f" statuses {dict(sorted(tally.statuses.items()))}, {len(tally.failures)} findings"
        )
    assert private >= 25
    assert tally.failures == [], "\n".join(tally.failures)
