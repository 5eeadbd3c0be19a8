"""`rootline actions list|create|update`: what a ticketing integration runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from rootline.cli import app
from rootline.settings import get_settings


@pytest.fixture()
def cli(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("ROOTLINE_DATABASE_URL", database_url)
    monkeypatch.setenv("ROOTLINE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def run(cli: CliRunner, *args: str, code: int = 0) -> str:
    result = cli.invoke(app, ["actions", *args])
    assert result.exit_code == code, result.output
    return result.stdout


def test_create_update_list(cli: CliRunner, client: TestClient, incident_id: str) -> None:
    created = json.loads(
        run(
            cli,
            "create",
            "--incident",
            incident_id,
            "--title",
            "Raise wmem_max",
            "--owner",
            "ops",
            "--due",
            "2026-12-01",
            "--external-id",
            "OPS-1",
            "--json",
        )
    )[0]
    assert (created["title"], created["created_by"], created["external_id"]) == (
        "Raise wmem_max",
        "cli",
        "OPS-1",
    )
    # The same external id again updates the item (a sync run twice makes no duplicate).
    again = json.loads(
        run(
            cli,
            "create",
            "--incident",
            incident_id,
            "--external-id",
            "OPS-1",
            "--status",
            "in_progress",
            "--json",
        )
    )[0]
    assert (again["id"], again["status"], again["title"]) == (
        created["id"],
        "in_progress",
        "Raise wmem_max",
    )
    second = json.loads(run(cli, "create", "--incident", incident_id, "--title", "Docs", "--json"))[
        0
    ]

    lines = run(cli, "list").splitlines()
    assert [line.split("\t")[0] for line in lines] == [str(second["id"]), str(created["id"])]
    assert lines[1].split("\t")[1:6] == [
        "in_progress",
        "ops",
        "2026-12-01",
        "OPS-1",
        "test incident",
    ]
    assert run(cli, "list", "--owner", "ops", "--status", "in_progress").count("\n") == 1
    assert run(cli, "list", "--due-before", "2026-11-01") == ""

    updated = json.loads(
        run(cli, "update", "--external-id", "OPS-1", "--status", "done", "--due", "none", "--json")
    )[0]
    assert (updated["status"], updated["due_date"]) == ("done", None)
    by_id = json.loads(run(cli, "update", str(second["id"]), "--owner", "dev", "--json"))[0]
    assert by_id["owner"] == "dev"
    # The API sees what the CLI wrote.
    listed = client.get(f"/api/incidents/{incident_id}/action-items").json()
    assert {i["owner"] for i in listed} == {"ops", "dev"}


def test_refusals(cli: CliRunner, client: TestClient, incident_id: str) -> None:
    run(cli, "create", "--incident", "not-a-uuid", "--title", "x", code=2)
    run(cli, "create", "--incident", incident_id, "--title", "x", "--due", "tomorrow", code=2)
    run(cli, "create", "--incident", incident_id, "--title", "x", "--status", "closed", code=2)
    run(cli, "create", "--incident", incident_id, "--title", "x", "--ticket", "ftp://x", code=2)
    run(cli, "list", "--status", "closed", code=2)
    run(cli, "update", "999", "--status", "done", code=1)
    run(cli, "update", "--status", "done", code=2)
    item = json.loads(run(cli, "create", "--incident", incident_id, "--title", "x", "--json"))[0]
    # Verified fixed needs a checklist item and a capture that rules it out.
    other = client.post("/api/incidents", json={"title": "after"}).json()["id"]
    result = cli.invoke(app, ["actions", "update", str(item["id"]), "--verified-by", other])
    assert result.exit_code == 1 and "checklist item" in result.output
