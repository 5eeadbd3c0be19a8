"""The raw artifact store: verbatim bytes, content-addressed by sha256.

The store is an interface with two backends: a local directory (the default) and an
S3-compatible bucket (``ROOTLINE_STORAGE=s3``); ``make_store`` picks one from the settings.
Writes go to a temporary file first, hashed and size-checked on the way, and only then take
their name (a rename, or an upload under the digest's key), so a crash or an oversized
upload never leaves a half-written blob under a valid name.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

if TYPE_CHECKING:
    from rootline.settings import Settings


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


def _check_digest(sha256: str) -> None:
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256 digest: {sha256!r}")


class LocalArtifactStore:
    """Blobs under ``root/ab/abcdef...``; identical uploads share one file."""

    COPY_CHUNK = 1024 * 1024

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / ".tmp"
        self.tmp.mkdir(parents=True, exist_ok=True)

    def path_for(self, sha256: str) -> Path:
        _check_digest(sha256)
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


class S3ArtifactStore:
    """Blobs under ``<prefix>ab/abcdef...`` in one bucket of an S3-compatible object store.

    An upload is hashed and size-checked while it is spooled to a temporary file (deleted
    on close, even on a crash); only a complete, accepted file is uploaded, under its
    digest's key, in parts when large. Bytes the bucket already holds are not sent again.
    A missing blob raises ``FileNotFoundError``, as with the local store.
    """

    COPY_CHUNK = 1024 * 1024
    PART_SIZE = 16 * 1024 * 1024

    def __init__(
        self, client: Any, bucket: str, prefix: str = "", spool_dir: Path | None = None
    ) -> None:
        from boto3.s3.transfer import TransferConfig

        self.client = client
        self.bucket = bucket
        self.prefix = prefix
        self.spool_dir = spool_dir
        if spool_dir is not None:
            spool_dir.mkdir(parents=True, exist_ok=True)
        self.transfer = TransferConfig(
            multipart_threshold=self.PART_SIZE,
            multipart_chunksize=self.PART_SIZE,
            max_concurrency=4,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> S3ArtifactStore:
        import boto3
        from botocore.config import Config

        if not settings.s3_bucket:
            raise ValueError("ROOTLINE_S3_BUCKET must be set when ROOTLINE_STORAGE is s3")
        secret = settings.s3_secret_access_key
        client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint_url,
            region_name=settings.s3_region,
            aws_access_key_id=settings.s3_access_key_id,
            aws_secret_access_key=secret.get_secret_value() if secret else None,
            config=Config(
                signature_version="s3v4",
                # S3-compatible servers (MinIO and the like) name buckets in the path.
                s3={"addressing_style": "path" if settings.s3_endpoint_url else "auto"},
                retries={"mode": "standard", "max_attempts": 5},
            ),
        )
        store = cls(
            client,
            settings.s3_bucket,
            prefix=settings.s3_prefix,
            spool_dir=settings.data_dir.resolve() / "spool",
        )
        if settings.s3_create_bucket:
            store.ensure_bucket(settings.s3_region)
        return store

    def key_for(self, sha256: str) -> str:
        _check_digest(sha256)
        return f"{self.prefix}{sha256[:2]}/{sha256}"

    def ensure_bucket(self, region: str | None = None) -> None:
        """Create the bucket unless it exists (several workers may race here: all succeed)."""
        from botocore.exceptions import ClientError

        try:
            self.client.head_bucket(Bucket=self.bucket)
            return
        except ClientError as exc:
            if _error_code(exc) not in {"404", "NoSuchBucket", "NotFound"}:
                raise
        arguments: dict[str, Any] = {"Bucket": self.bucket}
        if region and region != "us-east-1":
            arguments["CreateBucketConfiguration"] = {"LocationConstraint": region}
        try:
            self.client.create_bucket(**arguments)
        except ClientError as exc:
            if _error_code(exc) not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
                raise

    def _spool(self) -> BinaryIO:
        return tempfile.TemporaryFile(dir=self.spool_dir)

    def _upload(self, spool: BinaryIO, digest: str, size: int) -> StoredBlob:
        if not self.exists(digest):
            spool.seek(0)
            self.client.upload_fileobj(
                spool,
                self.bucket,
                self.key_for(digest),
                ExtraArgs={"ContentType": "application/octet-stream"},
                Config=self.transfer,
            )
        return StoredBlob(digest, size)

    def put_file(self, source: BinaryIO, limit: int) -> StoredBlob:
        hasher = hashlib.sha256()
        size = 0
        with self._spool() as spool:
            while block := source.read(self.COPY_CHUNK):
                size += len(block)
                if size > limit:
                    raise TooLarge(limit)
                hasher.update(block)
                spool.write(block)
            return self._upload(spool, hasher.hexdigest(), size)

    async def put_stream(self, chunks: AsyncIterator[bytes], limit: int) -> StoredBlob:
        hasher = hashlib.sha256()
        size = 0
        with self._spool() as spool:
            async for block in chunks:
                size += len(block)
                if size > limit:
                    raise TooLarge(limit)
                hasher.update(block)
                spool.write(block)
            # The upload blocks on the network: keep it off the event loop.
            return await asyncio.to_thread(self._upload, spool, hasher.hexdigest(), size)

    def put_bytes(self, data: bytes) -> StoredBlob:
        digest = hashlib.sha256(data).hexdigest()
        if not self.exists(digest):
            self.client.put_object(
                Bucket=self.bucket,
                Key=self.key_for(digest),
                Body=data,
                ContentType="application/octet-stream",
            )
        return StoredBlob(digest, len(data))

    def _get_body(self, sha256: str) -> Any:
        from botocore.exceptions import ClientError

        key = self.key_for(sha256)
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if _error_code(exc) in {"NoSuchKey", "404", "NotFound"}:
                raise FileNotFoundError(f"no blob {sha256} in s3://{self.bucket}/{key}") from exc
            raise
        return response["Body"]

    def read(self, sha256: str) -> bytes:
        body = self._get_body(sha256)
        try:
            return bytes(body.read())
        finally:
            body.close()

    def open(self, sha256: str) -> BinaryIO:
        """A buffered reader over the object's HTTP body: read as it streams, never whole."""
        return io.BufferedReader(_BodyReader(self._get_body(sha256)), self.COPY_CHUNK)

    def exists(self, sha256: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self.key_for(sha256))
        except ClientError as exc:
            if _error_code(exc) in {"404", "NoSuchKey", "NotFound"}:
                return False
            raise
        return True

    def delete(self, sha256: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.key_for(sha256))


class _BodyReader(io.RawIOBase):
    """A botocore streaming body as a raw stream, for ``io.BufferedReader``."""

    def __init__(self, body: Any) -> None:
        self._body = body

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._body.read(len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._body.close()
        super().close()


def _error_code(exc: Any) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def make_store(settings: Settings) -> ArtifactStore:
    """The raw artifact store the settings ask for (``ROOTLINE_STORAGE``)."""
    if settings.storage == "s3":
        return S3ArtifactStore.from_settings(settings)
    return LocalArtifactStore(settings.resolved_artifacts_dir)
