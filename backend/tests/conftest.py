"""Shared test fixtures: where the corpus and our own captured fixtures live."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

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


@pytest.fixture()
def database_url(migrated_url: str, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database for one test."""
    if migrated_url.startswith("sqlite"):
        import shutil

        template = Path(migrated_url.split("///", 1)[1])
        target = tmp_path / "rootline.db"
        shutil.copyfile(template, target)
        yield f"sqlite:///{target}"
        return
    yield migrated_url
    _truncate_all(migrated_url)


def _truncate_all(url: str) -> None:
    from sqlalchemy import text

    from rootline import models
    from rootline.db import make_engine

    engine = make_engine(url)
    tables = ", ".join(f'"{t.name}"' for t in models.Base.metadata.sorted_tables)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {tables} CASCADE"))
    engine.dispose()


@pytest.fixture()
def settings(database_url: str, tmp_path: Path) -> Settings:
    from rootline.settings import Settings

    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        load_demo=False,
        max_upload_bytes=5 * 1024 * 1024,
    )


@pytest.fixture()
def app(settings: Settings) -> Iterator[FastAPI]:
    from rootline.app import create_app

    application = create_app(settings)
    yield application
    application.state.engine.dispose()


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    from fastapi.testclient import TestClient

    with TestClient(app) as test_client:
        yield test_client


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


@pytest.fixture()
def server(database_url: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "ROOTLINE_DATABASE_URL": database_url,
        "ROOTLINE_DATA_DIR": str(tmp_path / "data"),
        "ROOTLINE_LOAD_DEMO": "false",
        "ROOTLINE_MAX_UPLOAD_BYTES": str(10 * 1024 * 1024),
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
    yield url
    process.terminate()
    process.wait(timeout=10)
