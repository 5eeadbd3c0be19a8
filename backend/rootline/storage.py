"""The raw artifact store: verbatim bytes, content-addressed by sha256.

The store is an interface so that a deployment can keep raw artifacts in object storage; the
local-directory backend is the default. Writes go to a temporary file first and are renamed
into place, so a crash never leaves a half-written blob under a valid name.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol


class TooLarge(Exception):
    """The stream passed the size limit; nothing was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than the limit of {limit} bytes")
        self.limit = limit


@dataclass(frozen=True, slots=True)
class StoredBlob:
    sha256: str
    size_bytes: int


class ArtifactStore(Protocol):
    def put_file(self, source: BinaryIO, limit: int) -> StoredBlob: ...

    async def put_stream(self, chunks: AsyncIterator[bytes], limit: int) -> StoredBlob: ...

    def put_bytes(self, data: bytes) -> StoredBlob: ...

    def read(self, sha256: str) -> bytes: ...

    def open(self, sha256: str) -> BinaryIO: ...

    def exists(self, sha256: str) -> bool: ...

    def delete(self, sha256: str) -> None: ...


class LocalArtifactStore:
    """Blobs under ``root/ab/abcdef...``; identical uploads share one file."""

    COPY_CHUNK = 1024 * 1024

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / ".tmp"
        self.tmp.mkdir(parents=True, exist_ok=True)

    def path_for(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a sha256 digest: {sha256!r}")
        return self.root / sha256[:2] / sha256

    def _commit(self, tmp_path: Path, digest: str, size: int) -> StoredBlob:
        target = self.path_for(digest)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp_path, target)
        return StoredBlob(digest, size)

    def _tempfile(self) -> tuple[BinaryIO, Path]:
        fd, name = tempfile.mkstemp(dir=self.tmp)
        return os.fdopen(fd, "wb"), Path(name)

    def put_file(self, source: BinaryIO, limit: int) -> StoredBlob:
        hasher = hashlib.sha256()
        size = 0
        out, tmp_path = self._tempfile()
        try:
            with out:
                while block := source.read(self.COPY_CHUNK):
                    size += len(block)
                    if size > limit:
                        raise TooLarge(limit)
                    hasher.update(block)
                    out.write(block)
            return self._commit(tmp_path, hasher.hexdigest(), size)
        finally:
            tmp_path.unlink(missing_ok=True)

    async def put_stream(self, chunks: AsyncIterator[bytes], limit: int) -> StoredBlob:
        hasher = hashlib.sha256()
        size = 0
        out, tmp_path = self._tempfile()
        try:
            with out:
                async for block in chunks:
                    size += len(block)
                    if size > limit:
                        raise TooLarge(limit)
                    hasher.update(block)
                    out.write(block)
            return self._commit(tmp_path, hasher.hexdigest(), size)
        finally:
            tmp_path.unlink(missing_ok=True)

    def put_bytes(self, data: bytes) -> StoredBlob:
        digest = hashlib.sha256(data).hexdigest()
        if not self.exists(digest):
            out, tmp_path = self._tempfile()
            try:
                with out:
                    out.write(data)
                self._commit(tmp_path, digest, len(data))
            finally:
                tmp_path.unlink(missing_ok=True)
        return StoredBlob(digest, len(data))

    def read(self, sha256: str) -> bytes:
        return self.path_for(sha256).read_bytes()

    def open(self, sha256: str) -> BinaryIO:
        return self.path_for(sha256).open("rb")

    def iter_chunks(self, sha256: str) -> Iterator[bytes]:
        with self.open(sha256) as handle:
            while block := handle.read(self.COPY_CHUNK):
                yield block

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    def delete(self, sha256: str) -> None:
        self.path_for(sha256).unlink(missing_ok=True)
