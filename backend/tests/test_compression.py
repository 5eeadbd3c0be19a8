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
