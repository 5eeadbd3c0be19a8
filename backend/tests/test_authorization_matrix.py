"""Who may call what: every operation of the OpenAPI document against every kind of caller.

Each cell (operation x principal) runs in a world of its own (fresh database, users,
sessions, tokens, incidents A and B, an uploaded artifact, an annotation, a share, a spare
token, a one-time link), so destructive cells (DELETE incident, revocations, sign-out,
password change) never disturb another cell. Path parameters are real ids of incident A and
request bodies are valid, so each cell's status is exact: the operation's own success code
when allowed, else 401, 403 or 404.

The expected status comes from `EXPECTED`, keyed by the operation's access class (the
``x-rootline-access`` the app writes into its OpenAPI document), plus `EXCEPTIONS`.
`OPERATIONS` pins every operation's class: a new route, or a route whose class changes,
fails `test_every_operation_is_classified` until it is classified here.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rootline.accounts import service as accounts_service
from rootline.accounts.models import User
from rootline.settings import Settings
from tests.conftest import FIXTURES_DIR, TEST_PASSWORD, cheap_hash, empty_database

# One database for the whole module (see `matrix_db`), on SQLite and on PostgreSQL.
pytestmark = pytest.mark.db

# --- Principals ---------------------------------------------------------------------------
# anonymous      nothing
# share          the share token of incident A: as `Authorization: Bearer` on private routes,
#                in the path of /api/shared/<token>/...
# ingest         an ingest token scoped to incident A
# token          a read-write token scoped to incident A
# other          a read-write token scoped to incident B, used on A's routes
# user           a signed-in user (cookie + CSRF header), not an administrator
# admin          a signed-in administrator (cookie + CSRF header)
# disabled       the session cookie (+ CSRF header) of a user disabled since
# disabled_token an API token of that disabled user
# On /api/shared/<token>/... every principal but `share` puts its own secret (API token,
# session cookie, or a made-up token when it has none) in the path: a foreign token.

PRINCIPALS = (
    "anonymous",
    "share",
    "ingest",
    "token",
    "other",
    "user",
    "admin",
    "disabled",
    "disabled_token",
)

OK = "ok"  # the operation's success status, read from its OpenAPI responses
_TOKENS = {"share": 401, "ingest": 403, "token": 403, "other": 403}
_NOBODY = {"anonymous": 401, "disabled": 401, "disabled_token": 401}


def _row(**overrides: int | str) -> dict[str, int | str]:
    """Refused by default (401 without a valid principal, 403 for API tokens), users allowed."""
    return {**_NOBODY, **_TOKENS, "user": OK, "admin": OK, **overrides}


EXPECTED: dict[str, dict[str, int | str]] = {
    "public": dict.fromkeys(PRINCIPALS, OK),
    "shared": {**dict.fromkeys(PRINCIPALS, 404), "share": OK},
    "incidents": _row(),  # list/create: users and unscoped read-write tokens only
    "read": _row(token=OK),
    "write": _row(token=OK),
    "ingest": _row(token=OK, ingest=OK),
    "user": _row(),
    "admin": _row(user=403),
}

# Sign-out is public but resolves the caller: a bearer token that is not a live API token
# is refused like everywhere else. Every world's incident has its postmortem drafted
# already, so drafting it again is a conflict for whoever may write (refused before that
# for everyone else).
EXCEPTIONS: dict[tuple[str, str, str], int] = {
    ("POST", "/api/auth/logout", "share"): 401,
    ("POST", "/api/auth/logout", "disabled_token"): 401,
    **{
        ("POST", "/api/incidents/{incident_id}/postmortem", who): 409
        for who in ("token", "user", "admin")
    },
}


# --- Every operation, its access class, and a valid request ------------------------------


@dataclass
class World:
    """One cell's world; ids are incident A's."""

    client: TestClient
    incident: str
    other_incident: str
    artifact: str
    annotation: str
    dump_event: int
    share_id: int
    share_token: str
    token_id: int
    finding: str
    link: str
    action_item: int
    external_id: str
    secrets: dict[str, str] = field(default_factory=dict)
    headers: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, str]:
        return {
            "incident_id": self.incident,
            "artifact_id": self.artifact,
            "annotation_id": self.annotation,
            "event_id": str(self.dump_event),
            "share_id": str(self.share_id),
            "token_id": str(self.token_id),
            "finding_id": self.finding,
            "section": "lessons",
            "item_id": str(self.action_item),
            "external_id": self.external_id,
            "token": self.link,  # /api/auth/one-time/{token}; shared routes override it
        }


Body = Callable[[World], dict[str, Any]]
CAPTURE = (FIXTURES_DIR / "ss" / "ss-tan.txt").read_bytes()
DUMP = (FIXTURES_DIR / "thread_dump" / "dump-changes-jdk17-jstack-2-dumps.txt").read_bytes()


def _json(payload: Callable[[World], Any]) -> Body:
    return lambda world: {"json": payload(world)}


_UPLOADS = itertools.count(1)


def _upload(_world: World) -> dict[str, Any]:
    # Bytes new to the incident each time: known bytes are answered as stored (201).
    return {
        "params": {"filename": "ss-tan.txt", "host": "web-2"},
        "content": CAPTURE + b"\n" * next(_UPLOADS),
        "headers": {"Content-Type": "application/octet-stream"},
    }


def _none(_world: World) -> dict[str, Any]:
    return {}


def _section_save(world: World) -> dict[str, Any]:
    """A save of the lessons edited from their current version (each cell's save is new)."""
    postmortem = world.client.get(
        f"/api/incidents/{world.incident}/postmortem", headers=world.headers["admin"]
    ).json()
    version = next(s["version"] for s in postmortem["sections"] if s["key"] == "lessons")
    return {"json": {"text": f"lesson {next(_UPLOADS)}", "version": version}}


def _status(world: World) -> dict[str, Any]:
    postmortem = world.client.get(
        f"/api/incidents/{world.incident}/postmortem", headers=world.headers["admin"]
    ).json()
    return {"json": {"status": "published", "version": postmortem["version"]}}


INC = "/api/incidents/{incident_id}"
SHR = "/api/shared/{token}"
OPERATIONS: dict[tuple[str, str], tuple[str, Body]] = {
    ("GET", "/api/health"): ("public", _none),
    ("POST", "/api/auth/login"): (
        "public",
        _json(lambda w: {"username": "li.wei", "password": TEST_PASSWORD}),
    ),
    ("POST", "/api/auth/logout"): ("public", _none),
    ("GET", "/api/auth/one-time/{token}"): ("public", _none),
    ("GET", "/api/auth/me"): ("user", _none),
    ("POST", "/api/auth/password"): (
        "user",
        _json(lambda w: {"current_password": TEST_PASSWORD, "new_password": "a new passphrase"}),
    ),
    ("GET", "/api/users"): ("admin", _none),
    ("GET", "/api/tokens"): ("user", _none),
    ("POST", "/api/tokens"): (
        "user",
        _json(lambda w: {"name": "ci", "scope": "read-write", "incident_id": w.incident}),
    ),
    ("DELETE", "/api/tokens/{token_id}"): ("user", _none),
    ("GET", "/api/incidents"): ("incidents", _none),
    ("POST", "/api/incidents"): (
        "incidents",
        _json(lambda w: {"title": "new", "summary": "s", "timezone": "Europe/Paris"}),
    ),
    ("GET", INC): ("read", _none),
    ("GET", f"{INC}/version"): ("read", _none),
    ("PATCH", INC): ("write", _json(lambda w: {"title": "renamed", "summary": "changed"})),
    ("DELETE", INC): ("write", _none),
    ("POST", f"{INC}/artifacts"): ("ingest", _upload),
    ("GET", f"{INC}/artifacts"): ("read", _none),
    ("GET", f"{INC}/artifacts/{{artifact_id}}"): ("read", _none),
    ("GET", f"{INC}/artifacts/{{artifact_id}}/raw"): ("read", _none),
    ("POST", f"{INC}/artifacts/{{artifact_id}}/reparse"): ("write", _none),
    ("GET", f"{INC}/series"): ("read", lambda w: {"params": {"name": "tcp.*", "limit": 5}}),
    ("GET", f"{INC}/timeline"): ("read", lambda w: {"params": {"max_points": 100}}),
    ("GET", f"{INC}/connections"): ("read", lambda w: {"params": {"q": "10.", "limit": 5}}),
    ("GET", f"{INC}/events"): ("read", _none),
    ("GET", f"{INC}/events/{{event_id}}/threads"): ("read", _none),
    ("GET", f"{INC}/facts"): ("read", _none),
    ("GET", f"{INC}/checklist"): ("read", _none),
    ("PATCH", f"{INC}/checklist/{{finding_id}}"): (
        "write",
        _json(lambda w: {"verdict_override": "ruled_out", "note": "checked by hand"}),
    ),
    ("GET", f"{INC}/annotations"): ("read", _none),
    ("POST", f"{INC}/annotations"): (
        "write",
        _json(lambda w: {"from_ms": 1_763_700_000_000, "text": "deploy", "host": "web-1"}),
    ),
    ("DELETE", f"{INC}/annotations/{{annotation_id}}"): ("write", _none),
    ("GET", f"{INC}/postmortem"): ("read", _none),
    ("POST", f"{INC}/postmortem"): ("write", _none),
    ("PATCH", f"{INC}/postmortem"): ("write", _status),
    ("PUT", f"{INC}/postmortem/sections/{{section}}"): ("write", _section_save),
    ("GET", f"{INC}/postmortem/revisions"): ("read", _none),
    ("GET", f"{INC}/postmortem/export"): ("read", lambda w: {"params": {"format": "md"}}),
    ("GET", f"{INC}/postmortem/charts/{{finding_id}}.svg"): ("read", _none),
    ("GET", f"{INC}/action-items"): ("read", _none),
    ("POST", f"{INC}/action-items"): ("write", _json(lambda w: {"title": "raise wmem_max"})),
    ("PATCH", f"{INC}/action-items/{{item_id}}"): ("write", _json(lambda w: {"status": "done"})),
    ("DELETE", f"{INC}/action-items/{{item_id}}"): ("write", _none),
    ("PUT", f"{INC}/action-items/external/{{external_id}}"): (
        "write",
        _json(lambda w: {"owner": "ops"}),
    ),
    ("GET", "/api/action-items"): ("incidents", lambda w: {"params": {"status": "open"}}),
    ("GET", "/api/compare"): (
        "incidents",
        lambda w: {"params": {"a": w.incident, "b": w.other_incident}},
    ),
    ("GET", f"{INC}/shares"): ("user", _none),
    ("POST", f"{INC}/shares"): ("user", _json(lambda w: {"label": "vendor", "allow_raw": True})),
    ("DELETE", f"{INC}/shares/{{share_id}}"): ("user", _none),
    ("GET", SHR): ("shared", _none),
    ("GET", f"{SHR}/series"): ("shared", lambda w: {"params": {"name": "tcp.*", "limit": 5}}),
    ("GET", f"{SHR}/timeline"): ("shared", lambda w: {"params": {"max_points": 100}}),
    ("GET", f"{SHR}/connections"): ("shared", lambda w: {"params": {"limit": 5}}),
    ("GET", f"{SHR}/events"): ("shared", _none),
    ("GET", f"{SHR}/events/{{event_id}}/threads"): ("shared", _none),
    ("GET", f"{SHR}/version"): ("shared", _none),
    ("GET", f"{SHR}/facts"): ("shared", _none),
    ("GET", f"{SHR}/checklist"): ("shared", _none),
    ("GET", f"{SHR}/annotations"): ("shared", _none),
    ("GET", f"{SHR}/postmortem"): ("shared", _none),
    ("GET", f"{SHR}/postmortem/charts/{{finding_id}}.svg"): ("shared", _none),
    ("GET", f"{SHR}/action-items"): ("shared", _none),
    ("GET", f"{SHR}/artifacts"): ("shared", _none),
    ("GET", f"{SHR}/artifacts/{{artifact_id}}"): ("shared", _none),
    ("GET", f"{SHR}/artifacts/{{artifact_id}}/raw"): ("shared", _none),
}

# Methods a path does not have answer 405 whoever asks (routing comes before auth).
OTHER_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
WRONG_METHOD_PRINCIPALS = ("anonymous", "admin")  # whoever asks: two are enough


def _wrong_methods() -> list[tuple[str, str]]:
    paths: dict[str, set[str]] = {}
    for method, path in OPERATIONS:
        paths.setdefault(path, set()).add(method)
    return [
        (method, path)
        for path, methods in sorted(paths.items())
        for method in OTHER_METHODS
        if method not in methods
    ]


# --- The world ----------------------------------------------------------------------------
# One app and database for the module, holding a shared world for the cells that change
# nothing another cell relies on; a cell that may destroy part of its world (`DISTURBING`,
# when allowed) gets a fresh world of its own in the same database.

DISTURBING = {
    ("DELETE", INC),
    ("DELETE", f"{INC}/annotations/{{annotation_id}}"),
    ("DELETE", f"{INC}/action-items/{{item_id}}"),
    ("DELETE", f"{INC}/shares/{{share_id}}"),
    ("DELETE", "/api/tokens/{token_id}"),
    ("POST", "/api/auth/logout"),
    ("POST", "/api/auth/password"),
    ("GET", "/api/auth/one-time/{token}"),
}


@pytest.fixture(scope="module")
def matrix_db(migrated_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated database for the whole module (the `database_url` fixture is per test)."""
    with empty_database(migrated_url, tmp_path_factory.mktemp("matrix")) as url:
        yield url


@pytest.fixture(scope="module")
def matrix_app(matrix_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    from rootline.app import create_app

    folder = tmp_path_factory.mktemp("matrix-data")
    settings = Settings(
        data_dir=folder / "data",
        database_url=matrix_db,
        load_demo=False,
        # Failed share lookups (every foreign-token cell) would soon be rate-limited.
        share_rate_limit=1_000_000,
        # No built web app: a wrong method on an /api path is then 405 whether or not the
        # frontend happens to be built in this checkout.
        frontend_dir=folder / "no-web",
    )
    application = create_app(settings)
    yield application
    application.state.engine.dispose()


@pytest.fixture(scope="module")
def lab(matrix_app: FastAPI) -> Iterator[Lab]:
    with TestClient(matrix_app) as client:
        yield Lab(matrix_app, client)


def _add_user(session: Any, name: str, *, is_admin: bool = False) -> User:
    user = User(username=name, password_hash=cheap_hash(TEST_PASSWORD), is_admin=is_admin)
    session.add(user)
    session.flush()
    return user


def _ok(response: Any, status: int) -> Any:
    assert response.status_code == status, response.text
    return response.json()


class Lab:
    def __init__(self, app: FastAPI, client: TestClient) -> None:
        self.app = app
        self.client = client
        self.built = 0
        self.shared = self.build()

    def build(self) -> World:
        """A world of its own: users (named apart from the other worlds'), their sessions and
        tokens, incidents A and B, an artifact, an annotation, a share, a spare token, a link."""
        suffix = f"-{self.built}" if self.built else ""
        self.built += 1
        factory = self.app.state.sessionmaker
        client = self.client
        lifetime = 3_600_000
        with factory.begin() as session:
            admin = _add_user(session, f"admin{suffix}", is_admin=True)
            user = _add_user(session, f"li.wei{suffix}")
            gone = _add_user(session, f"gone{suffix}")
            sessions = {
                "admin": accounts_service.start_session(session, admin, lifetime_ms=lifetime),
                "user": accounts_service.start_session(session, user, lifetime_ms=lifetime),
                "disabled": accounts_service.start_session(session, gone, lifetime_ms=lifetime),
            }
            disabled_token = accounts_service.create_token(
                session, gone, name="t", scope="read-write"
            )
            link = accounts_service.create_link(session, user)
        cookies = {
            name: {"Cookie": f"rootline_session={new.secret}", "X-CSRF-Token": new.row.csrf_token}
            for name, new in sessions.items()
        }
        admin_headers = cookies["admin"]
        incident = _ok(
            client.post("/api/incidents", json={"title": "A"}, headers=admin_headers), 201
        )["id"]
        other = _ok(client.post("/api/incidents", json={"title": "B"}, headers=admin_headers), 201)[
            "id"
        ]
        base = f"/api/incidents/{incident}"
        uploaded = _ok(
            client.post(
                f"{base}/artifacts",
                params={"filename": "ss-tan.txt", "host": "web-1", "wait": 60},
                content=CAPTURE,
                headers={**admin_headers, "Content-Type": "application/octet-stream"},
            ),
            201,
        )
        _ok(
            client.post(
                f"{base}/artifacts",
                params={"filename": "jstack.txt", "host": "web-1", "wait": 60},
                content=DUMP,
                headers={**admin_headers, "Content-Type": "application/octet-stream"},
            ),
            201,
        )
        dump_event = _ok(
            client.get(f"{base}/events", params={"kind": "thread_dump"}, headers=admin_headers),
            200,
        )["items"][0]["id"]
        annotation = _ok(
            client.post(
                f"{base}/annotations",
                json={"from_ms": 1_763_700_000_000, "text": "incident starts"},
                headers=admin_headers,
            ),
            201,
        )["id"]
        share = _ok(
            client.post(f"{base}/shares", json={"allow_raw": True}, headers=admin_headers), 201
        )
        findings = _ok(client.get(f"{base}/checklist", headers=admin_headers), 200)["findings"]
        # Drafted and published: the share link shows it (a draft it would not).
        _ok(client.post(f"{base}/postmortem", headers=admin_headers), 201)
        _ok(
            client.patch(
                f"{base}/postmortem",
                json={"status": "published", "version": 1},
                headers=admin_headers,
            ),
            200,
        )
        # Made with its external id, so the upsert cells all update it (200).
        external_id = f"EXT-{self.built}"
        action_item = _ok(
            client.post(
                f"{base}/action-items",
                json={"title": "raise wmem_max", "external_id": external_id},
                headers=admin_headers,
            ),
            201,
        )["id"]
        with factory.begin() as session:
            owner = session.get(User, user.id)
            spare = accounts_service.create_token(session, owner, name="spare", scope="ingest")

            def token(scope: str, incident_id: str) -> str:
                created = accounts_service.create_token(
                    session, owner, name=scope, scope=scope, incident_id=uuid.UUID(incident_id)
                )
                return created.token

            secrets = {
                "share": str(share["token"]),
                "ingest": token("ingest", incident),
                "token": token("read-write", incident),
                "other": token("read-write", other),
                "disabled_token": disabled_token.token,
            }
            accounts_service.set_disabled(session, session.get(User, gone.id), True)
        headers: dict[str, dict[str, str]] = {"anonymous": {}, **cookies}
        for name in ("share", "ingest", "token", "other", "disabled_token"):
            headers[name] = {"Authorization": f"Bearer {secrets[name]}"}
        secrets.update({name: new.secret for name, new in sessions.items()})
        secrets["anonymous"] = "made-up-share-token"
        return World(
            client=client,
            incident=incident,
            other_incident=other,
            artifact=uploaded["artifacts"][0]["id"],
            annotation=annotation,
            dump_event=dump_event,
            share_id=int(share["id"]),
            share_token=str(share["token"]),
            token_id=spare.id,
            finding=findings[0]["id"],
            link=link,
            action_item=action_item,
            external_id=external_id,
            secrets=secrets,
            headers=headers,
        )


def _url(world: World, path: str, principal: str) -> str:
    values = world.params
    if path.startswith("/api/shared/"):
        values["token"] = world.secrets[principal]
    return path.format(**values)


def _success(operation: dict[str, Any]) -> int:
    codes = {int(code) for code in operation["responses"] if code[0] in "23"}
    # An operation that may answer 202 (queued for the parse workers) does so unless asked
    # to wait, and the cells never ask.
    return 202 if 202 in codes else min(codes)


def _cells() -> list[Any]:
    return [
        pytest.param(method, path, principal, id=f"{method} {path} [{principal}]")
        for (method, path) in OPERATIONS
        for principal in PRINCIPALS
    ]


# --- The tests ----------------------------------------------------------------------------


def test_every_operation_is_classified(matrix_app: FastAPI) -> None:
    """The document's operations are exactly `OPERATIONS`, each with the class pinned there."""
    document = matrix_app.openapi()["paths"]
    found = {
        (method.upper(), path): operation["x-rootline-access"]
        for path, operations in document.items()
        for method, operation in operations.items()
    }
    declared = {key: access for key, (access, _body) in OPERATIONS.items()}
    assert set(found) - set(declared) == set(), "unclassified operations: add them to OPERATIONS"
    assert set(declared) - set(found) == set(), "operations no longer in the API"
    assert found == declared
    assert set(EXPECTED) >= set(found.values())
    assert all(set(row) == set(PRINCIPALS) for row in EXPECTED.values())


@pytest.mark.parametrize(("method", "path", "principal"), _cells())
def test_cell(lab: Lab, method: str, path: str, principal: str) -> None:
    operation = lab.app.openapi()["paths"][path][method.lower()]
    access = operation["x-rootline-access"]
    expected = EXCEPTIONS.get((method, path, principal), EXPECTED[access][principal])
    status = _success(operation) if expected == OK else expected
    world = lab.build() if expected == OK and (method, path) in DISTURBING else lab.shared
    request = OPERATIONS[(method, path)][1](world)
    headers = {**world.headers[principal], **request.pop("headers", {})}
    response = world.client.request(
        method,
        _url(world, path, principal),
        headers=headers,
        follow_redirects=False,
        **request,
    )
    world.client.cookies.clear()  # what sign-in cells set must not follow the next cell
    assert response.status_code == status, (access, response.text[:300])
    if status in {401, 403, 404}:
        refusal = {401: "unauthenticated", 403: "forbidden", 404: "share_not_found"}[status]
        assert response.json()["code"] == refusal, response.text
    if status == 200 and path.endswith("/raw"):
        assert response.content == CAPTURE


@pytest.mark.parametrize(
    ("method", "path", "principal"),
    [
        pytest.param(method, path, principal, id=f"{method} {path} [{principal}]")
        for method, path in _wrong_methods()
        for principal in WRONG_METHOD_PRINCIPALS
    ],
)
def test_wrong_method(lab: Lab, method: str, path: str, principal: str) -> None:
    world = lab.shared
    response = world.client.request(
        method, _url(world, path, principal), headers=world.headers[principal]
    )
    assert response.status_code == 405, response.text
    assert response.json()["code"] == "method_not_allowed"
