"""One contract for every raw artifact store: the local directory and S3 (moto's real server)."""

from __future__ import annotations

import asyncio
import hashlib
import io
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from rootline.settings import Settings
from rootline.storage import (
    ArtifactStore,
    LocalArtifactStore,
    S3ArtifactStore,
    StoredBlob,
    TooLarge,
    make_store,
)
from tests.storage.conftest import ACCESS_KEY, REGION, SECRET_KEY, S3Server

MB = 1024 * 1024


@dataclass
class StoreUnderTest:
    store: ArtifactStore
    blobs: Callable[[], list[str]]  # names of the committed blobs
    scratch: Callable[[], list[Path]]  # temporary files left behind


@pytest.fixture(params=["local", "s3"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> StoreUnderTest:
    if request.param == "local":
        root = tmp_path / "artifacts"
        local = LocalArtifactStore(root)
        return StoreUnderTest(
            local,
            lambda: sorted(
                p.name for p in root.rglob("*") if p.is_file() and ".tmp" not in p.parts
            ),
            lambda: [p for p in (root / ".tmp").rglob("*") if p.is_file()],
        )
    server: S3Server = request.getfixturevalue("s3_server")
    bucket = server.new_bucket()
    spool = tmp_path / "spool"
    s3 = S3ArtifactStore(server.client(), bucket, prefix="raw/", spool_dir=spool)
    return StoreUnderTest(
        s3,
        lambda: sorted(server.keys(bucket)),
        lambda: [p for p in spool.rglob("*") if p.is_file()],
    )


async def _chunks(blocks: list[bytes]) -> AsyncIterator[bytes]:
    for block in blocks:
        yield block


class _Pipe(io.BytesIO):
    """A source that cannot seek (a pipe, a socket): the S3 store must spool it."""

    def seekable(self) -> bool:
        return False


def test_round_trip_through_every_write_path(backend: StoreUnderTest) -> None:
    store = backend.store
    data = b"ss -tan output\n" * 1000
    digest = hashlib.sha256(data).hexdigest()

    assert not store.exists(digest)
    assert store.put_file(io.BytesIO(data), limit=len(data)).sha256 == digest
    assert store.exists(digest)
    assert store.read(digest) == data
    with store.open(digest) as handle:
        assert handle.read(5) == data[:5]
        assert handle.read() == data[5:]

    blob = asyncio.run(store.put_stream(_chunks([data[:7], data[7:]]), limit=len(data)))
    assert (blob.sha256, blob.size_bytes) == (digest, len(data))
    assert store.put_bytes(data).sha256 == digest

    store.delete(digest)
    assert not store.exists(digest)
    store.delete(digest)  # deleting what is gone is not an error
    assert backend.blobs() == []


def test_identical_bytes_are_stored_once(backend: StoreUnderTest) -> None:
    store = backend.store
    first = store.put_bytes(b"one")
    store.put_file(io.BytesIO(b"one"), limit=10)
    asyncio.run(store.put_stream(_chunks([b"o", b"ne"]), limit=10))
    second = store.put_bytes(b"two")
    assert len(backend.blobs()) == 2
    assert {first.sha256, second.sha256} == {name.rsplit("/", 1)[-1] for name in backend.blobs()}
    assert backend.scratch() == []


def test_blobs_are_named_by_digest_under_a_two_letter_folder(backend: StoreUnderTest) -> None:
    digest = backend.store.put_bytes(b"named").sha256
    if isinstance(backend.store, S3ArtifactStore):
        assert backend.blobs() == [f"raw/{digest[:2]}/{digest}"]
    else:
        assert isinstance(backend.store, LocalArtifactStore)
        assert backend.store.path_for(digest).relative_to(backend.store.root) == Path(
            digest[:2], digest
        )


def test_over_the_limit_leaves_nothing_behind(backend: StoreUnderTest) -> None:
    store = backend.store
    data = b"x" * (3 * MB)
    for source in (io.BytesIO(data), _Pipe(data)):
        with pytest.raises(TooLarge):
            store.put_file(source, limit=2 * MB)
    with pytest.raises(TooLarge):
        asyncio.run(store.put_stream(_chunks([data[:MB], data[MB:]]), limit=MB + 10))
    assert not store.exists(hashlib.sha256(data).hexdigest())
    assert backend.blobs() == []
    assert backend.scratch() == []
    # Exactly at the limit is accepted.
    assert store.put_file(io.BytesIO(data), limit=len(data)).size_bytes == len(data)


def test_put_file_takes_the_source_from_where_it_stands(backend: StoreUnderTest) -> None:
    data = b"skipped header\n" + b"ss -tan output\n" * 1000
    payload = data[15:]
    for source in (io.BytesIO(data), _Pipe(data)):
        source.read(15)
        blob = backend.store.put_file(source, limit=len(payload))
        assert blob == StoredBlob(hashlib.sha256(payload).hexdigest(), len(payload))
        assert backend.store.read(blob.sha256) == payload
    assert len(backend.blobs()) == 1
    assert backend.scratch() == []


def test_streams_a_file_of_tens_of_megabytes(backend: StoreUnderTest, tmp_path: Path) -> None:
    store = backend.store
    block = hashlib.sha256(b"seed").digest() * (MB // 32)
    blocks = [bytes([i]) + block[1:] for i in range(40)]  # 40 MiB, no two blocks alike
    expected = hashlib.sha256(b"".join(blocks)).hexdigest()

    blob = asyncio.run(store.put_stream(_chunks(blocks), limit=64 * MB))
    assert (blob.sha256, blob.size_bytes) == (expected, 40 * MB)

    hasher = hashlib.sha256()
    size = 0
    with store.open(expected) as handle:
        while chunk := handle.read(MB):
            size += len(chunk)
            hasher.update(chunk)
    assert (hasher.hexdigest(), size) == (expected, 40 * MB)

    # The same bytes from a file on disk: deduplicated, not sent again.
    source = tmp_path / "big.bin"
    with source.open("wb") as out:
        for part in blocks:
            out.write(part)
    with source.open("rb") as handle:
        assert store.put_file(handle, limit=64 * MB).sha256 == expected
    assert len(backend.blobs()) == 1
    assert backend.scratch() == []
    if isinstance(store, S3ArtifactStore):
        head = store.client.head_object(Bucket=store.bucket, Key=store.key_for(expected))
        assert head["ContentLength"] == 40 * MB
        assert head["ETag"].strip('"').endswith("-3")  # uploaded in 16 MiB parts


def test_missing_and_malformed_digests(backend: StoreUnderTest) -> None:
    store = backend.store
    missing = hashlib.sha256(b"never stored").hexdigest()
    assert not store.exists(missing)
    with pytest.raises(FileNotFoundError):
        store.read(missing)
    with pytest.raises(FileNotFoundError):
        store.open(missing)
    with pytest.raises(ValueError):
        store.exists("../../etc/passwd")
    with pytest.raises(ValueError):
        store.read("ABC")


def test_make_store_follows_the_settings(s3_server: S3Server, tmp_path: Path) -> None:
    local = make_store(Settings(data_dir=tmp_path / "data"))
    assert isinstance(local, LocalArtifactStore)
    assert local.root == (tmp_path / "data" / "artifacts").resolve()

    bucket = "rootline-made-by-the-app"
    s3 = make_store(
        Settings(
            data_dir=tmp_path / "data",
            storage="s3",
            s3_endpoint_url=s3_server.endpoint_url,
            s3_bucket=bucket,
            s3_region=REGION,
            s3_access_key_id=ACCESS_KEY,
            s3_secret_access_key=SECRET_KEY,
            s3_prefix="p/",
            s3_create_bucket=True,
        )
    )
    assert isinstance(s3, S3ArtifactStore)
    digest = s3.put_bytes(b"hello").sha256
    assert s3_server.keys(bucket) == [f"p/{digest[:2]}/{digest}"]
    s3.ensure_bucket(REGION)  # a second worker finding it there is fine

    with pytest.raises(ValueError, match="ROOTLINE_S3_BUCKET"):
        make_store(Settings(data_dir=tmp_path, storage="s3"))
