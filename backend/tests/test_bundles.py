"""Bundles built here with zipfile/tarfile: good members come through, every hostile one is refused."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import struct
import tarfile
import zipfile
import zlib

import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.bundles import (
    RATIO_FLOOR_BYTES,
    Bundle,
    BundleLimits,
    bundle_format,
    host_from_path,
    unpack,
)

NMON = b"AAA,progname,nmon\nAAA,host,web7\nZZZZ,T0001,00:00:05,01-JAN-2020\n"
SS = b"State Recv-Q Send-Q Local Address:Port Peer Address:Port\nESTAB 0 0 10.0.0.1:22 10.0.0.2:5555\n"


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar(entries: list[tarfile.TarInfo | tuple[str, bytes]], compress: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as archive:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                archive.addfile(entry)
            else:
                name, data = entry
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def _paths(bundle: Bundle) -> list[str]:
    return [m.path for m in bundle.members]


def _refusals(bundle: Bundle) -> dict[str, str]:
    return {r.path: r.reason for r in bundle.refused}


# --------------------------------------------------------------------------- formats and hosts


def test_formats_are_found_from_magic_bytes_only() -> None:
    assert bundle_format(_zip({"a.txt": SS})) == "zip"
    assert bundle_format(_tar([("a.txt", SS)])) == "tar"
    assert bundle_format(_tar([("a.txt", SS)], compress=True)) == "tar.gz"
    assert bundle_format(gzip.compress(NMON)) == "gz"  # a gzip of one file: a bundle of one
    assert bundle_format(NMON) is None
    assert bundle_format(b"") is None
    assert unpack(NMON) == Bundle(
        "none", diagnostics=["not a zip, tar or compressed (gz, bz2, xz, zst) file"]
    )


def test_collector_layout_gives_the_host() -> None:
    data = _zip(
        {
            "rootline-db-01-20261121T072900/ss-tinm.txt": SS,
            "rootline-db-01-20261121T072900/": b"",
            "export/host=web7/nmon/web7.nmon": NMON,
            "site/hosts/app3/gc.log": b"[0.001s][info][gc] Using G1\n",
            "hosts/readme.txt": b"hello\n",
            "loose.txt": SS,
        }
    )
    bundle = unpack(data)
    assert {m.path: m.host for m in bundle.members} == {
        "rootline-db-01-20261121T072900/ss-tinm.txt": "db-01",
        "export/host=web7/nmon/web7.nmon": "web7",
        "site/hosts/app3/gc.log": "app3",
        "hosts/readme.txt": None,  # "hosts" with no folder under it names no host
        "loose.txt": None,
    }
    assert bundle.members[0].data == SS
    assert bundle.refused == [] and bundle.diagnostics == []
    assert host_from_path("rootline-a-b-20261121T072900Z/x") == "a-b"
    assert host_from_path("x/rootline-db-20261121T072900/y") is None  # only a top folder


def test_tar_and_tar_gz_members_come_through() -> None:
    for compress in (False, True):
        bundle = unpack(
            _tar([("rootline-h1-20261121T000000/nmon.nmon", NMON), ("./b/ss.txt", SS)], compress)
        )
        assert bundle.format == ("tar.gz" if compress else "tar")
        assert [(m.path, m.data, m.host) for m in bundle.members] == [
            ("rootline-h1-20261121T000000/nmon.nmon", NMON, "h1"),
            ("b/ss.txt", SS, None),
        ]
        assert bundle.refused == [] and bundle.diagnostics == []


def test_nested_bundle_is_returned_as_a_member() -> None:
    inner = _tar([("a.txt", SS)], compress=True)
    bundle = unpack(_zip({"inner.tar.gz": inner, "b.txt": SS}))
    assert _paths(bundle) == ["inner.tar.gz", "b.txt"]
    assert bundle.members[0].data == inner and bundle_format(bundle.members[0].data) == "tar.gz"


# --------------------------------------------------------------------------- hostile members


def test_tar_links_devices_fifos_absolute_and_dotdot_are_refused() -> None:
    entries: list[tarfile.TarInfo | tuple[str, bytes]] = [
        ("ok/first.txt", SS),
        ("../escape.txt", SS),
        ("a/../../escape2.txt", SS),
        ("/etc/passwd", b"root:x:0:0\n"),
        _special("link-to-shadow", tarfile.SYMTYPE, "/etc/shadow"),
        _special("hard", tarfile.LNKTYPE, "ok/first.txt"),
        _special("dev/sda", tarfile.BLKTYPE),
        _special("dev/null", tarfile.CHRTYPE),
        _special("pipe", tarfile.FIFOTYPE),
        _special("somedir", tarfile.DIRTYPE),
        ("ok/last.txt", NMON),
    ]
    bundle = unpack(_tar(entries))
    assert _paths(bundle) == ["ok/first.txt", "ok/last.txt"]
    assert _refusals(bundle) == {
        "../escape.txt": "path escapes the bundle with '..'",
        "a/../../escape2.txt": "path escapes the bundle with '..'",
        "/etc/passwd": "absolute path",
        "link-to-shadow": "symbolic link to /etc/shadow",
        "hard": "hard link to ok/first.txt",
        "dev/sda": "device file",
        "dev/null": "device file",
        "pipe": "FIFO",
    }
    assert bundle.diagnostics == []


def test_zip_symlink_absolute_dotdot_and_windows_paths_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("good.txt", SS)
        link = zipfile.ZipInfo("link")
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/shadow")
        fifo = zipfile.ZipInfo("fifo")
        fifo.create_system = 3
        fifo.external_attr = 0o010644 << 16
        archive.writestr(fifo, "")
        archive.writestr("../../evil.txt", SS)
        archive.writestr("/abs.txt", SS)
        archive.writestr("C:/windows.txt", SS)
        archive.writestr("dir\\..\\..\\back.txt", SS)
        archive.writestr("empty-dir/", b"")
        archive.writestr("good2.txt", NMON)
    bundle = unpack(buffer.getvalue())
    assert _paths(bundle) == ["good.txt", "good2.txt"]
    refused = _refusals(bundle)
    assert refused["link"] == "symbolic link"
    assert refused["fifo"] == "device file, FIFO or socket"
    assert refused["C:/windows.txt"] == "absolute path"
    assert refused["dir\\..\\..\\back.txt"] == "path escapes the bundle with '..'"
    assert refused["/abs.txt"] == "absolute path"
    assert refused["../../evil.txt"] == "path escapes the bundle with '..'"
    assert len(refused) == 6


# --------------------------------------------------------------------------- bombs and limits


# The ratio floor is 64 MiB; 1 MB here keeps the bombs small.
FLOOR = BundleLimits(ratio_floor_bytes=1024 * 1024)


def test_zip_bomb_of_zeros_is_stopped_past_the_floor_keeping_the_rest() -> None:
    zeros = bytes(50 * 1024 * 1024)
    data = _zip({"ok.txt": SS, "bomb.bin": zeros, "after.txt": NMON})
    assert len(data) < 200_000
    bundle = unpack(data, FLOOR)
    # The whole bundle's ratio stops it (the members after are lost), keeping its prefix.
    assert _paths(bundle) == ["ok.txt", "bomb.bin"]
    assert len(bundle.members[1].data) < 30 * 1024 * 1024
    (reason,) = bundle.diagnostics
    assert reason.startswith("bomb.bin: stopped: ") and "200:1 compression ratio" in reason


def _forge_sizes(data: bytes, name: bytes, size: int) -> bytes:
    """Rewrite a member's uncompressed size in both its local header and the central directory."""
    local = data.index(b"PK\x03\x04" + data[4:4])  # first local header
    while data[local + 30 : local + 30 + len(name)] != name:
        local = data.index(b"PK\x03\x04", local + 1)
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name:
        central = data.index(b"PK\x01\x02", central + 1)
    forged = bytearray(data)
    struct.pack_into("<I", forged, local + 22, size)
    struct.pack_into("<I", forged, central + 24, size)
    return bytes(forged)


def test_zip_bomb_declaring_small_sizes_is_caught_by_counting_real_bytes() -> None:
    zeros = bytes(30 * 1024 * 1024)
    data = _forge_sizes(_zip({"ok.txt": SS, "liar.bin": zeros}), b"liar.bin", 1000)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("liar.bin")
    assert info.file_size == 1000  # what the archive claims
    bundle = unpack(data, FLOOR)
    assert _paths(bundle) == ["ok.txt", "liar.bin"]
    (reason,) = bundle.diagnostics
    assert reason.startswith("liar.bin: ") and "(max_compression_ratio; a decompression bomb?)" in (
        reason
    )
    assert len(bundle.members[1].data) < 20 * 1024 * 1024  # stopped early, not after 30 MB
    assert unpack(data).refused[0].reason == "declares 1000 bytes but holds 31457280"


def test_zip_whose_central_directory_declares_2gb_stops_the_bundle_before_decompressing() -> None:
    data = _forge_sizes(_zip({"ok.txt": SS, "huge.bin": b"x" * 5000}), b"huge.bin", 2 * 1024**3)
    bundle = unpack(data)
    assert _paths(bundle) == ["ok.txt"]
    assert bundle.diagnostics == [
        f"stopped at huge.bin: its declared size would pass max_total_bytes ({2 * 1024**3})"
    ]
    # Declared sizes are not trusted: one over max_member_bytes is read up to the real end.
    data = _forge_sizes(_zip({"ok.txt": SS, "huge.bin": b"x" * 5000}), b"huge.bin", 1024**3 + 1)
    assert _refusals(unpack(data))["huge.bin"] == f"declares {1024**3 + 1} bytes but holds 5000"


def test_member_and_total_limits_stop_reading_early() -> None:
    big = b"line of text 0123456789\n" * 10_000  # 240 kB
    limits = BundleLimits(max_member_bytes=100_000, max_total_bytes=10**9)
    for archive in (
        _tar([("big.txt", big), ("small.txt", SS)]),
        _zip({"big.txt": big, "small.txt": SS}),
    ):
        bundle = unpack(archive, limits)
        assert _paths(bundle) == ["big.txt", "small.txt"]  # big.txt: its first 64 KiB
        assert big.startswith(bundle.members[0].data) and len(bundle.members[0].data) == 65536
        assert bundle.diagnostics == [
            "big.txt: more than 100000 bytes unpacked (max_member_bytes); kept the first 64.0 KiB"
        ]
    total = BundleLimits(max_total_bytes=300_000)
    bundle = unpack(_tar([("a.txt", big), ("b.txt", big), ("c.txt", SS)]), total)
    assert _paths(bundle) == ["a.txt"]  # nothing of b.txt fits
    assert bundle.diagnostics == [
        "stopped: more than 300000 bytes unpacked in total (max_total_bytes)"
    ]
    many = unpack(_zip({f"f{i}.txt": SS for i in range(5)}), BundleLimits(max_members=3))
    assert _paths(many) == ["f0.txt", "f1.txt", "f2.txt"]
    assert many.diagnostics == ["stopped after 3 members (max_members)"]


def test_tar_gz_bomb_is_stopped_by_the_overall_ratio() -> None:
    data = _tar(
        [("ok.txt", SS), ("zeros.bin", bytes(40 * 1024 * 1024)), ("after.txt", SS)], compress=True
    )
    assert len(data) < 100_000
    bundle = unpack(data, FLOOR)
    assert _paths(bundle) == ["ok.txt", "zeros.bin"]
    assert (
        bundle.diagnostics[0].startswith("zeros.bin: stopped: ")
        and "200:1 compression ratio" in bundle.diagnostics[0]
    )


def test_small_very_compressible_members_are_fine() -> None:
    blanks = b" " * (RATIO_FLOOR_BYTES // 2)  # compresses ~1000:1 but is small
    assert _paths(unpack(_zip({"blank.txt": blanks}))) == ["blank.txt"]


# --------------------------------------------------------------------------- damage


def test_truncated_tar_gz_keeps_what_was_readable() -> None:
    body = b"".join(b"ESTAB 0 0 10.0.0.1:%d 10.0.0.2:5555\n" % i for i in range(40_000))
    data = _tar([("first.txt", SS), ("second.txt", body), ("third.txt", SS)], compress=True)
    cut = data[: len(data) // 2]
    bundle = unpack(cut)
    assert bundle.format == "tar.gz"
    assert _paths(bundle) == ["first.txt", "second.txt"]
    partial = bundle.members[1].data
    assert 0 < len(partial) < len(body) and body.startswith(partial)
    assert (
        bundle.diagnostics[0].startswith("second.txt: cut short (")
        and f"of {len(body)} bytes read" in bundle.diagnostics[0]
    )
    assert bundle.diagnostics[1].startswith("archive truncated or corrupt after 2 members")


def test_truncated_tar_keeps_the_whole_members_before_the_cut() -> None:
    data = _tar([("a.txt", SS), ("b.txt", NMON * 100), ("c.txt", SS)])
    bundle = unpack(data[:1500])  # cut inside b.txt's header
    assert _paths(bundle) == ["a.txt"] and bundle.members[0].data == SS
    assert bundle.diagnostics == [
        "tar of 1500 bytes is not a whole number of 512-byte blocks: cut short"
    ]
    bundle = unpack(data[:3000])  # cut inside b.txt's data (its header ends at byte 1536)
    assert _paths(bundle) == ["a.txt", "b.txt"]
    assert bundle.members[1].data == (NMON * 100)[: 3000 - 1536]
    assert (
        bundle.diagnostics[1]
        == f"b.txt: cut short; kept the {3000 - 1536} of {len(NMON) * 100} bytes"
    )


def test_zip_without_central_directory_is_read_from_local_headers() -> None:
    body = NMON * 2000
    data = _zip({"a.txt": SS, "b.nmon": body, "c.txt": SS})
    cut = data[: data.index(b"PK\x01\x02")]  # central directory gone
    bundle = unpack(cut)
    assert [(m.path, m.data) for m in bundle.members] == [
        ("a.txt", SS),
        ("b.nmon", body),
        ("c.txt", SS),
    ]
    assert bundle.diagnostics[0].startswith("zip central directory unreadable")
    # cut inside the second member's data: the first whole, the second partial
    half = data[: data.index(b"c.txt") - 200]
    bundle = unpack(half)
    assert _paths(bundle)[0] == "a.txt"
    assert any("b.nmon" in d for d in bundle.diagnostics) or "b.nmon" in _refusals(bundle)


def test_corrupt_member_crc_is_refused_and_others_kept() -> None:
    data = bytearray(_zip({"a.txt": SS, "b.txt": NMON}, zipfile.ZIP_STORED))
    at = data.index(NMON)
    data[at] ^= 0xFF
    bundle = unpack(bytes(data))
    assert _paths(bundle) == ["a.txt"]
    assert _refusals(bundle) == {"b.txt": "CRC-32 mismatch: corrupt member"}


def test_bzip2_and_lzma_zip_members() -> None:
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        bundle = unpack(_zip({"a.nmon": NMON * 50}, method))
        assert [(m.path, m.data) for m in bundle.members] == [("a.nmon", NMON * 50)], method


# --------------------------------------------------------------------------- never raises


@given(st.binary(max_size=4096))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_unpack_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    assert isinstance(unpack(data), Bundle)


_PLAIN_TAR = _tar([("a.txt", SS), ("b.txt", NMON)])
_SAMPLES = [
    _zip({"a.txt": SS, "b/c.nmon": NMON}),
    _PLAIN_TAR,
    _tar([("a.txt", SS), ("b.txt", NMON)], compress=True),
    # Compressed single files and compressed tars of each format.
    *(
        compress(data)
        for compress in (
            gzip.compress,
            bz2.compress,
            lzma.compress,
            zstandard.ZstdCompressor(write_checksum=True).compress,
        )
        for data in (NMON * 20, _PLAIN_TAR)
    ),
]


@given(
    sample=st.sampled_from(_SAMPLES),
    cut=st.integers(min_value=0, max_value=4096),
    flips=st.lists(
        st.tuples(st.integers(min_value=0, max_value=4095), st.integers(1, 255)), max_size=6
    ),
)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_unpack_never_raises_on_damaged_archives(
    sample: bytes, cut: int, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(sample[: max(cut, 4)])
    for position, mask in flips:
        if position < len(data):
            data[position] ^= mask
    bundle = unpack(bytes(data))
    assert isinstance(bundle, Bundle)
    for member in bundle.members:
        assert not member.path.startswith("/") and ".." not in member.path.split("/")


def test_bad_gzip_trailer_costs_a_diagnostic_not_the_members() -> None:
    data = bytearray(_tar([("a.txt", SS)], compress=True))
    data[-8:-4] = struct.pack("<I", zlib.crc32(b"nope"))
    bundle = unpack(bytes(data))
    assert _paths(bundle) == ["a.txt"]
    assert bundle.diagnostics == ["gzip trailer CRC or size mismatch: data may be corrupt"]


MB = 1024 * 1024


def test_tar_gz_member_ratio_is_counted_on_the_compressed_bytes_it_really_used() -> None:
    """The header of a tar member declares its unpacked size: measured against that, a
    member of zeros passed any ratio. Noise lifts the whole-bundle allowance here, so only
    the per-member count on real compressed bytes can refuse the zeros."""
    noise = os.urandom(MB)
    data = _tar(
        [("noise.bin", noise), ("zeros.bin", bytes(32 * MB)), ("after.txt", SS)], compress=True
    )
    assert 200 * len(data) > 33 * MB  # within the whole-bundle ratio
    bundle = unpack(data, FLOOR)
    assert _paths(bundle) == ["noise.bin", "zeros.bin", "after.txt"]
    assert len(bundle.members[1].data) < 20 * MB
    assert "zeros.bin: more than 200 times its compressed size" in bundle.diagnostics[0]


def test_members_stream_to_the_sink_and_a_refused_member_leaves_nothing() -> None:
    """With a sink, member bytes go to it in bounded reads and no member is held whole."""
    from rootline.storage import StoredBlob

    reads: list[int] = []
    kept: dict[str, bytes] = {}

    def sink(source: io.RawIOBase) -> StoredBlob:  # type: ignore[type-arg]
        parts = []
        while block := source.read(MB):
            reads.append(len(block))
            parts.append(block)
        data = b"".join(parts)
        digest = f"{zlib.crc32(data):064x}"
        kept[digest] = data
        return StoredBlob(digest, len(data))

    big = bytes(range(256)) * (3 * MB // 256)
    limits = BundleLimits(max_member_bytes=2 * MB, max_compression_ratio=1000)
    for archive in (
        _tar([("big.txt", big), ("ss.txt", SS)], compress=True),
        _zip({"big.txt": big, "ss.txt": SS}),
    ):
        reads.clear()
        kept.clear()
        bundle = unpack(archive, limits, sink=sink)  # type: ignore[arg-type]
        assert _paths(bundle) == ["big.txt", "ss.txt"]
        assert "max_member_bytes" in bundle.diagnostics[0]
        cut, member = bundle.members
        assert member.data == b"" and member.blob is not None and member.size == len(SS)
        assert list(kept.values()) == [big[: cut.size], SS]  # big.txt: cut off mid-way
        assert 0 < cut.size <= 2 * MB
        assert max(reads) <= 64 * 1024
