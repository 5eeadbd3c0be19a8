"""The raw artifact store: verbatim bytes, content-addressed by sha256.

The store is an interface with two backends: a local directory (the default) and an
S3-compatible bucket (``ROOTLINE_STORAGE=s3``); ``make_store`` picks one from the settings.
Every upload is hashed and size-checked as it is read, and takes its name (a rename, or an
upload under the digest's key) only once complete and accepted, so a crash or an oversized
upload never leaves a half-written blob under a valid name.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Protocol

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


# Called with the blob once its digest is known and before it takes its name in the store
# (``artifacts.service.blob_claimer``: so that no delete removes it before it is recorded).
ClaimHook = Callable[[StoredBlob], None]


def _no_claim(_blob: StoredBlob) -> None:
    pass


class ArtifactStore(Protocol):
    def put_file(
        self, source: BinaryIO, limit: int, claim: ClaimHook = _no_claim
    ) -> StoredBlob: ...

    async def put_stream(
        self, chunks: AsyncIterator[bytes], limit: int, claim: ClaimHook = _no_claim
    ) -> StoredBlob: ...

    def put_bytes(self, data: bytes, claim: ClaimHook = _no_claim) -> StoredBlob: ...

    def read(self, sha256: str) -> bytes: ...

    def open(self, sha256: str) -> BinaryIO: ...

    def exists(self, sha256: str) -> bool: ...

    def delete(self, sha256: str) -> None: ...

    def check(self) -> None:
        """Raise ``OSError`` when blobs can be neither written nor read (for health checks)."""
        ...


def _check_digest(sha256: str) -> None:
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256 digest: {sha256!r}")


class _Digest:
    """Hashes and counts the blocks of one upload; ``TooLarge`` as soon as they pass ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._hasher = hashlib.sha256()

    def add(self, block: bytes) -> bytes:
        self.size += len(block)
        if self.size > self.limit:
            raise TooLarge(self.limit)
        self._hasher.update(block)
        return block

    def blob(self) -> StoredBlob:
        return StoredBlob(self._hasher.hexdigest(), self.size)


COPY_CHUNK = 1024 * 1024


class _StagingStore:
    """Writes an upload to a temporary file, hashing and size-checking it on the way, and
    hands only a complete, accepted file to ``_commit``; the temporary file is gone after."""

    def _staging_file(self) -> AbstractContextManager[IO[bytes]]:
        raise NotImplementedError

    def _commit(self, staged: IO[bytes], blob: StoredBlob) -> StoredBlob:
        raise NotImplementedError

    def put_file(self, source: BinaryIO, limit: int, claim: ClaimHook = _no_claim) -> StoredBlob:
        digest = _Digest(limit)
        with self._staging_file() as staged:
            while block := source.read(COPY_CHUNK):
                staged.write(digest.add(block))
            return self._claim_and_commit(staged, digest.blob(), claim)

    async def put_stream(
        self, chunks: AsyncIterator[bytes], limit: int, claim: ClaimHook = _no_claim
    ) -> StoredBlob:
        digest = _Digest(limit)
        with self._staging_file() as staged:
            async for block in chunks:
                staged.write(digest.add(block))
            # Claiming and committing may block on a database, a disk or the network: keep
            # them off the event loop.
            return await asyncio.to_thread(self._claim_and_commit, staged, digest.blob(), claim)

    def _claim_and_commit(
        self, staged: IO[bytes], blob: StoredBlob, claim: ClaimHook
    ) -> StoredBlob:
        claim(blob)
        return self._commit(staged, blob)


class LocalArtifactStore(_StagingStore):
    """Blobs under ``root/ab/abcdef...``; identical uploads share one file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / ".tmp"
        self.tmp.mkdir(parents=True, exist_ok=True)

    def check(self) -> None:
        if not (self.tmp.is_dir() and os.access(self.tmp, os.W_OK)):
            raise OSError(f"the artifact directory {self.root} is missing or not writable")

    def path_for(self, sha256: str) -> Path:
        _check_digest(sha256)
        return self.root / sha256[:2] / sha256

    @contextmanager
    def _staging_file(self) -> Iterator[IO[bytes]]:
        """A named file under ``root/.tmp`` (same file system: ``_commit`` renames it)."""
        out = tempfile.NamedTemporaryFile(dir=self.tmp, delete=False)  # noqa: SIM115
        try:
            with out:
                yield out
        finally:
            Path(out.name).unlink(missing_ok=True)

    def _commit(self, staged: IO[bytes], blob: StoredBlob) -> StoredBlob:
        staged.flush()
        target = self.path_for(blob.sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged.name, target)
        return blob

    def put_bytes(self, data: bytes, claim: ClaimHook = _no_claim) -> StoredBlob:
        blob = StoredBlob(hashlib.sha256(data).hexdigest(), len(data))
        claim(blob)
        try:
            # Already there: touched, so the orphan sweep's grace period (artifacts.
            # housekeeping) counts from this upload, as it does for rewritten blobs.
            os.utime(self.path_for(blob.sha256))
        except FileNotFoundError:
            with self._staging_file() as staged:
                staged.write(data)
                self._commit(staged, blob)
        return blob

    def read(self, sha256: str) -> bytes:
        return self.path_for(sha256).read_bytes()

    def open(self, sha256: str) -> BinaryIO:
        return self.path_for(sha256).open("rb")

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    def delete(self, sha256: str) -> None:
        self.path_for(sha256).unlink(missing_ok=True)


class S3ArtifactStore(_StagingStore):
    """Blobs under ``<prefix>ab/abcdef...`` in one bucket of an S3-compatible object store.

    The key is the digest, known only once every byte was read, and nothing over the limit
    may be kept: a seekable source (a file, an upload Starlette already spooled) is read
    once to hash and check it, then uploaded from where it started; a stream is spooled to
    a temporary file (deleted on close, even on a crash) on the way. Uploads go in parts
    when large; bytes the bucket already holds are not sent again. A missing blob raises
    ``FileNotFoundError``, as with the local store.
    """

    PART_SIZE = 16 * 1024 * 1024
    _MISSING = frozenset({"404", "NotFound", "NoSuchKey"})

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
            if _error_code(exc) not in self._MISSING | {"NoSuchBucket"}:
                raise
        arguments: dict[str, Any] = {"Bucket": self.bucket}
        if region and region != "us-east-1":
            arguments["CreateBucketConfiguration"] = {"LocationConstraint": region}
        try:
            self.client.create_bucket(**arguments)
        except ClientError as exc:
            if _error_code(exc) not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
                raise

    def _staging_file(self) -> AbstractContextManager[IO[bytes]]:
        return tempfile.TemporaryFile(dir=self.spool_dir)

    def _commit(self, staged: IO[bytes], blob: StoredBlob) -> StoredBlob:
        staged.seek(0)
        return self._upload(staged, blob)

    def _upload(self, source: IO[bytes], blob: StoredBlob) -> StoredBlob:
        """Send ``source`` from where it stands to its end, unless the bucket holds it."""
        if not self.exists(blob.sha256):
            self.client.upload_fileobj(
                source,
                self.bucket,
                self.key_for(blob.sha256),
                ExtraArgs={"ContentType": "application/octet-stream"},
                Config=self.transfer,
            )
        return blob

    def put_file(self, source: BinaryIO, limit: int, claim: ClaimHook = _no_claim) -> StoredBlob:
        if not source.seekable():
            return super().put_file(source, limit, claim)
        start = source.tell()
        digest = _Digest(limit)
        while block := source.read(COPY_CHUNK):
            digest.add(block)
        source.seek(start)
        blob = digest.blob()
        claim(blob)
        return self._upload(source, blob)

    def put_bytes(self, data: bytes, claim: ClaimHook = _no_claim) -> StoredBlob:
        return self.put_file(io.BytesIO(data), len(data), claim)

    def _get_body(self, sha256: str) -> Any:
        from botocore.exceptions import ClientError

        key = self.key_for(sha256)
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if _error_code(exc) in self._MISSING:
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
        return io.BufferedReader(_BodyReader(self._get_body(sha256)), COPY_CHUNK)

    def check(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.head_bucket(Bucket=self.bucket)
        except (BotoCoreError, ClientError) as exc:
            raise OSError(f"bucket {self.bucket} unreachable: {exc}") from exc

    def exists(self, sha256: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self.key_for(sha256))
        except ClientError as exc:
            if _error_code(exc) in self._MISSING:
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
