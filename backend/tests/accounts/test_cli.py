"""`rootline users ...`, `rootline tokens ...` and the first start of `rootline serve`."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from rootline.cli import app
from rootline.settings import get_settings
from tests.conftest import ROOTLINE, add_user, run_server

LINK = re.compile(r"^http://127\.0\.0\.1:\d+/api/auth/one-time/[A-Za-z0-9_-]{43}$")


@pytest.fixture()
def cli(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("ROOTLINE_DATABASE_URL", database_url)
    monkeypatch.setenv("ROOTLINE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ROOTLINE_PUBLIC_URL", "http://127.0.0.1:8000")
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_users_add_list_disable_enable_link(cli: CliRunner) -> None:
    added = cli.invoke(app, ["users", "add", "li.wei", "--password-stdin"], input="long-password\n")
    assert added.exit_code == 0, added.output
    assert added.stdout == ""
    with_link = cli.invoke(app, ["users", "add", "ops", "--admin"])
    assert with_link.exit_code == 0
    assert LINK.match(with_link.stdout.strip())
    assert cli.invoke(app, ["users", "add", "ops"]).exit_code == 1
    assert (
        cli.invoke(app, ["users", "add", "x", "--password-stdin"], input="short\n").exit_code == 2
    )

    listed = cli.invoke(app, ["users", "list"]).stdout.splitlines()
    assert [line.split("\t")[:2] for line in listed] == [
        ["li.wei", "-"],
        ["ops", "admin,no-password"],
    ]
    assert cli.invoke(app, ["users", "disable", "li.wei"]).exit_code == 0
    assert "disabled" in cli.invoke(app, ["users", "list"]).stdout.splitlines()[0]
    assert cli.invoke(app, ["users", "enable", "li.wei"]).exit_code == 0
    assert "disabled" not in cli.invoke(app, ["users", "list"]).stdout.splitlines()[0]
    link = cli.invoke(app, ["users", "link", "li.wei"])
    assert link.exit_code == 0 and LINK.match(link.stdout.strip())
    assert cli.invoke(app, ["users", "link", "nobody"]).exit_code == 1


def test_tokens_create_prints_only_the_token(cli: CliRunner, client: TestClient) -> None:
    cli.invoke(app, ["users", "add", "ci", "--password-stdin"], input="long-password\n")
    created = cli.invoke(app, ["tokens", "create", "--user", "ci", "--scope", "ingest"])
    assert created.exit_code == 0, created.output
    token = created.stdout.strip()
    assert created.stdout == f"{token}\n" and re.fullmatch(r"rl_[A-Za-z0-9_-]{43}", token)

    incident = client.post("/api/incidents", json={"title": "x"}).json()["id"]
    scoped = cli.invoke(
        app, ["tokens", "create", "--user", "ci", "--incident", incident, "--name", "vendor"]
    )
    assert scoped.exit_code == 0
    headers = {"Authorization": f"Bearer {scoped.stdout.strip()}"}
    assert client.get(f"/api/incidents/{incident}", headers=headers).status_code == 200

    lines = cli.invoke(app, ["tokens", "list", "--user", "ci"]).stdout.splitlines()
    assert len(lines) == 2 and token not in "".join(lines)
    newest_id = lines[0].split("\t")[0]
    assert "vendor" in lines[0] and incident in lines[0]
    assert cli.invoke(app, ["tokens", "revoke", newest_id]).exit_code == 0
    assert "revoked" in cli.invoke(app, ["tokens", "list"]).stdout.splitlines()[0]
    assert client.get(f"/api/incidents/{incident}", headers=headers).status_code == 401

    assert cli.invoke(app, ["tokens", "create", "--user", "nobody"]).exit_code == 1
    assert cli.invoke(app, ["tokens", "create", "--user", "ci", "--scope", "all"]).exit_code == 1
    assert cli.invoke(app, ["tokens", "revoke", "999999"]).exit_code == 1


def test_first_start_prints_a_one_time_link(database_url: str, tmp_path: Path) -> None:
    with run_server(database_url, tmp_path) as live:
        assert live.process.stdout is not None
        deadline = time.monotonic() + 20
        link = None
        while link is None and time.monotonic() < deadline:
            line = live.process.stdout.readline().strip()
            link = line if LINK.match(line) else None
        assert link is not None, "serve printed no one-time link"
        assert link.startswith(f"{live.url}/api/auth/one-time/")
        with httpx.Client(base_url=live.url) as browser:
            signed_in = browser.get(link)
            assert signed_in.status_code == 303 and signed_in.headers["location"] == "/"
            me = browser.get("/api/auth/me").json()
            assert me["user"] == {
                "id": me["user"]["id"],
                "username": "admin",
                "is_admin": True,
                "has_password": False,
            }
            assert browser.get(link).status_code == 404


def _rootline(database_url: str, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """`rootline ARGS` in a process of its own, on ``database_url``."""
    env = {**os.environ, "ROOTLINE_DATABASE_URL": database_url}
    env["ROOTLINE_DATA_DIR"] = str(tmp_path / "data")
    return subprocess.Popen(
        [ROOTLINE, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_tokens_create_waits_for_a_busy_database(database_url: str, tmp_path: Path) -> None:
    """Right after `make run` the demo is being parsed: a writer holds SQLite's lock.

    The command read the user, then wanted to write on a snapshot the writer had made
    stale: "database is locked" at once, a 100-line traceback. It now takes the write
    lock first and waits its turn.
    """
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's single writer lock")
    from sqlalchemy import text

    from rootline.db import make_engine, writer_engine

    add_user(database_url, "ci")
    engine = make_engine(database_url)
    try:
        with writer_engine(engine).begin() as writer:  # the parse worker, mid-transaction
            writer.execute(text("UPDATE users SET last_login_at_ms = 1"))
            command = _rootline(database_url, tmp_path, "tokens", "create", "--user", "ci")
            time.sleep(4)  # the command has started, read, and wants to write
        stdout, stderr = command.communicate(timeout=60)
    finally:
        engine.dispose()
    assert command.returncode == 0, stderr
    assert re.fullmatch(r"rl_[A-Za-z0-9_-]{43}\n", stdout)


def test_a_database_failure_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    unreachable = "postgresql+psycopg://postgres@127.0.0.1:1/rootline"
    command = _rootline(unreachable, tmp_path, "tokens", "create", "--user", "ci")
    stdout, stderr = command.communicate(timeout=60)
    assert command.returncode == 1
    assert stdout == ""
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("rootline: database error:"), stderr
