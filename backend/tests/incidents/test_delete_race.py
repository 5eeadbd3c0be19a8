"""Deleting an incident never takes a blob another incident's upload has just written.

Blobs are shared by content: the delete removes the bytes no artifact refers to any more,
while an upload of the same bytes to another incident may sit between writing the blob
and recording its artifact. Before blob claims, 14 of 40 such races lost the upload on
SQLite (its raw download broke off, its parse failed).
"""

from __future__ import annotations

import os
import threading

import httpx

from tests.conftest import LiveServer

ROUNDS = 40


def race_once(http: httpx.Client, round_number: int) -> str | None:
    """Upload bytes to one incident, then delete it while the same bytes go to another;
    what went wrong, or None."""
    data = b"Last login: racing bytes %d %s\n" % (round_number, os.urandom(8).hex().encode())
    old = http.post("/api/incidents", json={"title": f"old {round_number}"}).json()["id"]
    new = http.post("/api/incidents", json={"title": f"new {round_number}"}).json()["id"]
    octets = {"Content-Type": "application/octet-stream"}
    first = http.post(f"/api/incidents/{old}/artifacts", content=data, headers=octets)
    assert first.status_code in (201, 202), first.text
    start = threading.Barrier(2)
    answers: dict[str, httpx.Response] = {}

    def delete() -> None:
        start.wait()
        answers["delete"] = http.delete(f"/api/incidents/{old}")

    def upload_again() -> None:
        start.wait()
        answers["upload"] = http.post(
            f"/api/incidents/{new}/artifacts", content=data, headers=octets
        )

    threads = [threading.Thread(target=delete), threading.Thread(target=upload_again)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers["delete"].status_code == 204, answers["delete"].text
    assert answers["upload"].status_code in (201, 202), answers["upload"].text
    (artifact,) = answers["upload"].json()["artifacts"]
    try:
        raw = http.get(f"/api/incidents/{new}/artifacts/{artifact['id']}/raw")
    except httpx.HTTPError as exc:  # the blob vanished under a declared Content-Length
        return f"round {round_number}: raw download broke off ({exc!r})"
    if raw.status_code != 200 or raw.content != data:
        return f"round {round_number}: raw download answered {raw.status_code}, {raw.content!r}"
    assert http.delete(f"/api/incidents/{new}").status_code == 204
    return None


def test_an_upload_racing_a_delete_of_the_same_bytes_keeps_its_blob(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, headers=server.headers, timeout=10) as http:
        for round_number in range(ROUNDS):
            lost = race_once(http, round_number)
            assert lost is None, f"the upload lost its bytes to a racing delete: {lost}"
