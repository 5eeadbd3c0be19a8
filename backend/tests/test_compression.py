"""Compressed columns cost the memory of their compressed bytes, not of their input."""

from __future__ import annotations

import tracemalloc

import zstandard

from rootline.compression import compressor


def test_a_compressed_chunk_holds_only_its_own_bytes() -> None:
    compress = compressor(1)
    chunk = bytes(16 * 8192)  # a point chunk's 128 KB, compressed to a few bytes
    tracemalloc.start()
    try:
        kept = [compress(chunk) for _ in range(100)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert zstandard.ZstdDecompressor().decompress(kept[0]) == chunk
    # python-zstandard's own results held 100 x 130 KB here.
    assert held < 100 * 1024


def test_arrays_packed_from_many_threads_at_once_read_back() -> None:
    """pack_array keeps one zstd context per thread (a context shared by two threads at once
    corrupts both outputs): eight threads packing different arrays all read theirs back."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from rootline.compression import pack_array, unpack_array

    def round_trip(seed: int) -> bool:
        rng = np.random.default_rng(seed)
        for _ in range(200):
            values = rng.normal(size=int(rng.integers(1, 5000)))
            if not np.array_equal(unpack_array(pack_array(values, 3), "<f8"), values):
                return False
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(round_trip, range(8)))
