"""Hostile and damaged uploads through the API: each is kept verbatim, reported, and harms nothing."""

from __future__ import annotations

import io
import zipfile

from fastapi.testclient import TestClient

from tests.artifacts.test_endpoints import upload_raw
from tests.conftest import FIXTURES_DIR

GC_LOG = FIXTURES_DIR / "gc_unified" / "g1-time-uptime-level-tags.log"
SS_LOOP = FIXTURES_DIR / "ss" / "ss-tinm-loop.txt"
NMON = FIXTURES_DIR / "nmon" / "linux-debian12-nmon16n-stress-60x1s.nmon"


def raw_of(client: TestClient, incident_id: str, artifact_id: str) -> bytes:
    return client.get(f"/api/incidents/{incident_id}/artifacts/{artifact_id}/raw").content


def test_zip_declaring_2_gb_is_refused_and_the_rest_ingested(
    client: TestClient, incident_id: str
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("rootline-db-1-20261121T072100/nmon.nmon", NMON.read_bytes())
        archive.writestr("rootline-db-1-20261121T072100/huge.bin", b"\0" * 5000)
    data = buffer.getvalue()
    # Forge the sizes of huge.bin to claim 2 GB, in the central directory and the local header.
    forged = bytearray(data)
    name = b"rootline-db-1-20261121T072100/huge.bin"
    for signature, size_offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        at = forged.find(signature + b"", 0)
        while at != -1:
            name_at = at + (46 if signature == b"PK\x01\x02" else 30)
            if forged[name_at : name_at + len(name)] == name:
                forged[at + size_offset : at + size_offset + 4] = (2 * 1024**3).to_bytes(
                    4, "little"
                )
            at = forged.find(signature, at + 4)
    body = upload_raw(client, incident_id, bytes(forged), filename="bomb.zip")
    bundle, *members = body["artifacts"]
    assert bundle["kind"] == "bundle"
    assert bundle["status"] == "partial"
    assert any("huge.bin" in d["message"] for d in bundle["diagnostics"])
    assert [(m["kind"], m["host"]) for m in members] == [("nmon", "db-1")]
    assert raw_of(client, incident_id, bundle["id"]) == bytes(forged)


def test_mixed_formats_in_one_file_keep_the_main_one_and_report_the_rest(
    client: TestClient, incident_id: str
) -> None:
    ss_text = SS_LOOP.read_text()
    gc_lines = GC_LOG.read_text().splitlines(keepends=True)[:5]
    mixed = ss_text + "".join(gc_lines)
    artifact = upload_raw(client, incident_id, mixed.encode(), filename="mixed.txt")["artifacts"][0]
    assert artifact["kind"] == "ss"
    assert artifact["status"] == "partial"
    first_gc_line = ss_text.count("\n") + 1
    assert artifact["diagnostics"][0]["line"] == first_gc_line
    assert raw_of(client, incident_id, artifact["id"]) == mixed.encode()


def test_gc_log_with_garbage_between_records(client: TestClient, incident_id: str) -> None:
    lines = GC_LOG.read_text().splitlines(keepends=True)
    clean = upload_raw(client, incident_id, GC_LOG.read_bytes(), filename="clean.log")["artifacts"][
        0
    ]
    lines.insert(len(lines) // 2, "\x1b[31m#### garbage from a terminal ####\x1b[0m\n")
    lines.insert(len(lines) // 4, "Killed\n")
    dirty = upload_raw(client, incident_id, "".join(lines).encode(), filename="dirty.log")[
        "artifacts"
    ][0]
    assert dirty["kind"] == clean["kind"] == "gc_unified"
    assert dirty["status"] == "partial"
    assert len(dirty["diagnostics"]) == 2
    assert dirty["event_count"] == clean["event_count"]


def test_truncated_nmon_mid_line(client: TestClient, incident_id: str) -> None:
    data = NMON.read_bytes()
    cut = data[: int(len(data) * 0.7)]
    cut = cut[: cut.rfind(b",") + 1]  # end inside a data line
    artifact = upload_raw(client, incident_id, cut, filename="cut.nmon")["artifacts"][0]
    assert (artifact["kind"], artifact["status"]) == ("nmon", "partial")
    last_line = cut.count(b"\n") + 1
    assert any(
        d["line"] == last_line and "mid-line" in d["message"] for d in artifact["diagnostics"]
    )
    assert artifact["series_count"] > 10


def test_a_failed_artifact_leaves_the_others_intact(client: TestClient, incident_id: str) -> None:
    good = upload_raw(client, incident_id, SS_LOOP.read_bytes())["artifacts"][0]
    upload_raw(client, incident_id, b"\x00\x01\x02garbage" * 100, filename="junk.bin")
    again = client.get(f"/api/incidents/{incident_id}/artifacts/{good['id']}").json()
    assert (again["status"], again["series_count"]) == ("parsed", good["series_count"])
    assert (
        client.get(f"/api/incidents/{incident_id}/series").json()["total"] == good["series_count"]
    )
