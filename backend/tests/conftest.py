"""Shared test fixtures: where the corpus and our own captured fixtures live."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from sqlalchemy.orm import Session

    from rootline.settings import Settings

BACKEND_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = BACKEND_DIR.parent
FIXTURES_DIR = BACKEND_DIR / "tests" / "fixtures"
# The public corpus sits beside the repository (../shared/corpus) and is never copied into it.
CORPUS_DIR = Path(os.environ.get("ROOTLINE_CORPUS_DIR", REPO_DIR.parent / "shared" / "corpus"))


def corpus_files(subdir: str) -> list[Path]:
    """Every file of one corpus folder, for parametrised tests (empty when the corpus is absent)."""
    folder = CORPUS_DIR / subdir
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file())


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    """A test that opens a corpus file when the corpus is absent (a clone away from
    ``../shared``) is skipped as :func:`corpus_dir`'s users are, not failed."""
    try:
        return (yield)
    except FileNotFoundError as exc:
        if CORPUS_DIR.is_dir() or not str(exc.filename or "").startswith(str(CORPUS_DIR)):
            raise
        pytest.skip(f"corpus not found at {CORPUS_DIR} (set ROOTLINE_CORPUS_DIR)")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR} (set ROOTLINE_CORPUS_DIR)")
    return CORPUS_DIR


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR


# --- Databases -------------------------------------------------------------------------
# The whole suite runs on SQLite; `ROOTLINE_TEST_DATABASE=postgresql` runs the tests marked
# `db` again on a real PostgreSQL, in a database created for the run and dropped after it.

TEST_DATABASE = os.environ.get("ROOTLINE_TEST_DATABASE", "sqlite")
POSTGRES_ADMIN_URL = os.environ.get(
    "ROOTLINE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def _postgres_database(request: pytest.FixtureRequest) -> str:
    from rootline.db import create_scratch_database

    scratch = create_scratch_database(POSTGRES_ADMIN_URL, "rootline_test")
    if scratch is None:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}")
    request.addfinalizer(scratch.drop)
    return scratch.url


@pytest.fixture(scope="session")
def migrated_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database at the newest migration: a template SQLite file, or a PostgreSQL database."""
    from rootline.db import upgrade

    if TEST_DATABASE == "postgresql":
        url = _postgres_database(request)
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('template') / 'template.db'}"
    upgrade(url)
    return url


@contextmanager
def empty_database(migrated_url: str, folder: Path) -> Iterator[str]:
    """A migrated, empty database while the block runs: a copy of the SQLite template in
    ``folder``, or the PostgreSQL run's database, emptied when the block ends."""
    if migrated_url.startswith("sqlite"):
        import shutil

        target = folder / "rootline.db"
        shutil.copyfile(migrated_url.split("///", 1)[1], target)
        yield f"sqlite:///{target}"
        return
    try:
        yield migrated_url
    finally:
        _truncate_all(migrated_url)


@pytest.fixture()
def database_url(migrated_url: str, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database for one test."""
    with empty_database(migrated_url, tmp_path) as url:
        yield url


def _truncate_all(url: str) -> None:
    from sqlalchemy import text

    from rootline import models
    from rootline.db import make_engine

    engine = make_engine(url)
    tables = ", ".join(f'"{t.name}"' for t in models.Base.metadata.sorted_tables)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {tables} CASCADE"))
    engine.dispose()


# Rate limits count in fixed windows aligned to multiples of their length since the epoch.
# A test that counts failures across a window's end sees its counts start again (a 300 s
# window failed a CI run this way). This window began at the epoch and ends twice
# as far from it as now: no test run reaches its end.
STEADY_RATE_WINDOW_S = 2 * int(time.time())


@pytest.fixture()
def settings(database_url: str, tmp_path: Path) -> Settings:
    from rootline.settings import Settings

    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        load_demo=False,
        max_upload_bytes=5 * 1024 * 1024,
        rate_limit_window_s=STEADY_RATE_WINDOW_S,
    )


@pytest.fixture()
def app(settings: Settings) -> Iterator[FastAPI]:
    from rootline.app import create_app

    application = create_app(settings)
    yield application
    application.state.engine.dispose()


# --- Signing in ----------------------------------------------------------------------
# `client` is signed in as an administrator through the real login route and sends the
# CSRF header on every request; `anon_client` is nobody.

TEST_PASSWORD = "correct horse battery staple"


@functools.cache
def cheap_hash(password: str) -> str:
    """An argon2 hash with the smallest cost, so that the suite's many sign-ins stay fast
    (a hash records its own parameters: verifying it costs what it cost to make)."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash(password)


@contextmanager
def db_session(database_url: str) -> Iterator[Session]:
    """A session on the database, committed when the block ends (for setting up a test)."""
    from rootline.db import make_engine, make_sessionmaker

    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine).begin() as session:
            yield session
    finally:
        engine.dispose()


def add_user(
    database_url: str,
    username: str,
    *,
    password: str | None = TEST_PASSWORD,
    is_admin: bool = False,
    disabled: bool = False,
) -> int:
    """A user straight in the database; its id."""
    from rootline.accounts.models import User

    with db_session(database_url) as session:
        user = User(
            username=username,
            password_hash=None if password is None else cheap_hash(password),
            is_admin=is_admin,
            disabled=disabled,
        )
        session.add(user)
        session.flush()
        return user.id


def add_token(
    database_url: str, user_id: int, *, scope: str = "read-write", incident_id: str | None = None
) -> str:
    """An API token for the user; its secret."""
    import uuid

    from rootline.accounts import service
    from rootline.accounts.models import User

    with db_session(database_url) as session:
        user = session.get(User, user_id)
        assert user is not None
        created = service.create_token(
            session,
            user,
            name="test",
            scope=scope,
            incident_id=uuid.UUID(incident_id) if incident_id else None,
        )
        return created.token


def add_link(database_url: str, user_id: int, **options: int) -> str:
    """A one-time sign-in link for the user (``ttl_ms`` may be given); its token."""
    from rootline.accounts import service
    from rootline.accounts.models import User

    with db_session(database_url) as session:
        user = session.get(User, user_id)
        assert user is not None
        return service.create_link(session, user, **options)


def sign_in(client: TestClient, username: str, password: str = TEST_PASSWORD) -> dict[str, Any]:
    """Sign ``client`` in through the login route; it then sends the CSRF header too."""
    response = client.post("/api/auth/login", json={"username": username, "password": password})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    client.headers["X-CSRF-Token"] = body["csrf_token"]
    return body


ADMIN = "admin"


@pytest.fixture()
def client(app: FastAPI, database_url: str) -> Iterator[TestClient]:
    from fastapi.testclient import TestClient

    add_user(database_url, ADMIN, is_admin=True)
    with TestClient(app) as test_client:
        sign_in(test_client, ADMIN)
        yield test_client


@pytest.fixture()
def anon_client(app: FastAPI) -> Iterator[TestClient]:
    from fastapi.testclient import TestClient

    with TestClient(app) as test_client:
        yield test_client


def wait_until_parsed(
    client: TestClient | httpx.Client, incident_id: str, timeout_s: float = 120
) -> list[dict[str, Any]]:
    """The incident's artifacts once the parse workers have none of them queued."""
    deadline = time.monotonic() + timeout_s
    while True:
        artifacts: list[dict[str, Any]] = client.get(
            f"/api/incidents/{incident_id}/artifacts"
        ).json()
        if not any(a["status"] in {"pending", "parsing"} for a in artifacts):
            return artifacts
        if time.monotonic() > deadline:
            pytest.fail(f"still queued after {timeout_s} s: {artifacts}")
        time.sleep(0.1)


@pytest.fixture()
def incident_id(client: TestClient) -> str:
    response = client.post("/api/incidents", json={"title": "test incident", "timezone": "UTC"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that touches a database is marked `db`, so the PostgreSQL run selects them."""
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)


# --- A real server process ---------------------------------------------------------

ROOTLINE = str(Path(sys.executable).with_name("rootline"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    """A running `rootline serve`: ``str(server)`` is its URL; ``http`` carries ``token``
    (a read-write API token of user ``tester``, made before the server started)."""

    url: str
    token: str | None
    process: subprocess.Popen[str]
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def __str__(self) -> str:
        return self.url

    def drain_output(self, keep: int = 200) -> deque[str]:
        """Read the server's output from now on in a thread, keeping its last ``keep`` lines.

        Nothing reads the pipe otherwise: a test making hundreds of requests fills it with
        access-log lines and the server stops, blocked writing the next one.
        """
        lines: deque[str] = deque(maxlen=keep)
        output = self.process.stdout
        assert output is not None
        threading.Thread(target=lines.extend, args=(output,), daemon=True).start()
        return lines

    @property
    def headers(self) -> dict[str, str]:
        return dict(self.http.headers)

    def peak_rss_bytes(self) -> int:
        """The server process's peak resident memory so far (Linux ``VmHWM``)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        (line,) = [row for row in status.splitlines() if row.startswith("VmHWM:")]
        return int(line.split()[1]) * 1024

    def ingest(
        self, incident: str, *args: str | Path, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """`rootline ingest` into ``incident`` of this server with its token; ``args`` are
        further options and the files."""
        command = [ROOTLINE, "ingest", "--server", self.url, "--token", str(self.token)]
        return subprocess.run(
            [*command, "--incident", incident, *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture()
def server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    token = add_token(database_url, add_user(database_url, "tester"))
    with run_server(database_url, tmp_path, token) as live:
        yield live


@contextmanager
def run_server(
    database_url: str,
    tmp_path: Path,
    token: str | None = None,
    settings: dict[str, str] | None = None,
) -> Iterator[LiveServer]:
    """A `rootline serve` on a free port; ``settings`` are more environment variables for it
    (``ROOTLINE_*``, ``TMPDIR``), adding to or overriding its own."""
    port = free_port()
    env = {
        **os.environ,
        "ROOTLINE_DATABASE_URL": database_url,
        "ROOTLINE_DATA_DIR": str(tmp_path / "data"),
        "ROOTLINE_LOAD_DEMO": "false",
        "ROOTLINE_MAX_UPLOAD_BYTES": str(10 * 1024 * 1024),
        "ROOTLINE_RATE_LIMIT_WINDOW_S": str(STEADY_RATE_WINDOW_S),
        **(settings or {}),
    }
    process = subprocess.Popen(
        [ROOTLINE, "serve", "--port", str(port)],
        env=env,
        cwd=BACKEND_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail(f"server did not start: {process.communicate()[0]}")
    live = LiveServer(url, token, process)
    try:
        yield live
    finally:
        live.http.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # still waiting on stuck requests: a failed test
            process.kill()
            process.wait()
