"""Compressed single files (gz, bz2, xz, zst), alone and inside bundles, through one path.

Every fixture is compressed here, at test time, from a GC log captured with java 17 (see
``fixtures/gc_unified/README.md``) or from text written here. The same file goes through
``bundles.unpack``, the offline CLI (``rootline parse`` / ``analyze``) and the server
(upload, parse worker), which open it with the one function ``bundles.open_nested``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from rootline import bundles
from rootline.bundles import BundleLimits, bundle_format, open_nested, unpack
from rootline.cli import app as cli_app
from tests.conftest import FIXTURES_DIR

GC_LOG = (FIXTURES_DIR / "gc_unified" / "g1-time-uptime-level-tags.log").read_bytes()
SS_TAN = (FIXTURES_DIR / "ss" / "ss-tan.txt").read_bytes()
OTHER_GC_LOG = (FIXTURES_DIR / "gc_unified" / "parallel-time-uptime-level-tags.log").read_bytes()
SS_S = (FIXTURES_DIR / "ss" / "ss-s.txt").read_bytes()
# Text written here: 2.5 MiB of distinct lines (cut anywhere, the part before is a prefix).
LINES = b"".join(b"line %07d of a text written for the test\n" % n for n in range(60_000))
MiB = 1024 * 1024


def _zstd(data: bytes) -> bytes:
    """As the zstd command writes it: with a content checksum."""
    return zstandard.ZstdCompressor(level=3, write_checksum=True).compress(data)


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": _zstd,
}
LABELS = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
FORMATS = list(COMPRESSORS)


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------- unpacking


def test_a_gzipped_uptime_only_gc_log_does_not_stretch_the_window_to_1970(
    client: TestClient, incident_id: str
) -> None:
    """Its member is unanchored (JVM uptime only): neither it nor the .gz around it may pull
    the incident's window back to 1970."""
    log = (FIXTURES_DIR / "gc_unified" / "parallel-uptime.log").read_bytes()
    artifacts = _upload(client, incident_id, gzip.compress(log), "gc.log.gz")
    member = next(a for a in artifacts if a["kind"] != "bundle")
    assert member["anchored"] is False
    bundle = next(a for a in artifacts if a["kind"] == "bundle")
    assert bundle["time_start_ms"] is None, bundle
    incident = client.get(f"/api/incidents/{incident_id}").json()
    assert incident["window_start_ms"] is None and incident["window_end_ms"] is None, incident


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_compressed_file_is_a_bundle_of_its_content_named_without_the_suffix(fmt: str) -> None:
    data = COMPRESSORS[fmt](LINES)
    assert bundle_format(data) == fmt
    bundle = unpack(data, name=f"logs/gc.log.1.{fmt}")
    assert bundle.format == fmt
    assert [(m.path, m.data) for m in bundle.members] == [("logs/gc.log.1", LINES)]
    assert bundle.diagnostics == [] and bundle.refused == []


def test_the_format_comes_from_the_magic_bytes_never_the_name() -> None:
    xz_named_gz = unpack(lzma.compress(LINES), name="gc.log.gz")
    assert xz_named_gz.format == "xz"
    assert [m.path for m in xz_named_gz.members] == ["gc.log.gz"]  # not its suffix: kept
    assert bundle_format(b"plain text that only calls itself x.gz\n") is None
    assert [m.path for m in unpack(gzip.compress(LINES), name="GC.LOG.GZ").members] == ["GC.LOG"]
    assert [m.path for m in unpack(gzip.compress(LINES)).members] == ["decompressed"]


def test_a_compressed_tar_of_any_format_is_a_tar_bundle() -> None:
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        info = tarfile.TarInfo("a/ss.txt")
        info.size = len(SS_TAN)
        archive.addfile(info, io.BytesIO(SS_TAN))
    for fmt, compress in COMPRESSORS.items():
        bundle = unpack(compress(tar.getvalue()))
        assert bundle.format == f"tar.{fmt}"
        assert [(m.path, m.data) for m in bundle.members] == [("a/ss.txt", SS_TAN)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_truncated_stream_keeps_what_came_before_with_a_clear_diagnostic(fmt: str) -> None:
    data = COMPRESSORS[fmt](LINES)
    bundle = unpack(data[: len(data) * 2 // 3], name=f"gc.log.1.{fmt}")
    (member,) = bundle.members
    assert 0 < len(member.data) < len(LINES) and LINES.startswith(member.data)
    (message,) = bundle.diagnostics
    pattern = rf"gc\.log\.1: {LABELS[fmt]} stream truncated after [\d.]+ (KiB|MiB); kept the "
    assert re.match(pattern, message), message


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stream_cut_before_any_content_is_a_diagnostic_and_no_member(fmt: str) -> None:
    data = COMPRESSORS[fmt](LINES)
    bundle = unpack(data[:12], name=f"gc.log.1.{fmt}")
    assert bundle.members == []
    (message,) = bundle.diagnostics
    assert message.startswith(f"gc.log.1: {LABELS[fmt]} stream ") and "nothing could be read" in (
        message
    ), message


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_corrupt_stream_is_a_diagnostic_not_a_crash(fmt: str) -> None:
    data = bytearray(COMPRESSORS[fmt](LINES))
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(byte ^ 0x55 for byte in data[middle : middle + 64])
    bundle = unpack(bytes(data), name=f"x.{fmt}")
    # What came out before the damage is kept (deflate has no check before its trailer: the
    # rest may be garbage, and the trailer's CRC says so).
    (member,) = bundle.members
    assert member.data[: len(LINES) // 4] == LINES[: len(LINES) // 4]
    (message,) = bundle.messages()
    corrupt = rf"x: {LABELS[fmt]} stream corrupt after [\d.]+ (KiB|MiB) \(.+\); kept the "
    assert re.match(corrupt, message) or (
        fmt == "gz" and message == "gzip trailer CRC or size mismatch: data may be corrupt"
    ), message


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_decompression_bomb_is_stopped_naming_the_limit(fmt: str) -> None:
    """Past the ratio floor (64 MiB; 1 MiB here, to keep the test small) a bomb is stopped
    and its prefix kept with a diagnostic naming the limit."""
    floor = BundleLimits(ratio_floor_bytes=MiB)
    bundle = unpack(COMPRESSORS[fmt](bytes(64 * MiB)), floor, name=f"zeros.{fmt}")
    (member,) = bundle.members
    assert MiB <= member.size < 32 * MiB and member.data == bytes(member.size)
    (message,) = bundle.diagnostics
    assert (
        message.startswith("zeros: ")
        and "max_compression_ratio" in message
        and "; kept the first " in message
    )
    # Noise first lifts no allowance: the ratio past the floor counts bytes past the floor.
    noisy = COMPRESSORS[fmt](os.urandom(MiB) + bytes(64 * MiB))
    (member,) = unpack(noisy, floor, name=f"noisy.{fmt}").members
    assert member.size < 32 * MiB
    # The member size limit stops it too, counted on real bytes.
    small = BundleLimits(max_member_bytes=4 * MiB)
    (message,) = unpack(noisy, small, name=f"noisy.{fmt}").diagnostics
    assert "max_member_bytes" in message


@pytest.mark.parametrize("fmt", FORMATS)
def test_concatenated_streams_are_read_as_one(fmt: str) -> None:
    first, second = LINES[: len(LINES) // 3], LINES[len(LINES) // 3 :]
    compress = COMPRESSORS[fmt]
    bundle = unpack(compress(first) + compress(second), name=f"cat.{fmt}")
    assert [m.data for m in bundle.members] == [LINES]
    assert bundle.diagnostics == []


def test_multi_member_gzip_as_written_by_cat_with_trailing_zero_padding() -> None:
    parts = [GC_LOG[:40_000], GC_LOG[40_000:41_000], GC_LOG[41_000:]]
    data = b"".join(gzip.compress(part) for part in parts) + bytes(512)
    (member,) = unpack(data, name="gc.log.1.gz").members
    assert member.data == GC_LOG


def test_a_bad_gzip_trailer_keeps_the_content_with_a_diagnostic() -> None:
    data = bytearray(gzip.compress(LINES))
    data[-8] ^= 0xFF
    bundle = unpack(bytes(data), name="x.gz")
    assert [m.data for m in bundle.members] == [LINES]
    assert bundle.diagnostics == ["gzip trailer CRC or size mismatch: data may be corrupt"]


def test_compressed_members_of_a_tar_gz_and_a_zip_are_opened_one_level_deeper() -> None:
    outer = _tar_gz({"logs/gc.log.1.gz": gzip.compress(GC_LOG), "logs/ss.txt": SS_TAN})
    top = open_nested(outer, "capture.tar.gz", depth=0)
    assert top is not None and [m.path for m in top.members] == ["logs/gc.log.1.gz", "logs/ss.txt"]
    inner = open_nested(top.members[0].data, top.members[0].path, depth=1)
    assert inner is not None and [(m.path, m.data) for m in inner.members] == [
        ("logs/gc.log.1", GC_LOG)
    ]
    assert open_nested(top.members[1].data, "logs/ss.txt", depth=1) is None  # parsed as is

    zipped = _zip({"gc.log.xz": lzma.compress(GC_LOG)})
    top = open_nested(zipped, "capture.zip", depth=0)
    assert top is not None
    inner = open_nested(top.members[0].data, top.members[0].path, depth=1)
    assert inner is not None and [(m.path, m.data) for m in inner.members] == [("gc.log", GC_LOG)]


def test_a_zipped_collector_bundle_of_rotated_logs_opens_to_the_log() -> None:
    """zip > tar.gz > gc.log.1.gz: three levels, the depth a mailed collector bundle has."""
    data, name = _zip({"bundle.tar.gz": _tar_gz({"gc.log.1.gz": gzip.compress(GC_LOG)})}), "x.zip"
    for depth in range(3):
        opened = open_nested(data, name, depth=depth)
        assert opened is not None and not opened.diagnostics, (depth, opened)
        data, name = opened.members[0].data, opened.members[0].path
    assert (name, data) == ("gc.log.1", GC_LOG)
    assert open_nested(data, name, depth=3) is None  # plain text: parsed as it is


def test_nesting_stops_at_max_bundle_depth() -> None:
    too_deep = open_nested(gzip.compress(GC_LOG), "gc.log.gz", depth=bundles.MAX_BUNDLE_DEPTH)
    assert too_deep is not None and too_deep.members == []
    assert too_deep.diagnostics == [
        f"bundle nested deeper than {bundles.MAX_BUNDLE_DEPTH} levels: not unpacked"
    ]


# --------------------------------------------------------------------------- the CLI


def _cli(*args: str) -> Any:
    done = CliRunner().invoke(cli_app, list(args))
    assert done.exit_code == 0, done.output
    return done


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_parse_reads_a_compressed_gc_log(fmt: str, tmp_path: Path) -> None:
    path = tmp_path / f"gc.log.1.{fmt}"
    path.write_bytes(COMPRESSORS[fmt](GC_LOG))
    plain = tmp_path / "gc.log.1"
    plain.write_bytes(GC_LOG)
    body = json.loads(_cli("parse", "--json", str(path)).stdout)
    expected = json.loads(_cli("parse", "--json", str(plain)).stdout)
    assert body["path"] == f"{path}!gc.log.1"
    assert (body["kind"], body["status"]) == ("gc_unified", "parsed")
    assert body["series"] == expected["series"] and body["events"] == expected["events"]


def test_cli_analyze_reads_every_compressed_format(tmp_path: Path) -> None:
    for fmt, compress in COMPRESSORS.items():
        (tmp_path / f"gc-{fmt}.log.{fmt}").write_bytes(compress(GC_LOG))
    done = _cli("analyze", str(tmp_path))
    assert "Read 4 of 4 artifacts" in done.stdout


def test_cli_parse_reports_a_truncated_file_and_keeps_its_content(tmp_path: Path) -> None:
    data = gzip.compress(GC_LOG)
    path = tmp_path / "gc.log.1.gz"
    path.write_bytes(data[: len(data) // 2])
    report, content = json.loads(_cli("parse", "--json", str(path)).stdout)
    # Its prefix was kept and read: partial, as the server says, not failed.
    assert (report["path"], report["kind"], report["status"]) == (str(path), "bundle", "partial")
    assert re.match(
        r"gc\.log\.1: gzip stream truncated after [\d.]+ KiB", report["diagnostics"][0]["message"]
    )
    assert content["path"] == f"{path}!gc.log.1" and content["kind"] == "gc_unified"
    assert content["series"]


def test_cli_kind_is_passed_to_the_content_of_a_compressed_file(tmp_path: Path) -> None:
    path = tmp_path / "app.gz"
    path.write_bytes(gzip.compress(GC_LOG))
    body = json.loads(_cli("parse", "--json", "--kind", "gc_unified", str(path)).stdout)
    assert (body["path"], body["kind"]) == (f"{path}!app", "gc_unified")


# --------------------------------------------------------------------------- the server


def _upload(client: TestClient, incident_id: str, data: bytes, filename: str) -> list[Any]:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=data,
        params={"wait": "60", "filename": filename},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    artifacts: list[Any] = response.json()["artifacts"]
    return artifacts


@pytest.mark.parametrize("fmt", FORMATS)
def test_api_upload_keeps_the_raw_bytes_and_parses_the_content(
    fmt: str, client: TestClient, incident_id: str
) -> None:
    data = COMPRESSORS[fmt](GC_LOG)
    compressed, content = _upload(client, incident_id, data, f"gc.log.1.{fmt}")
    assert (compressed["filename"], compressed["kind"], compressed["status"]) == (
        f"gc.log.1.{fmt}",
        "bundle",
        "parsed",
    )
    assert (content["filename"], content["kind"], content["status"]) == (
        "gc.log.1",
        "gc_unified",
        "parsed",
    )
    assert content["parent_id"] == compressed["id"] and content["series_count"] > 0
    assert content["size_bytes"] == len(GC_LOG) and compressed["size_bytes"] == len(data)
    raw = client.get(f"/api/incidents/{incident_id}/artifacts/{compressed['id']}/raw")
    assert raw.content == data  # the bytes as uploaded, always
    unpacked = client.get(f"/api/incidents/{incident_id}/artifacts/{content['id']}/raw")
    assert unpacked.content == GC_LOG


def test_api_upload_of_a_truncated_file_is_partial_with_the_reason(
    client: TestClient, incident_id: str
) -> None:
    # (zstd gives nothing of a block cut short, and a block holds up to 128 KiB: this GC
    # log is one; gzip's are smaller.)
    data = gzip.compress(GC_LOG)
    compressed, content = _upload(client, incident_id, data[: len(data) // 2], "gc.log.gz")
    assert (compressed["kind"], compressed["status"]) == ("bundle", "partial")
    (message,) = [d["message"] for d in compressed["diagnostics"]]
    assert re.match(r"gc\.log: gzip stream truncated after [\d.]+ KiB; kept the ", message)
    assert content["kind"] == "gc_unified" and content["series_count"] > 0


def test_api_upload_of_a_gz_holding_binary_data(client: TestClient, incident_id: str) -> None:
    binary = bytes(range(256)) * 64 + os.urandom(4096)
    compressed, content = _upload(client, incident_id, gzip.compress(binary), "core.bin.gz")
    assert (compressed["kind"], compressed["status"]) == ("bundle", "parsed")
    assert content["filename"] == "core.bin" and content["size_bytes"] == len(binary)
    assert (content["kind"], content["status"]) == ("unknown", "failed")
    assert content["diagnostics"]


def test_api_upload_of_a_bomb_is_stopped_naming_the_limit(
    client: TestClient, incident_id: str
) -> None:
    bomb = gzip.compress(bytes(96 * MiB), compresslevel=1)
    compressed, content = _upload(client, incident_id, bomb, "zeros.gz")
    assert (compressed["kind"], compressed["status"]) == ("bundle", "partial")
    (message,) = [d["message"] for d in compressed["diagnostics"]]
    assert message.startswith("zeros: ") and "max_compression_ratio" in message
    assert 64 * MiB <= content["size_bytes"] < 96 * MiB  # the prefix, past the ratio floor


def _nested_capture() -> bytes:
    """A collector-style tar.gz holding a rotated gc.log.1.gz, a zstd ss capture, a plain
    file and a zip whose own member is plain. (All different: the server keeps one artifact
    of the same bytes from the same host.)"""
    folder = "rootline-web-1-20261121T072900"
    return _tar_gz(
        {
            f"{folder}/gc.log.1.gz": gzip.compress(GC_LOG[:50_000])
            + gzip.compress(GC_LOG[50_000:]),
            f"{folder}/gc.log": OTHER_GC_LOG,
            f"{folder}/ss-tan.txt.zst": _zstd(SS_TAN),
            f"{folder}/more.zip": _zip({"ss/ss-s.txt": SS_S}),
            f"{folder}/notes.bin.xz": lzma.compress(os.urandom(2048)),
        }
    )


def test_cli_and_server_open_a_nested_bundle_into_the_same_artifacts(
    client: TestClient, incident_id: str, tmp_path: Path
) -> None:
    data = _nested_capture()
    served = _upload(client, incident_id, data, "capture.tar.gz")
    path = tmp_path / "capture.tar.gz"
    path.write_bytes(data)
    offline = json.loads(_cli("parse", "--json", str(path)).stdout)

    def leaf(item: dict[str, Any], name: str) -> tuple[str, str, str, int]:
        return (name, item["kind"], item["status"], item.get("series_count", 0))

    from_server = sorted(
        leaf(a, a["filename"]) for a in served if a["kind"] != "bundle"
    )  # members of members included: the upload answers with the whole tree
    from_cli = sorted(
        (item["path"].rsplit("!", 1)[1], item["kind"], item["status"], len(item["series"]))
        for item in offline
    )
    assert from_server == from_cli
    names = {name for name, *_ in from_cli}
    assert names == {
        "rootline-web-1-20261121T072900/gc.log.1",
        "rootline-web-1-20261121T072900/gc.log",
        "rootline-web-1-20261121T072900/ss-tan.txt",
        "rootline-web-1-20261121T072900/notes.bin",
        "ss/ss-s.txt",
    }
    # The CLI's nested names say where each came from.
    assert f"{path}!rootline-web-1-20261121T072900/gc.log.1.gz!" in " ".join(
        item["path"] for item in offline
    )
    containers = [a for a in served if a["kind"] == "bundle"]
    assert len(containers) == 5  # the tar.gz, gc.log.1.gz, ss-tan.txt.zst, more.zip, .xz
    assert all(a["status"] == "parsed" for a in containers)
    assert {a["host"] for a in served if a["kind"] != "bundle"} == {"web-1"}


@pytest.mark.parametrize(
    ("tool", "fmt"), [("gzip", "gz"), ("bzip2", "bz2"), ("xz", "xz"), ("zstd", "zst")]
)
def test_files_written_by_the_compression_commands(tool: str, fmt: str, tmp_path: Path) -> None:
    """What logrotate and people really run: gzip stores the file's name in its header,
    xz a CRC-64 check, zstd a content size and checksum."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    log = tmp_path / "gc.log.1"
    log.write_bytes(GC_LOG)
    subprocess.run([tool, "-q", str(log)], check=True, timeout=60)
    path = tmp_path / f"gc.log.1.{fmt}"
    bundle = unpack(path.read_bytes(), name=path.name)
    assert (bundle.format, bundle.messages()) == (fmt, [])
    assert [(m.path, m.data) for m in bundle.members] == [("gc.log.1", GC_LOG)]
    body = json.loads(_cli("parse", "--json", str(path)).stdout)
    assert (body["path"], body["kind"]) == (f"{path}!gc.log.1", "gc_unified")


# --------------------------------------------------------------------------- real ratios


def _repeated_thread_dumps(count: int = 60) -> bytes:
    """``count`` near-identical jstack dumps of 250 threads a few seconds apart, as a script
    polling a hung JVM writes them: some 8 MB that ``xz -9`` squeezes 700:1 and more."""
    frames = "".join(
        f"\tat com.example.service.Handler{n}.handle(Handler{n}.java:{100 + n})\n"
        for n in range(12)
    )
    threads = "".join(
        f'"http-nio-8080-exec-{t}" #{t + 40} daemon prio=5 os_prio=0 tid=0x00007f{t:08x} '
        f"nid=0x{t + 4000:x} waiting for monitor entry [0x00007f3a{t:08x}]\n"
        "   java.lang.Thread.State: BLOCKED (on object monitor)\n"
        f"{frames}\t- waiting to lock <0x00000000c0a1b2c3> (a java.lang.Object)\n\n"
        for t in range(250)
    )
    return "".join(
        f"2026-11-26 16:{n // 12:02d}:{n % 12 * 5:02d}\nFull thread dump OpenJDK 64-Bit Server "
        f"VM (17.0.9+9 mixed mode):\n\n{threads}"
        for n in range(count)
    ).encode()


def test_repeated_thread_dumps_compressed_700_to_1_are_kept_whole_alone_and_in_a_tar() -> None:
    dumps = _repeated_thread_dumps()
    packed = lzma.compress(dumps, preset=9)
    assert len(dumps) > 6 * MiB and len(dumps) / len(packed) > 500
    bundle = unpack(packed, name="hung-jstack.log.xz")
    assert bundle.messages() == [] and [m.data for m in bundle.members] == [dumps]

    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w:xz", preset=9) as archive:
        for name, data in (("jstack.log", dumps), ("ss.txt", SS_TAN)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    bundle = unpack(tar.getvalue())
    assert bundle.messages() == []
    assert [(m.path, m.data) for m in bundle.members] == [("jstack.log", dumps), ("ss.txt", SS_TAN)]


@pytest.mark.parametrize("fmt", ["tar.xz", "zip", "xz"])
def test_a_member_stopped_by_a_limit_keeps_its_prefix_and_the_other_members(fmt: str) -> None:
    small = BundleLimits(max_member_bytes=MiB)
    if fmt == "xz":
        bundle = unpack(lzma.compress(LINES), small, name="lines.txt.xz")
    elif fmt == "zip":
        bundle = unpack(_zip({"lines.txt": LINES, "ss.txt": SS_TAN}), small)
    else:
        tar = io.BytesIO()
        with tarfile.open(fileobj=tar, mode="w:xz") as archive:
            for name, data in (("lines.txt", LINES), ("ss.txt", SS_TAN)):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        bundle = unpack(tar.getvalue(), small)
    first, *rest = bundle.members
    assert first.path == "lines.txt" and 0 < len(first.data) <= MiB
    assert LINES.startswith(first.data)
    assert [m.data for m in rest] == ([] if fmt == "xz" else [SS_TAN])
    assert bundle.refused == []
    (message,) = bundle.diagnostics
    assert message.startswith("lines.txt: more than 1048576 bytes unpacked (max_member_bytes)")
    assert "; kept the first " in message
