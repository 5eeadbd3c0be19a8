"""A redacted share link, end to end: no route it serves shows an original address, host
name or port; the pseudonyms are the same on every request; filters take the pseudonyms;
raw downloads are off; and the link opens the view it was made from."""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from rootline.auth import api_routes
from tests.actions.conftest import bundle

# Written for this test: one snapshot of `ss -tan` between two IPv6 hosts and two
# IPv4-mapped ones.
SS_V6 = """State  Recv-Q Send-Q        Local Address:Port          Peer Address:Port Process
LISTEN 0      128                       *:8443                     *:*
ESTAB  0      1200       [2001:db8:10::5]:8443      [2001:db8:20::9]:51234
ESTAB  0      300   [::ffff:192.168.7.20]:9090 [::ffff:192.168.7.31]:40122
"""
# Written for this test: a jstack dump whose thread names carry an address and a host, as
# Dubbo's and Netty's do.
JSTACK = """2025-11-21 04:40:00
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

"DubboServerHandler-10.77.0.1:20880-thread-5" #31 daemon prio=5 os_prio=0 cpu=1.20ms elapsed=10.00s tid=0x00007f0000001000 nid=0x1f waiting on condition  [0x00007f0000002000]
   java.lang.Thread.State: WAITING (parking)
\tat jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
\tat java.util.concurrent.locks.LockSupport.park(java.base@17.0.15/LockSupport.java:341)

"client-db-primary-7-io-1" #32 daemon prio=5 os_prio=0 cpu=0.80ms elapsed=10.00s tid=0x00007f0000003000 nid=0x20 runnable  [0x00007f0000004000]
   java.lang.Thread.State: RUNNABLE
\tat sun.nio.ch.EPoll.wait(java.base@17.0.15/Native Method)
\tat com.example.Client.call(Client.java:42)

"""

HOSTS = {"sender", "db-primary-7"}
V4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d])")
V6 = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F.]*(?![\w:])")


def upload_text(
    client: TestClient, incident_id: str, text: str, filename: str, host: str
) -> dict[str, Any]:
    """Upload ``text`` as one raw-body file and wait for its parse; the answer's JSON."""
    done = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": filename, "host": host, "wait": 60},
        content=text.encode(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert done.status_code == 201, done.text
    answer: dict[str, Any] = done.json()
    return answer


def addresses_in(text: str) -> set[str]:
    """Every IP literal in ``text`` that names a host (not 0.0.0.0, ::, loopback)."""
    found = set()
    for match in V4.findall(text) + V6.findall(text):
        try:
            address = ipaddress.ip_address(match.rstrip("."))
        except ValueError:
            continue
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not (address.is_unspecified or address.is_loopback):
            found.add(str(address))
    return found


def ports_in_labels(series: list[dict[str, Any]]) -> set[str]:
    ports = set()
    for item in series:
        for key, value in item["labels"].items():
            if key == "port":
                ports.add(value)
            elif re.search(r":(\d+)$", value):
                ports.add(re.search(r":(\d+)$", value).group(1))  # type: ignore[union-attr]
    return ports


def setup_incident(client: TestClient) -> tuple[str, str]:
    response = client.post(
        "/api/incidents",
        json={"title": "sender stalls on db-primary-7", "summary": "10.77.0.1 to 10.77.0.2"},
    )
    incident = str(response.json()["id"])
    base = f"/api/incidents/{incident}"
    path = bundle("base")
    uploaded = client.post(
        f"{base}/artifacts",
        files={"file": (path.name, path.read_bytes(), "application/gzip")},
        params={"wait": 120},
    )
    assert uploaded.status_code == 201, uploaded.text
    v6 = upload_text(client, incident, SS_V6, "db-primary-7-ss.txt", "db-primary-7")
    note = client.post(
        f"{base}/annotations",
        json={
            "from_ms": 1_763_700_000_000,
            "text": "failover: db-primary-7 [2001:db8:10::5]:8443 took 10.77.0.2's traffic",
            "host": "db-primary-7",
        },
    )
    assert note.status_code == 201, note.text
    dump = upload_text(client, incident, JSTACK, "jstack.txt", "db-primary-7")
    assert dump["artifacts"][0]["kind"] == "thread_dump", dump
    artifact = next(a["id"] for a in v6["artifacts"])
    return incident, artifact


def shared_gets(app: FastAPI) -> list[str]:
    return sorted(
        path
        for path, route in api_routes(app)
        if path.startswith("/api/shared/{token}") and "GET" in (route.methods or ())
    )


def test_no_route_of_a_redacted_link_shows_an_original(
    app: FastAPI, client: TestClient, anon_client: TestClient
) -> None:
    incident, artifact = setup_incident(client)
    base = f"/api/incidents/{incident}"
    series = client.get(f"{base}/series").json()["items"]
    every_private = json.dumps(
        [
            client.get(f"{base}{path}").json()
            for path in (
                "",
                "/series",
                "/events",
                "/facts",
                "/checklist",
                "/annotations",
                "/artifacts",
            )
        ]
    )
    addresses = addresses_in(every_private)
    ports = ports_in_labels(series)
    hosts = {a["host"] for a in client.get(f"{base}/artifacts").json() if a["host"]}
    assert hosts == HOSTS
    assert {
        "10.77.0.1",
        "10.77.0.2",
        "2001:db8:10::5",
        "2001:db8:20::9",
        "192.168.7.20",
    } <= addresses
    assert {"5001", "8443", "9090", "51234"} <= ports

    view = {
        "from_ms": 1_763_700_000_000,
        "to_ms": 1_763_700_060_000,
        "host": "sender",
        "finding": "small_send_buffer",
        "evidence": 1,
        "lanes": ["tcp.conn.cwnd"],
    }
    created = client.post(f"{base}/shares", json={"redacted": True, "view": view})
    assert created.status_code == 201, created.text
    assert created.json()["redacted"] is True and created.json()["allow_raw"] is False
    token = created.json()["token"]
    assert (
        client.post(f"{base}/shares", json={"redacted": True, "allow_raw": True}).status_code == 400
    )

    # The document and its charts too: published, so the share shows them (a draft it would not).
    assert client.post(f"{base}/postmortem").status_code == 201
    published = client.patch(f"{base}/postmortem", json={"status": "published", "version": 1})
    assert published.status_code == 200, published.text
    charted = next(
        f["id"]
        for f in client.get(f"{base}/checklist").json()["findings"]
        if f["verdict"] == "confirmed"
    )

    events = client.get(f"{base}/events", params={"kind": "thread_dump"}).json()["items"]
    dump_event = next(e["id"] for e in events if e["kind"] == "thread_dump")

    routes = shared_gets(app)
    assert {
        "/api/shared/{token}",
        "/api/shared/{token}/series",
        "/api/shared/{token}/timeline",
        "/api/shared/{token}/checklist",
        "/api/shared/{token}/action-items",
        "/api/shared/{token}/postmortem",
        "/api/shared/{token}/postmortem/charts/{finding_id}.svg",
    } <= set(routes)
    params = {"/api/shared/{token}/timeline": {"max_points": 50}}
    answers: dict[str, str] = {}
    for path in routes:
        url = path.format(
            token=token, artifact_id=artifact, finding_id=charted, event_id=dump_event
        )
        response = anon_client.get(url, params=params.get(path))
        if path.endswith("/raw"):
            assert response.status_code == 403, response.text
        else:
            assert response.status_code == 200, (path, response.text)
        answers[path] = response.text

    for path, text in answers.items():
        assert not addresses_in(text) & addresses, (path, addresses_in(text) & addresses)
        lowered = text.lower()
        for host in HOSTS:
            assert not re.search(rf"(?<![a-z0-9_]){re.escape(host)}(?![a-z0-9_])", lowered), (
                path,
                host,
            )
        for port in ports:
            leak = re.search(rf"[\]\d*a-z]:{port}(?!\d)", text)
            assert not leak, (path, port, text[max(0, leak.start() - 80) : leak.end() + 40])
            assert f'"port":"{port}"' not in text, (path, port)

    # The pseudonyms: in order, the same on every request.
    shared = anon_client.get(f"/api/shared/{token}").json()
    assert shared["redacted"] is True and shared["allow_raw"] is False
    assert shared["incident"]["title"] == "host-b stalls on host-a"
    assert shared["view"] == {**view, "host": "host-b"}
    labels = [s["labels"] for s in anon_client.get(f"/api/shared/{token}/series").json()["items"]]
    locals_ = {item["local"].rsplit(":", 1)[0] for item in labels if "local" in item}
    assert {"10.0.0.1", "[fd00::1]", "[::ffff:10.0.0.3]", "*"} <= locals_, locals_
    assert all(re.fullmatch(r"port-\d+", item["port"]) for item in labels if "port" in item)
    for path in ("/series", "/checklist", "/annotations"):
        assert (
            anon_client.get(f"/api/shared/{token}{path}").text
            == answers[f"/api/shared/{{token}}{path}"]
        )
    # A filter takes the pseudonym.
    on_b = anon_client.get(f"/api/shared/{token}/series", params={"host": "host-b"}).json()
    private_on_sender = client.get(f"{base}/series", params={"host": "sender"}).json()
    assert on_b["total"] == private_on_sender["total"] > 0

    # A plain link of the same incident shows it as it is.
    plain = client.post(f"{base}/shares", json={"view": view}).json()
    plain_shared = anon_client.get(f"/api/shared/{plain['token']}").json()
    assert plain_shared["view"] == view and plain_shared["redacted"] is False
    assert "sender" in anon_client.get(f"/api/shared/{plain['token']}/artifacts").text


def test_share_view_is_validated_and_listed(client: TestClient, incident_id: str) -> None:
    url = f"/api/incidents/{incident_id}/shares"
    for bad in (
        {"from_ms": 2_000_000_000_000, "to_ms": 1_000_000_000_000},
        {"from_ms": 1_000_000_000_000},
        {"lanes": ["x" * 201]},
        {"evidence": -1},
    ):
        assert client.post(url, json={"view": bad}).status_code == 422, bad
    made = client.post(url, json={"view": {"host": "web-1", "lanes": ["gc.pause_ms"]}}).json()
    assert made["view"] == {
        "from_ms": None,
        "to_ms": None,
        "host": "web-1",
        "finding": None,
        "evidence": None,
        "lanes": ["gc.pause_ms"],
    }
    assert client.get(url).json()[0]["view"]["host"] == "web-1"
    assert client.post(url, json={}).json()["view"] is None


def test_a_host_the_incident_gains_after_a_read_is_redacted_too(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    """The redactor is kept between requests until the incident's data version moves: a new
    upload's host name is never shown as it is."""
    base = f"/api/incidents/{incident_id}"

    def upload(host: str) -> None:
        upload_text(client, incident_id, SS_V6, f"{host}-ss.txt", host)

    upload("alpha-web-1")
    token = client.post(f"{base}/shares", json={"redacted": True}).json()["token"]
    first = anon_client.get(f"/api/shared/{token}/artifacts").text
    assert "alpha-web-1" not in first and "host-a" in first
    upload("zulu-db-9")
    second = anon_client.get(f"/api/shared/{token}/artifacts").text
    assert "zulu-db-9" not in second and "host-b" in second


def test_a_redacted_link_finds_connections_by_their_pseudonyms_only(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    """An address search on a redacted link takes the names the link shows; any other text
    would be matched against the real addresses, and whether it found something would tell."""
    base = f"/api/incidents/{incident_id}"
    upload_text(client, incident_id, SS_V6, "db-ss.txt", "db-primary-7")
    assert client.get(f"{base}/connections", params={"q": "2001:db8:20"}).json()["items"]
    token = client.post(f"{base}/shares", json={"redacted": True}).json()["token"]
    shared = f"/api/shared/{token}"
    listed = anon_client.get(f"{shared}/connections")
    assert listed.status_code == 200, listed.text
    assert not addresses_in(listed.text) & {"2001:db8:10::5", "2001:db8:20::9", "192.168.7.31"}
    peers = [c["peer"] for c in listed.json()["items"]]
    assert len(peers) == 2
    for peer in peers:
        found = anon_client.get(f"{shared}/connections", params={"q": peer})
        assert found.status_code == 200, (peer, found.text)
        assert [c["peer"] for c in found.json()["items"]] == [peer], found.text
        series = anon_client.get(f"{shared}/series", params={"connection": peer}).json()
        assert {s["labels"]["peer"] for s in series["items"]} == {peer}
    for name, probe in (("q", "2001:db8"), ("q", "192.168.7"), ("connection", "51234")):
        path = "connections" if name == "q" else "series"
        refused = anon_client.get(f"{shared}/{path}", params={name: probe})
        assert refused.status_code == 400, refused.text
        assert "search by the names it shows" in refused.json()["detail"]


def test_a_redacted_link_lists_facts_by_key_prefix_without_probing_addresses(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    """Fact keys hold addresses in brackets (``tcp.conn.cc[local peer]``): a prefix's
    bracketed part is an address search, pseudonyms only; its namespace is free."""
    base = f"/api/incidents/{incident_id}"
    with_info = SS_V6.replace(
        ":51234\n", ":51234\n\t cubic wscale:7,7 rto:204 rtt:0.5/0.25 cwnd:10\n"
    ).replace(":40122\n", ":40122\n\t bbr wscale:7,7 rto:204 rtt:0.7/0.3 cwnd:12\n")
    upload_text(client, incident_id, with_info, "db-ss.txt", "db-primary-7")
    real = client.get(f"{base}/facts", params={"prefix": "tcp.conn.cc["}).json()["items"]
    assert real, "the capture names each connection's congestion control"
    token = client.post(f"{base}/shares", json={"redacted": True}).json()["token"]
    shared = f"/api/shared/{token}"
    listed = anon_client.get(f"{shared}/facts", params={"prefix": "tcp.conn.cc["})
    assert listed.status_code == 200, listed.text
    assert not addresses_in(listed.text) & {"2001:db8:10::5", "2001:db8:20::9", "192.168.7.31"}
    keys = [f["key"] for f in listed.json()["items"]]
    assert len(keys) == len(real)
    for key in keys:  # each pseudonymised key finds itself
        found = anon_client.get(f"{shared}/facts", params={"prefix": key})
        assert found.status_code == 200, (key, found.text)
        assert [f["key"] for f in found.json()["items"]] == [key], found.text
    # The real address's start would tell whether a connection of it exists.
    for probe in ("tcp.conn.cc[2001:db8", "tcp.conn.cc[192.168.7", "tcp.conn.cc[[2001"):
        refused = anon_client.get(f"{shared}/facts", params={"prefix": probe})
        assert refused.status_code == 400, (probe, refused.text)
        assert "search by the names it shows" in refused.json()["detail"]
