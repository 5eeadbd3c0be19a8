"""The demo incident loads once, through the normal ingest path, with a checklist that finds its cause."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from rootline import demo
from rootline.app import create_app
from rootline.incidents.models import Incident
from rootline.settings import Settings
from tests.conftest import add_user, db_session, sign_in, wait_until_parsed


def test_demo_loads_once_on_first_start(settings: Settings) -> None:
    assert demo.demo_files(), "the lab capture behind the demo is missing"
    with_demo = settings.model_copy(update={"load_demo": True})
    add_user(str(settings.database_url), "admin", is_admin=True)
    with TestClient(create_app(with_demo)) as client:
        sign_in(client, "admin")
        incidents = client.get("/api/incidents").json()["items"]
        assert [i["title"] for i in incidents] == [demo.DEMO_TITLE]
        demo_id = incidents[0]["id"]
        artifacts = wait_until_parsed(client, demo_id)
        assert {a["host"] for a in artifacts if a["parent_id"]} == {"server", "client"}
        checklist = client.get(f"/api/incidents/{demo_id}/checklist").json()["findings"]
        assert checklist[0]["verdict"] == "confirmed"
        assert "time_wait_storm" in {f["id"] for f in checklist if f["verdict"] == "confirmed"}
        # The server closes first: the card says so and gives the server's remedies, not the
        # client's port range (issue 11 item 5).
        card = next(f for f in checklist if f["id"] == "time_wait_storm")
        assert "the server closes first" in card["summary"]
        assert "listening port (5004)" in card["summary"]
        assert "local port range" not in card["summary"]
        remedies = " ".join(card["remedies"])
        assert "maxKeepAliveRequests" in remedies and "http.maxConnections" in remedies
        assert "sysctl -w net.ipv4.ip_local_port_range" not in remedies
        assert "sysctl -w net.ipv4.tcp_tw_reuse" not in remedies
        client.delete(f"/api/incidents/{demo_id}")
    # A second start (another worker, a restart) never loads it again, even after deletion.
    with TestClient(create_app(with_demo)) as client:
        sign_in(client, "admin")
        assert client.get("/api/incidents").json()["total"] == 0


def test_processes_starting_together_load_the_demo_once(settings: Settings) -> None:
    """Every server process starts the app at the same moment; none may fail to start."""
    from concurrent.futures import ThreadPoolExecutor

    with_demo = settings.model_copy(update={"load_demo": True, "parse_threads": 0})
    apps = [create_app(with_demo) for _ in range(3)]

    def start_and_stop(app: FastAPI) -> None:
        with TestClient(app):
            pass
        app.state.engine.dispose()

    with ThreadPoolExecutor(max_workers=len(apps)) as pool:
        list(pool.map(start_and_stop, apps))
    with db_session(str(settings.database_url)) as session:
        titles = session.scalars(select(Incident.title)).all()
    assert titles == [demo.DEMO_TITLE]
