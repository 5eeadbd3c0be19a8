"""Bundles: ``.zip`` and ``.tar`` archives of captures (the tar plain or compressed:
``.tar.gz``, ``.tar.bz2``, ``.tar.xz``, ``.tar.zst``) and single compressed files (``.gz``,
``.bz2``, ``.xz``, ``.zst``, e.g. a rotated ``gc.log.1.gz``), unpacked safely.

:func:`unpack` takes the archive as bytes (its format found from magic bytes, never the name)
and returns the regular files in it as :class:`BundleMember` objects.

A compressed single file is a bundle of one member: its content, named after the file
without its suffix (``gc.log.1.gz`` -> ``gc.log.1``; a name without the usual suffix is
kept as it is). So the server keeps the raw bytes as uploaded in the bundle's artifact
(kind ``bundle``) and records the decompressed content as a member artifact of its own,
read as the kind asked of the file, if any. Concatenated streams (``cat a.gz b.gz``) are
read as one. A stream cut short or corrupt keeps what came out before the damage, with a
diagnostic (``gc.log.1: gzip stream truncated after 1.2 MiB; kept the 1.2 MiB read``).

:func:`open_nested` is how both the server's parse worker and the offline CLI open a file:
a member that is itself an archive or compressed is opened the same way, one level deeper,
down to :data:`MAX_BUNDLE_DEPTH` (a ``.tar.gz`` holding ``gc.log.1.gz``, or a ``.zip``
holding a ``.xz``, takes two levels).

Each member's bytes go, as they come out of the decompressor, to a ``sink`` (the artifact
store: a member is never held in memory whole) or, without one, into the member's
``data``. Nothing is trusted:

- Sizes are counted as bytes come out of the decompressor, and reading stops as soon as a
  member passes ``max_member_bytes``, the bundle passes ``max_total_bytes``, or the
  decompressed/compressed ratio passes ``max_compression_ratio`` (per member and for the
  whole bundle). Ratios are only counted past ``ratio_floor_bytes`` (64 MiB): real captures
  compress far more than one would guess (GC logs 2-27:1, nmon 6-22:1, a thread dump up to
  41:1, a file of repeated thread dumps 800:1 with ``xz -9``), and the absolute limits
  already bound the damage below it. Past the floor a member's ratio is counted on the
  bytes past the floor only (noise put first cannot lift a bomb's allowance), with 64 KiB
  of compressed slack for the decompressor's input steps. (Declared sizes are not trusted:
  a member declaring more than ``max_member_bytes`` is read up to it.)
- A member stopped part-way by any limit keeps the prefix already read (in the sink, or in
  ``data``) with a diagnostic naming the limit (``big.log: more than 1073741824 bytes
  unpacked (max_member_bytes); kept the first 1.0 GiB``); the other members are kept, and a
  limit on the whole bundle stops only the members after it.
- Refused, with the reason, and the rest still unpacked: absolute paths, ``..`` escapes,
  symbolic and hard links, device files and FIFOs, encrypted or unsupported zip members,
  members over a limit. Directories are skipped silently.
- A truncated or corrupt archive yields the members read before the damage plus a
  diagnostic; a zip whose central directory is gone is read from its local headers.
- A member that is itself an archive or compressed is returned as a member (see
  :func:`open_nested`). A compressed file's limits are a member's, counted on the bytes
  that really come out of the decompressor against the compressed bytes really used; an
  xz header may not ask for more than 256 MiB of decoder memory, a zstd frame for a
  window over 128 MiB.

Host rule (:func:`host_from_path`): the collector writes ``rootline-<host>-<YYYYmmddTHHMMSS>/...``;
people also sort captures into ``host=<name>/...`` or ``hosts/<name>/...``. The host is the
``<host>`` of a top folder named ``rootline-<host>-<stamp>`` (stamp ``YYYYmmddTHHMMSS``,
optionally ``Z``), else the ``<name>`` of the first folder named ``host=<name>`` or following
a folder named ``hosts``, else None.

>>> host_from_path("rootline-db-01-20261121T072900/ss-tinm.txt")
'db-01'
>>> host_from_path("capture/hosts/web7/nmon/web7.nmon"), host_from_path("a/b.txt")
('web7', None)
"""

from __future__ import annotations

import bz2
import io
import lzma
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, BinaryIO, Protocol, cast

import zstandard

from rootline.storage import StoredBlob

# Bundles (and compressed files) inside bundles are opened this deep, no deeper: a tar.gz
# holding gc.log.1.gz is two, the same tar.gz zipped again for e-mail three. Every level
# keeps its own ratio and size limits, counted on the bytes that come out of it.
MAX_BUNDLE_DEPTH = 3
# Past this many unpacked bytes, a member (or the bundle) must respect the compression ratio.
RATIO_FLOOR_BYTES = 64 * 1024 * 1024
_CHUNK = 64 * 1024

_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_GZIP_MAGIC = b"\x1f\x8b"
# Compressed single files, by magic bytes: gzip (deflate), bzip2 (a block or an empty
# stream's end follows "BZh1".."BZh9"), xz, zstd.
COMPRESSED_FORMATS = ("gz", "bz2", "xz", "zst")
_COMPRESSION_MAGICS = {
    "gz": re.compile(rb"\x1f\x8b\x08"),
    "bz2": re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"),
    "xz": re.compile(rb"\xfd7zXZ\x00"),
    "zst": re.compile(rb"\x28\xb5\x2f\xfd"),
}
_COMPRESSION_LABELS = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
# The name a decompressed file takes: its upload's name without the usual suffix.
_COMPRESSION_SUFFIXES = {
    "gz": (".gz", ".gzip", ".z"),
    "bz2": (".bz2", ".bz", ".bzip2"),
    "xz": (".xz",),
    "zst": (".zst", ".zstd"),
}
# An xz header may ask for a dictionary of up to 1.5 GiB; xz -9 needs 64 MiB.
_XZ_MEMLIMIT = 256 * 1024 * 1024
_TAR_BLOCK = 512
_COLLECTOR_FOLDER = re.compile(r"rootline-(?P<host>.+)-\d{8}T\d{6}Z?")
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # zip local file header, 30 bytes
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")


@dataclass(frozen=True)
class BundleLimits:
    max_members: int = 10_000
    max_total_bytes: int = 2 * 1024**3  # total unpacked
    max_member_bytes: int = 1024**3
    max_compression_ratio: float = 200.0  # per member and overall, past the floor
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES


@dataclass
class BundleMember:
    """One regular file of the bundle: in the sink as ``blob``, else in memory as ``data``."""

    path: str
    data: bytes
    host: str | None
    size: int = 0
    blob: StoredBlob | None = None


# Takes a member's bytes as a stream (read to its end) and keeps them, e.g. in the store.
Sink = Callable[[BinaryIO], StoredBlob]


@dataclass
class Refusal:
    path: str
    reason: str


@dataclass
class Bundle:
    format: str
    members: list[BundleMember] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)

    def messages(self) -> list[str]:
        """What went wrong unpacking it: its diagnostics, then each refusal."""
        return self.diagnostics + [f"{r.path}: refused: {r.reason}" for r in self.refused]

    def member_kind(self, requested: str | None) -> str | None:
        """The kind to read a member as, when ``requested`` was asked of the bundle: a
        compressed file's content is that kind; an archive's members are each sniffed."""
        return requested if self.format in COMPRESSED_FORMATS else None


# Told of each member as soon as it is kept (in the sink), while the rest is still being
# unpacked: the server records it for the parse workers at once. Must not raise.
MemberHook = Callable[[Bundle, BundleMember], None]


@dataclass(frozen=True)
class _Expected:
    """What a zip declares about a member: unpacked and compressed sizes, CRC-32."""

    size: int
    compressed: int
    crc: int


class _Stop(Exception):
    """The whole bundle passed a limit: stop reading it."""


class _MemberTooBig(Exception):
    """One member passed a limit: keep what was read of it (refuse it if nothing was), go
    on with the next."""


class _MemberRefused(Exception):
    """One member turned out bad at its end (size or CRC): refuse it, go on with the next."""


def compression_format(data: bytes) -> str | None:
    """``"gz"``, ``"bz2"``, ``"xz"`` or ``"zst"`` from the magic bytes, or None."""
    for fmt, magic in _COMPRESSION_MAGICS.items():
        if magic.match(data):
            return fmt
    return None


# Bytes of a file's start that tell whether it may be a bundle (see might_be_bundle).
SNIFF_BYTES = 64 * 1024


def might_be_bundle(head: bytes) -> bool:
    """False when a file whose first bytes are ``head`` (at least :data:`_TAR_BLOCK` of them,
    or the whole file) is surely no bundle: :func:`bundle_format` would say None. True when
    it may be one (its magic bytes say so); the whole file then tells."""
    return (
        head.startswith(_ZIP_MAGICS)
        or compression_format(head) is not None
        or _is_tar_header(head[:_TAR_BLOCK])
    )


def bundle_format(data: bytes) -> str | None:
    """What :func:`unpack` opens, from the magic bytes: ``"zip"``, ``"tar"``, a compressed
    tar (``"tar.gz"``, ``"tar.bz2"``, ``"tar.xz"``, ``"tar.zst"``) or one compressed file
    (``"gz"``, ``"bz2"``, ``"xz"``, ``"zst"``); None for anything else."""
    if data.startswith(_ZIP_MAGICS):
        return "zip"
    compression = compression_format(data)
    if compression is not None:
        head = _Decompressing(data, compression, warn=lambda _: None)
        start = b""
        try:
            while len(start) < _TAR_BLOCK and (chunk := head.next_chunk()):
                start += chunk
        except _StreamDamaged:
            pass
        return f"tar.{compression}" if _is_tar_header(start[:_TAR_BLOCK]) else compression
    return "tar" if _is_tar_header(data[:_TAR_BLOCK]) else None


def decompressed_name(name: str, fmt: str) -> str:
    """The name a compressed file's content takes: ``gc.log.1.gz`` -> ``gc.log.1``; a
    name without the usual suffix stays as it is."""
    lowered = name.lower()
    for suffix in _COMPRESSION_SUFFIXES.get(fmt, ()):
        if lowered.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _is_tar_header(block: bytes) -> bool:
    """A ustar magic, or a pre-POSIX header whose checksum adds up."""
    if len(block) < _TAR_BLOCK:
        return False
    if block[257:262] == b"ustar":
        return True
    try:
        stored = int(block[148:156].split(b"\0", 1)[0].strip() or b"-1", 8)
    except ValueError:
        return False
    computed = sum(block[:148]) + 8 * 32 + sum(block[156:_TAR_BLOCK])
    return stored == computed and block[0] != 0


def host_from_path(path: str) -> str | None:
    """The host a bundle's layout gives a member (see the module docstring), or None."""
    folders = path.split("/")[:-1]
    if folders and (match := _COLLECTOR_FOLDER.fullmatch(folders[0])):
        return match["host"]
    for index, folder in enumerate(folders):
        if folder.startswith("host=") and len(folder) > len("host="):
            return folder[len("host=") :]
        if folder == "hosts" and index + 1 < len(folders) and folders[index + 1]:
            return folders[index + 1]
    return None


def open_nested(
    data: bytes,
    name: str,
    depth: int,
    limits: BundleLimits = BundleLimits(),
    sink: Sink | None = None,
    on_member: MemberHook | None = None,
) -> Bundle | None:
    """How a file is opened, the same by the server's parse worker and by the offline CLI:
    None when it is no archive nor compressed (its bytes are parsed as they are); else the
    bundle unpacked (see :func:`unpack`), or, when it lies ``depth`` >=
    :data:`MAX_BUNDLE_DEPTH` bundles deep, the bundle without members and why. Each member
    is opened the same way in turn, one level deeper. ``on_member`` is told of each member
    as soon as it is kept."""
    fmt = bundle_format(data)
    if fmt is None:
        return None
    if depth >= MAX_BUNDLE_DEPTH:
        return Bundle(
            fmt, diagnostics=[f"bundle nested deeper than {MAX_BUNDLE_DEPTH} levels: not unpacked"]
        )
    return unpack(data, limits, sink, name, on_member)


def unpack(
    data: bytes,
    limits: BundleLimits = BundleLimits(),
    sink: Sink | None = None,
    name: str = "",
    on_member: MemberHook | None = None,
) -> Bundle:
    """Every regular file of the archive, within ``limits``, each streamed to ``sink`` (or
    kept in memory without one); never raises on any input, nor on a refusal of the sink's.

    A compressed single file is a bundle of one member, named after ``name`` (the file's
    own name) without its suffix (see :func:`decompressed_name`)."""
    kind = bundle_format(data)
    if kind is None:
        return Bundle("none", diagnostics=["not a zip, tar or compressed (gz, bz2, xz, zst) file"])
    reader = _Reader(Bundle(kind), limits, len(data), sink, on_member)
    try:
        if kind == "zip":
            reader.read_zip(data)
        elif kind in COMPRESSED_FORMATS:
            reader.read_single(data, kind, name)
        else:
            reader.read_tar(data, compression=kind.partition(".")[2] or None)
    except _Stop as stop:
        reader.bundle.diagnostics.append(str(stop))
    except Exception as exc:  # a damaged archive costs a diagnostic, never the upload
        reader.bundle.diagnostics.append(
            f"archive unreadable past this point: {type(exc).__name__}: {exc}"
        )
    return reader.bundle


def _path_problem(name: str) -> str | None:
    """Why a member path may not be used, or None."""
    if not name or "\0" in name:
        return "empty path or NUL byte in the path"
    unified = name.replace("\\", "/")
    if unified.startswith("/") or _WINDOWS_DRIVE.match(unified):
        return "absolute path"
    if ".." in unified.split("/"):
        return "path escapes the bundle with '..'"
    return None


def _clean_path(name: str) -> str:
    return "/".join(part for part in name.replace("\\", "/").split("/") if part not in ("", "."))


class _Reader:
    def __init__(
        self,
        bundle: Bundle,
        limits: BundleLimits,
        archive_bytes: int,
        sink: Sink | None,
        on_member: MemberHook | None = None,
    ) -> None:
        self.bundle = bundle
        self.limits = limits
        self.archive_bytes = archive_bytes
        self.sink = sink
        self.on_member = on_member
        self.total = 0
        self.seen_paths: set[str] = set()
        self.plain_tar: memoryview | None = None
        self.decompressing: _Decompressing | None = None

    # ---- shared rules

    def refuse(self, path: str, reason: str) -> None:
        self.bundle.refused.append(Refusal(path, reason))

    def admit(self, name: str) -> str | None:
        """The cleaned path of a member that may be read, or None (refused)."""
        if len(self.bundle.members) >= self.limits.max_members:
            raise _Stop(f"stopped after {self.limits.max_members} members (max_members)")
        problem = _path_problem(name)
        if problem:
            self.refuse(name, problem)
            return None
        return _clean_path(name)

    def keep(self, path: str, stream: _MemberStream) -> None:
        """Send the member's bytes to the sink (or memory) as they come; its limits are
        counted on the way, and a member refused part-way leaves nothing behind."""
        if self.sink is None:
            data, blob = stream.readall(), None
        else:
            data, blob = b"", self.sink(stream)  # type: ignore[arg-type]
        self.total += stream.size
        if path in self.seen_paths:
            self.bundle.diagnostics.append(f"{path}: appears twice in the archive; both kept")
        self.seen_paths.add(path)
        member = BundleMember(path, data, host_from_path(path), size=stream.size, blob=blob)
        self.bundle.members.append(member)
        if self.on_member is not None:
            self.on_member(self.bundle, member)
        if stream.cut is not None:
            cut = f"{path}: {stream.cut}; kept the first {_size(stream.size)}"
            if isinstance(stream.cut, _Stop):
                raise _Stop(cut)  # and nothing after it
            self.bundle.diagnostics.append(cut)

    def check_total(self, more: int) -> None:
        limits = self.limits
        total = self.total + more
        if total > limits.max_total_bytes:
            raise _Stop(
                f"stopped: more than {limits.max_total_bytes} bytes unpacked in total (max_total_bytes)"
            )
        if (
            total > limits.ratio_floor_bytes
            and total > limits.max_compression_ratio * self.archive_bytes
        ):
            raise _Stop(
                f"stopped: {total} bytes unpacked from a {self.archive_bytes}-byte archive, "
                f"over the {limits.max_compression_ratio:g}:1 compression ratio "
                "(max_compression_ratio; a decompression bomb?)"
            )

    def check_member(self, size: int, compressed: int, at_floor: int) -> None:
        """One member's running size against every limit; ``compressed``: the compressed
        bytes it has really used so far, ``at_floor``: of which when it passed the ratio floor."""
        limits = self.limits
        if size > limits.max_member_bytes:
            raise _MemberTooBig(
                f"more than {limits.max_member_bytes} bytes unpacked (max_member_bytes)"
            )
        floor = limits.ratio_floor_bytes
        if size > floor and size - floor > limits.max_compression_ratio * (
            compressed - at_floor + _CHUNK
        ):
            raise _MemberTooBig(
                f"more than {limits.max_compression_ratio:g} times its compressed size "
                f"(max_compression_ratio; a decompression bomb?): stopped at {size} bytes"
            )
        self.check_total(size)

    # ---- zip

    def read_zip(self, data: bytes) -> None:
        try:
            infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            self.bundle.diagnostics.append(
                f"zip central directory unreadable ({exc}); members read from their local headers"
            )
            self.read_zip_local_headers(data)
            return
        for info in infos:
            self.read_zip_member(data, info)

    def read_zip_member(self, data: bytes, info: zipfile.ZipInfo) -> None:
        name = info.filename
        if name.endswith("/"):
            return
        mode = info.external_attr >> 16
        # Unix zips record the file type in the high bits (zipfile.writestr leaves it 0: a file).
        if info.create_system == 3 and stat.S_IFMT(mode):
            if stat.S_ISLNK(mode):
                self.refuse(name, "symbolic link")
                return
            if stat.S_ISDIR(mode):
                return
            if not stat.S_ISREG(mode):
                self.refuse(name, "device file, FIFO or socket")
                return
        path = self.admit(name)
        if path is None:
            return
        if info.flag_bits & 0x1:
            self.refuse(name, "encrypted")
            return
        limits = self.limits
        if self.total + info.file_size > limits.max_total_bytes:
            raise _Stop(
                f"stopped at {name}: its declared size would pass max_total_bytes ({limits.max_total_bytes})"
            )
        start = self.local_data_start(data, info.header_offset)
        if start is None:
            self.refuse(name, "local header missing or damaged")
            return
        raw = data[start : start + info.compress_size]
        expected = _Expected(info.file_size, info.compress_size, info.CRC)
        self.read_compressed(name, path, raw, info.compress_type, expected)

    @staticmethod
    def local_data_start(data: bytes, offset: int) -> int | None:
        header = data[offset : offset + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size or not header.startswith(b"PK\x03\x04"):
            return None
        name_length: int = _LOCAL_HEADER.unpack(header)[9]
        extra_length: int = _LOCAL_HEADER.unpack(header)[10]
        return offset + _LOCAL_HEADER.size + name_length + extra_length

    def read_compressed(
        self, name: str, path: str, raw: bytes, method: int, expected: _Expected | None
    ) -> int:
        """Decompress one member and keep or refuse it; returns the compressed bytes it used.

        ``expected`` holds the sizes and CRC the archive declares, None when it declares none
        (a local header whose sizes follow the data): then the stream's own end delimits it.
        """
        decoder = _decoder(method)
        if decoder is None:
            self.refuse(name, f"compression method {method} not supported")
            return len(raw)
        chunks = decoder(raw)
        archive_cut = expected is not None and len(raw) < expected.compressed

        def at_end(member: _MemberStream) -> None:
            """Refuse the member before it is kept if its end shows it corrupt."""
            if chunks.truncated and not (archive_cut or expected is None):
                raise _MemberRefused("corrupt: its compressed data ends before the stream does")
            if chunks.truncated or expected is None:
                return
            if member.size != expected.size:
                raise _MemberRefused(f"declares {expected.size} bytes but holds {member.size}")
            if member.crc != expected.crc:
                raise _MemberRefused("CRC-32 mismatch: corrupt member")

        # Its ratio is counted against the compressed bytes fed to the decompressor so far.
        stream = _MemberStream(self, iter(chunks), compressed=lambda: chunks.fed, at_end=at_end)
        try:
            self.keep(path, stream)
        except _MemberTooBig as exc:
            self.refuse(name, str(exc))
            return len(raw)
        except _MemberRefused as exc:
            self.refuse(name, str(exc))
            return chunks.consumed
        except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError) as exc:
            self.refuse(name, f"corrupt compressed data: {exc}")
            return len(raw)
        if chunks.truncated:
            self.bundle.diagnostics.append(
                f"{name}: cut short with the archive; kept the {stream.size} bytes read"
            )
        return chunks.consumed

    def read_zip_local_headers(self, data: bytes) -> None:
        """A zip without a usable central directory: walk the local file headers in order."""
        offset = data.find(b"PK\x03\x04")
        while offset != -1 and offset + _LOCAL_HEADER.size <= len(data):
            fields = _LOCAL_HEADER.unpack(data[offset : offset + _LOCAL_HEADER.size])
            _, _, flags, method, _, _, crc, compressed, size, name_length, extra_length = fields
            start = offset + _LOCAL_HEADER.size + name_length + extra_length
            name = data[
                offset + _LOCAL_HEADER.size : offset + _LOCAL_HEADER.size + name_length
            ].decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
            sizes_follow = bool(flags & 0x8)  # sizes and CRC in a data descriptor after the data
            used = compressed
            if name.endswith("/"):
                pass
            elif flags & 0x1:
                self.refuse(name, "encrypted")
            elif sizes_follow and method == 0:
                self.refuse(
                    name, "stored member with sizes only after its data: cannot be delimited"
                )
            else:
                path = self.admit(name)
                if path is not None:
                    raw = data[start:] if sizes_follow else data[start : start + compressed]
                    expected = None if sizes_follow else _Expected(size, compressed, crc)
                    used = self.read_compressed(name, path, raw, method, expected)
            following = data.find(b"PK\x03\x04", start + max(used, 0))
            if following == -1 and start + used > len(data):
                self.bundle.diagnostics.append(f"zip cut short inside {name}")
            offset = following

    # ---- tar

    def read_single(self, data: bytes, fmt: str, name: str) -> None:
        """One compressed file: a bundle of one member, kept up to any damage."""
        # The name is the file's own (no archive path): nothing in it to refuse.
        path = _clean_path(decompressed_name(name, fmt)) or "decompressed"
        source = _Decompressing(data, fmt, warn=self.bundle.diagnostics.append)
        member = _MemberStream(
            self,
            iter(source.next_chunk, b""),
            compressed=lambda: source.compressed,
            keep_on=(_StreamDamaged,),
        )
        try:
            self.keep(path, member)
        except _MemberTooBig as exc:
            self.refuse(path, str(exc))
            return
        except _StreamDamaged as exc:
            self.bundle.diagnostics.append(f"{path}: {exc}: nothing could be read")
            return
        if member.error is not None:
            self.bundle.diagnostics.append(
                f"{path}: {member.error}; kept the {_size(member.size)} read"
            )

    def check_stream(self, produced: int) -> None:
        """The limits on a compressed tar's whole stream (tarfile skips a refused member by
        reading past it, so they must hold there too)."""
        limits = self.limits
        # Tar headers and padding add to the members: allow a little beyond max_total_bytes.
        if produced > limits.max_total_bytes + 64 * _TAR_BLOCK + limits.max_total_bytes // 100:
            raise _Stop(
                f"stopped: the tar stream passed max_total_bytes ({limits.max_total_bytes})"
            )
        if produced > limits.ratio_floor_bytes and produced > limits.max_compression_ratio * (
            self.archive_bytes
        ):
            raise _Stop(
                f"stopped: {produced} bytes unpacked from a {self.archive_bytes}-byte archive, "
                f"over the {limits.max_compression_ratio:g}:1 compression ratio "
                "(max_compression_ratio; a decompression bomb?)"
            )

    def read_tar(self, data: bytes, compression: str | None) -> None:
        stream = (
            _Decompressing(
                data, compression, warn=self.bundle.diagnostics.append, on_chunk=self.check_stream
            )
            if compression
            else None
        )
        # A plain tar's member data is sliced straight from the bytes (a cut member keeps
        # what is there); a compressed tar's is read from the stream as tarfile decompresses it.
        self.plain_tar = None if stream else memoryview(data)
        self.decompressing = stream
        if not stream and len(data) % _TAR_BLOCK:
            self.bundle.diagnostics.append(
                f"tar of {len(data)} bytes is not a whole number of {_TAR_BLOCK}-byte blocks: cut short"
            )
        with tarfile.open(fileobj=stream or io.BytesIO(data), mode="r|") as archive:
            try:
                for entry in archive:
                    self.read_tar_member(archive, entry)
                while stream and stream.read(_CHUNK):
                    pass  # the padding after the end marker, to check the gzip trailer
            except (tarfile.ReadError, EOFError, zlib.error, OSError) as exc:
                self.bundle.diagnostics.append(
                    f"archive truncated or corrupt after {len(self.bundle.members)} members: {exc}"
                )

    def read_tar_member(self, archive: tarfile.TarFile, entry: tarfile.TarInfo) -> None:
        name = entry.name
        if entry.isdir():
            return
        if entry.issym():
            self.refuse(name, f"symbolic link to {entry.linkname}")
            return
        if entry.islnk():
            self.refuse(name, f"hard link to {entry.linkname}")
            return
        if entry.ischr() or entry.isblk():
            self.refuse(name, "device file")
            return
        if entry.isfifo():
            self.refuse(name, "FIFO")
            return
        if not entry.isreg():
            self.refuse(name, f"unsupported tar member type {entry.type!r}")
            return
        path = self.admit(name)
        if path is None:
            return
        if self.plain_tar is not None:
            content = self.plain_tar[entry.offset_data : entry.offset_data + entry.size]
            pieces = (
                bytes(content[start : start + _CHUNK]) for start in range(0, len(content), _CHUNK)
            )
            try:
                self.keep(path, _MemberStream(self, pieces, compressed=None))
            except _MemberTooBig as exc:
                self.refuse(name, str(exc))
                return
            if len(content) < entry.size:
                self.bundle.diagnostics.append(
                    f"{name}: cut short; kept the {len(content)} of {entry.size} bytes"
                )
            return
        stream = archive.extractfile(entry)
        source = self.decompressing
        if stream is None or source is None:
            self.refuse(name, "no data")
            return
        # Its ratio is counted against the compressed bytes the stream used since it began
        # (not its declared size: a tar header declares the unpacked size).
        started_at = source.compressed
        damage = (tarfile.ReadError, EOFError, zlib.error, OSError)
        member = _MemberStream(
            self,
            iter(lambda: stream.read(_CHUNK), b""),
            compressed=lambda: source.compressed - started_at,
            keep_on=damage,
        )
        try:
            self.keep(path, member)
        except _MemberTooBig as exc:
            self.refuse(name, str(exc))
            return
        except damage as exc:
            self.refuse(name, f"cut short before its data ({exc})")
            raise
        if member.error is not None:
            self.bundle.diagnostics.append(
                f"{name}: cut short ({member.error}); kept the {member.size} of {entry.size} bytes read"
            )
            raise member.error


class _MemberStream(io.RawIOBase):
    """One member's bytes as they come out of the archive, each chunk counted against every
    limit before anyone sees it (``_MemberTooBig`` or ``_Stop`` past one).

    ``compressed`` gives the compressed bytes the member has used so far (None: stored, no
    ratio). ``at_end`` may refuse the member once its last byte is read (size, CRC), before
    the sink keeps it. Damage of a kind in ``keep_on`` after some bytes ends the stream
    early (``error`` says why) so that what was read is kept.
    """

    def __init__(
        self,
        reader: _Reader,
        chunks: Iterator[bytes],
        *,
        compressed: Callable[[], int] | None,
        at_end: Callable[[_MemberStream], None] | None = None,
        keep_on: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.reader = reader
        self.chunks = chunks
        self.compressed = compressed
        self.at_end = at_end
        self.keep_on = keep_on
        self.size = 0
        self.crc = 0
        self.error: BaseException | None = None
        self.cut: _MemberTooBig | _Stop | None = None  # the limit that ended it early
        self.at_floor = 0  # compressed bytes used when it passed the ratio floor
        self.ended = False
        self.pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        while not len(self.pending):
            if self.ended:
                return 0
            try:
                chunk = next(self.chunks, None)
                if chunk is None:
                    self.ended = True
                    if self.at_end is not None:
                        self.at_end(self)
                    return 0
                size = self.size + len(chunk)
                compressed = size if self.compressed is None else self.compressed()
                if self.size <= self.reader.limits.ratio_floor_bytes:
                    self.at_floor = compressed
                self.reader.check_member(size, compressed, self.at_floor)
            except self.keep_on as exc:
                if not self.size:
                    raise
                self.error, self.ended = exc, True
                return 0
            except (_MemberTooBig, _Stop) as exc:  # a limit: keep what was read before it
                if not self.size:
                    raise
                self.cut, self.ended = exc, True
                return 0
            self.size = size
            self.crc = zlib.crc32(chunk, self.crc)
            self.pending = memoryview(chunk)
        size = min(len(target), len(self.pending))
        target[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes | memoryview, max_length: int = ...) -> bytes: ...


class _Chunks:
    """Decompressed chunks of one zip member, at most 64 KiB at a time, noting input used.

    The input is fed 64 KiB at a time: handing a decompressor the whole member made it copy
    the rest of the input back (``unconsumed_tail``) on every call, quadratic in its size.
    """

    def __init__(self, raw: bytes, decompressor: _Decompressor | None) -> None:
        self.raw = raw
        self.decompressor = decompressor
        self.consumed = len(raw)
        self.fed = 0
        self.truncated = False

    def __iter__(self) -> Iterator[bytes]:
        decompressor = self.decompressor
        assert decompressor is not None
        view = memoryview(self.raw)
        pending: bytes | memoryview = b""
        while True:
            # zlib hands back the input it had no room for; bz2 and lzma keep it inside
            # and say when they need more.
            if not pending and getattr(decompressor, "needs_input", True):
                pending = view[self.fed : self.fed + _CHUNK]
                self.fed += len(pending)
            chunk = decompressor.decompress(pending, _CHUNK)
            if chunk:
                yield chunk
            if decompressor.eof:
                self.consumed = self.fed - len(decompressor.unused_data)
                return
            pending = getattr(decompressor, "unconsumed_tail", b"")
            starved = getattr(decompressor, "needs_input", True)
            if not chunk and not pending and starved and self.fed >= len(view):
                self.truncated = True
                return


def _decoder(method: int) -> Callable[[bytes], _Chunks] | None:
    if method == zipfile.ZIP_STORED:
        return _StoredChunks
    if method == zipfile.ZIP_DEFLATED:
        return lambda raw: _Chunks(raw, zlib.decompressobj(-15))
    if method == zipfile.ZIP_BZIP2:
        return lambda raw: _Chunks(raw, bz2.BZ2Decompressor())
    if method == zipfile.ZIP_LZMA:
        return _LzmaChunks
    return None


class _StoredChunks(_Chunks):
    def __init__(self, raw: bytes) -> None:
        super().__init__(raw, None)

    def __iter__(self) -> Iterator[bytes]:
        for start in range(0, len(self.raw), _CHUNK):
            self.fed = start + _CHUNK
            yield self.raw[start : start + _CHUNK]


class _LzmaChunks(_Chunks):
    """Zip's LZMA: a 4-byte version/size prefix, the properties, then a raw LZMA1 stream."""

    def __init__(self, raw: bytes) -> None:
        (props_size,) = struct.unpack("<H", raw[2:4]) if len(raw) >= 4 else (0,)
        props = raw[4 : 4 + props_size]
        filters = [lzma._decode_filter_properties(lzma.FILTER_LZMA1, props)]  # type: ignore[attr-defined]
        super().__init__(
            raw[4 + props_size :], lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)
        )


class _StreamDamaged(OSError):
    """A compressed stream that is cut short or corrupt (the message says where)."""


# Errors the decompressors raise on damaged input.
_DECOMPRESSION_ERRORS: tuple[type[BaseException], ...] = (
    zlib.error,
    lzma.LZMAError,
    zstandard.ZstdError,
    OSError,
    EOFError,
    ValueError,
)
_NOT_ZERO = re.compile(rb"[^\0]")


class _Decompressing(io.RawIOBase):
    """The decompressed bytes of a ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` stream, at most
    64 KiB at a time (:meth:`next_chunk`, or read as a file: tarfile reads a tar.gz so).

    ``compressed`` is the compressed input used so far (ratios are counted against it) and
    ``produced`` the bytes given out. Concatenated streams (``cat a.gz b.gz``, pbzip2, xz
    and zstd multi-stream files) are read one after the other; zero padding between or
    after them is skipped. A stream cut short or corrupt raises :class:`_StreamDamaged`
    once the bytes before the damage are given out. ``on_chunk`` sees the running
    ``produced`` after each chunk (the tar reader counts its limits there); ``warn`` takes
    a damage that costs no data (a bad gzip trailer CRC).
    """

    def __init__(
        self,
        data: bytes,
        fmt: str,
        *,
        warn: Callable[[str], None],
        on_chunk: Callable[[int], None] | None = None,
    ) -> None:
        self.data = data
        self.view = memoryview(data)
        self.fmt = fmt
        self.label = _COMPRESSION_LABELS[fmt]
        self.warn = warn
        self.on_chunk = on_chunk
        self.produced = 0
        self.position = 0  # compressed bytes handed to the decompressor
        self.crc = 0  # gzip: CRC-32 and size of the current member, for its trailer
        self.member_size = 0
        self.buffer = memoryview(b"")
        self.ended = False
        self.zstd: _ZstdInput | None = None
        self.decompressor: _Decompressor = zlib.decompressobj(-15)
        # The first stream starts at the first read (a damaged header raises there).
        self.started = fmt == "zst"
        if fmt == "zst":
            self.zstd = _ZstdInput(data)

    @property
    def compressed(self) -> int:
        if self.zstd is not None:
            return self.zstd.position
        decompressor = self.decompressor
        held = len(getattr(decompressor, "unconsumed_tail", b""))
        if decompressor.eof:
            held += len(decompressor.unused_data)
        return self.position - held

    def start_stream(self, at: int) -> None:
        """A new decompressor for the stream starting at ``at``."""
        self.position = at
        if self.fmt == "gz":
            start = _gzip_header_length(self.data, at)
            if start is None:
                raise _StreamDamaged(
                    f"gzip stream corrupt after {_size(self.produced)}: damaged gzip header "
                    f"at byte {at}"
                )
            self.position = start
            self.decompressor = zlib.decompressobj(-15)
            self.crc = 0
            self.member_size = 0
        elif self.fmt == "bz2":
            self.decompressor = bz2.BZ2Decompressor()
        else:
            self.decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=_XZ_MEMLIMIT)

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        if not len(self.buffer):
            self.buffer = memoryview(self.next_chunk())
        size = min(len(target), len(self.buffer))
        target[:size] = self.buffer[:size]
        self.buffer = self.buffer[size:]
        return size

    def next_chunk(self) -> bytes:
        """The next decompressed bytes (at most 64 KiB), b"" at the end of the last stream."""
        if self.ended:
            return b""
        try:
            if not self.started:
                self.started = True
                self.start_stream(0)
            chunk = self.zstd_chunk() if self.zstd is not None else self.library_chunk()
        except _StreamDamaged:
            self.ended = True
            raise
        except _DECOMPRESSION_ERRORS as exc:
            self.ended = True
            raise _StreamDamaged(
                f"{self.label} stream corrupt after {_size(self.produced)} ({exc})"
            ) from exc
        if not chunk:
            self.ended = True
            return b""
        self.produced += len(chunk)
        if self.on_chunk is not None:
            self.on_chunk(self.produced)
        return chunk

    def truncated(self) -> _StreamDamaged:
        return _StreamDamaged(f"{self.label} stream truncated after {_size(self.produced)}")

    def library_chunk(self) -> bytes:
        while True:
            decompressor = self.decompressor
            if decompressor.eof:
                end = self.position - len(decompressor.unused_data)
                if self.fmt == "gz":
                    self.check_gzip_trailer(end)
                    end += 8
                following = _NOT_ZERO.search(self.data, end)
                if following is None:
                    return b""
                # Another stream follows (cat a.gz b.gz, pbzip2, xz padding): keep going.
                self.start_stream(following.start())
                continue
            # Fed 64 KiB at a time: the whole input at once made zlib copy back the rest of
            # it (unconsumed_tail) on every call. bz2 and lzma keep what they did not use
            # inside and say when they need more.
            source: bytes | memoryview = getattr(decompressor, "unconsumed_tail", b"")
            if not source and getattr(decompressor, "needs_input", True):
                source = self.view[self.position : self.position + _CHUNK]
                self.position += len(source)
                if not source:
                    raise self.truncated()
            chunk = decompressor.decompress(source, _CHUNK)
            if self.fmt == "gz":
                self.crc = zlib.crc32(chunk, self.crc)
                self.member_size += len(chunk)
            if chunk:
                return chunk

    def check_gzip_trailer(self, end: int) -> None:
        trailer = self.data[end : end + 8]
        if len(trailer) < 8:
            raise self.truncated()
        if struct.unpack("<II", trailer) != (self.crc, self.member_size & 0xFFFFFFFF):
            self.warn("gzip trailer CRC or size mismatch: data may be corrupt")

    def zstd_chunk(self) -> bytes:
        zstd = self.zstd
        assert zstd is not None
        chunk: bytes = zstd.reader.read(_CHUNK)
        if chunk:
            return chunk
        if zstd.problem is not None:
            if zstd.problem == "truncated":
                raise self.truncated()
            raise _StreamDamaged(
                f"zstd stream corrupt after {_size(self.produced)}: {zstd.problem}"
            )
        return b""


class _ZstdInput(io.RawIOBase):
    """The compressed side of a zstd stream: its whole frames (walked first, as the zstd
    reader says nothing of a frame cut short), counted as the decompressor reads them."""

    def __init__(self, data: bytes) -> None:
        end, self.problem = _zstd_frames(data)
        # A frame cut short is decompressed as far as it goes; garbage after whole frames
        # is not handed to the decompressor.
        self.view = memoryview(data)[: len(data) if self.problem == "truncated" else end]
        self.position = 0
        self.reader = _ZSTD.stream_reader(
            cast(IO[bytes], self), read_size=_CHUNK, read_across_frames=True
        )

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        piece = self.view[self.position : self.position + len(target)]
        target[: len(piece)] = piece
        self.position += len(piece)
        return len(piece)


_ZSTD = zstandard.ZstdDecompressor(max_window_size=1 << 27)
_ZSTD_MAGIC = 0xFD2FB528
_ZSTD_FCS_SIZES = (0, 2, 4, 8)
_ZSTD_DICT_ID_SIZES = (0, 1, 2, 4)


def _zstd_frames(data: bytes) -> tuple[int, str | None]:
    """Where the whole zstd frames at the start of ``data`` end (RFC 8878: frame headers and
    block headers are walked, nothing decompressed), and what stopped the walk: None (the
    end, or zero padding), ``"truncated"`` or a description of the garbage found."""
    position, size = 0, len(data)
    while position < size:
        if _NOT_ZERO.search(data, position) is None:
            return position, None
        if size - position < 4:
            return position, "truncated"
        (magic,) = struct.unpack_from("<I", data, position)
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame
            if size - position < 8:
                return position, "truncated"
            (length,) = struct.unpack_from("<I", data, position + 4)
            end = position + 8 + length
        elif magic == _ZSTD_MAGIC:
            end = _zstd_frame_end(data, position)
            if end is None:
                return position, f"bad zstd block header in the frame at byte {position}"
        else:
            return position, f"unreadable bytes after the last frame, at byte {position}"
        if end > size:
            return position, "truncated"
        position = end
    return position, None


def _zstd_frame_end(data: bytes, start: int) -> int | None:
    """Where the zstd frame starting at ``start`` ends (past ``len(data)`` if it is cut
    short), None for a reserved block type."""
    if len(data) < start + 5:
        return len(data) + 1
    descriptor = data[start + 4]
    single_segment = descriptor >> 5 & 1
    content_size_flag = descriptor >> 6
    content_size = _ZSTD_FCS_SIZES[content_size_flag] or single_segment
    position = (
        start
        + 5
        + (0 if single_segment else 1)  # window descriptor
        + _ZSTD_DICT_ID_SIZES[descriptor & 3]
        + content_size
    )
    while True:
        if len(data) < position + 3:
            return len(data) + 1
        header = int.from_bytes(data[position : position + 3], "little")
        kind = header >> 1 & 3
        if kind == 3:
            return None
        position += 3 + (1 if kind == 1 else header >> 3)  # an RLE block holds one byte
        if header & 1:  # the last block
            return position + (4 if descriptor & 0x04 else 0)  # content checksum
        if position > len(data):
            return position


def _size(count: int) -> str:
    """Bytes in binary units, for messages: ``1.2 MiB``."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"  # pragma: no cover


def _gzip_header_length(data: bytes, at: int = 0) -> int | None:
    """Where the gzip member header starting at ``at`` in ``data`` ends (RFC 1952), None if
    damaged."""
    if len(data) < at + 10 or not data.startswith(_GZIP_MAGIC, at) or data[at + 2] != 8:
        return None
    flags = data[at + 3]
    position = at + 10
    if flags & 0x04:  # FEXTRA
        position += 2 + int.from_bytes(data[position : position + 2], "little")
    for flag in (0x08, 0x10):  # FNAME, FCOMMENT: NUL-terminated
        if flags & flag:
            end = data.find(b"\0", position)
            if end == -1:
                return None
            position = end + 1
    if flags & 0x02:  # FHCRC
        position += 2
    return position if position <= len(data) else None
