"""Files within the upload limit cannot blow up the server's memory.

A tar.gz of a few MiB holding members of zeros: the old unpacker held every member in
memory (and joined its chunks again), and measured a tar.gz member's ratio against its own
declared size, so nothing stopped it short of the whole-bundle limits. A capture that is
one enormous line: ``line.split()`` made one string per word. A compressed single file (gz,
zst) of zeros behind some noise. All are run on a real server while its peak resident
memory (VmHWM) is watched.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from tests.conftest import FIXTURES_DIR, LiveServer, add_token, add_user, run_server

MiB = 1024 * 1024
SS_TAN = FIXTURES_DIR / "ss" / "ss-tan.txt"
# What the server may grow by while it unpacks or parses one such file.
RSS_GROWTH_LIMIT = 160 * MiB


@pytest.fixture()
def roomy(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """A server taking files up to 64 MiB (a line of 48 MiB is within its limit)."""
    token = add_token(database_url, add_user(database_url, "tester"))
    with run_server(
        database_url, tmp_path, token, settings={"ROOTLINE_MAX_UPLOAD_BYTES": str(64 * MiB)}
    ) as live:
        yield live


class Zeros(io.RawIOBase):
    """``size`` zero bytes, made as they are read."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        size = min(len(target), self.left)
        target[:size] = bytes(size)
        self.left -= size
        return size


def zero_bomb(member_bytes: int) -> bytes:
    """A tar.gz of two members of zeros, beside 3 MiB of noise (which lifts the whole-bundle
    ratio allowance past the zeros) and a real capture."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        for name, size, source in (
            ("capture/ss-tan.txt", SS_TAN.stat().st_size, io.BytesIO(SS_TAN.read_bytes())),
            ("capture/noise.bin", 3 * MiB, io.BytesIO(os.urandom(3 * MiB))),
            ("capture/zeros-1.txt", member_bytes, Zeros(member_bytes)),
            ("capture/zeros-2.txt", member_bytes, Zeros(member_bytes)),
        ):
            info = tarfile.TarInfo(name)
            info.size = size
            archive.addfile(info, source)  # type: ignore[arg-type]
    return buffer.getvalue()


def upload(server: LiveServer, data: bytes, filename: str) -> list[dict[str, object]]:
    incident = server.http.post("/api/incidents", json={"title": filename}).json()["id"]
    response = server.http.post(
        f"/api/incidents/{incident}/artifacts",
        params={"filename": filename, "wait": 120},
        content=data,
        headers={"Content-Type": "application/octet-stream"},
        timeout=180,
    )
    assert response.status_code == 201, response.text
    artifacts: list[dict[str, object]] = response.json()["artifacts"]
    return artifacts


def test_a_tar_gz_of_zeros_is_cut_member_by_member_without_holding_them(
    roomy: LiveServer,
) -> None:
    bomb = zero_bomb(256 * MiB)
    assert len(bomb) < 5 * MiB
    before = roomy.peak_rss_bytes()
    bundle, *members = upload(roomy, bomb, "bomb.tar.gz")
    grown = roomy.peak_rss_bytes() - before
    assert grown < RSS_GROWTH_LIMIT, f"peak RSS grew by {grown / MiB:.0f} MiB"
    assert bundle["kind"] == "bundle" and bundle["status"] == "partial"
    refusals = [d["message"] for d in bundle["diagnostics"]]  # type: ignore[attr-defined]
    for name in ("capture/zeros-1.txt", "capture/zeros-2.txt"):
        assert any(name in m and "compressed size" in m for m in refusals), refusals
    # Each member of zeros keeps its prefix up to a little past the 64 MiB ratio floor (the
    # two prefixes are the same bytes: the server keeps one artifact of them).
    assert {m["filename"] for m in members} == {
        "capture/ss-tan.txt",
        "capture/noise.bin",
        "capture/zeros-1.txt",
    }
    assert all(
        m["size_bytes"] < 96 * MiB  # type: ignore[operator]
        for m in members
        if "zeros" in str(m["filename"])
    )
    assert {m["kind"] for m in members if m["filename"] == "capture/ss-tan.txt"} == {"ss"}


def test_a_capture_of_one_enormous_line_is_parsed_around_it_in_bounded_memory(
    roomy: LiveServer,
) -> None:
    words = b" ".join(b"w%07d" % n for n in range(6 * MiB))  # ~48 MiB, 6 M distinct words
    capture = SS_TAN.read_bytes()
    first, rest = capture.split(b"\n", 1)
    data = first + b"\n" + words + b"\n" + rest
    assert len(words) > 40 * MiB
    before = roomy.peak_rss_bytes()
    (artifact,) = upload(roomy, data, "one-line.txt")
    grown = roomy.peak_rss_bytes() - before
    assert grown < RSS_GROWTH_LIMIT, f"peak RSS grew by {grown / MiB:.0f} MiB"
    assert (artifact["kind"], artifact["status"]) == ("ss", "partial")
    (long_line,) = [d for d in artifact["diagnostics"] if "line limit" in d["message"]]  # type: ignore[attr-defined]
    assert long_line["line"] == 2
    assert artifact["series_count"] and artifact["series_count"] > 0  # the rest still parsed


def compressed_bomb(fmt: str) -> bytes:
    """1 MiB of noise, then 1 GiB of zeros in streams of 16 MiB (``cat``-ed gzip members,
    zstd frames): the noise would lift a ratio counted from the start to some 240 MiB; past
    the 64 MiB floor only the bytes after it count."""
    compress = gzip.compress if fmt == "gz" else zstandard.ZstdCompressor().compress
    zeros = compress(bytes(16 * MiB))
    return compress(os.urandom(MiB)) + zeros * 64


@pytest.mark.parametrize("fmt", ["gz", "zst"])
def test_a_compressed_file_bomb_is_stopped_naming_the_limit_in_bounded_memory(
    roomy: LiveServer, fmt: str
) -> None:
    bomb = compressed_bomb(fmt)
    assert len(bomb) < 4 * MiB
    before = roomy.peak_rss_bytes()
    compressed, content = upload(roomy, bomb, f"gc.log.1.{fmt}")
    grown = roomy.peak_rss_bytes() - before
    print(f"{fmt} bomb: peak RSS grew by {grown / MiB:.0f} MiB")
    assert grown < RSS_GROWTH_LIMIT, f"peak RSS grew by {grown / MiB:.0f} MiB"
    assert (compressed["kind"], compressed["status"]) == ("bundle", "partial")
    (message,) = [d["message"] for d in compressed["diagnostics"]]  # type: ignore[attr-defined]
    assert message.startswith("gc.log.1: more than 200 times its compressed size")
    assert "max_compression_ratio" in message and "; kept the first " in message
    stopped_at = int(message.rsplit("stopped at ", 1)[1].split()[0])
    # The 64 MiB floor, then 200 times the compressed input used past it (counted on real
    # bytes) plus 64 KiB of slack: the prefix is kept and parsed.
    assert 64 * MiB < stopped_at < 96 * MiB
    assert 64 * MiB < content["size_bytes"] < stopped_at  # type: ignore[operator]
