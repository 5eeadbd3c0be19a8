"""zstd for the columns Rootline stores (point chunks, event chunks, connection blocks)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import zstandard


def compressor(level: int) -> Callable[[Any], bytes]:
    """zstd at ``level`` for many buffers, from one thread (a zstd context is not shared).

    Each result is a bytes object exactly as long as the compressed data. python-zstandard's
    own result keeps the allocation of the worst case, about the input's size: 130 KB for a
    22-byte point chunk. The chunks of a 100 MB nmon capture, held until they were written,
    took 150 MB that way (measured with tracemalloc)."""
    compress = zstandard.ZstdCompressor(level=level).compress

    def compact(data: Any) -> bytes:
        return bytes(memoryview(compress(data)))

    return compact


# One compressor per level and one decompressor per thread, made once: a new zstd context
# per array cost about 10 us, and a parse stores thousands of event and connection arrays.
_contexts = threading.local()


def _thread_compressor(level: int) -> Callable[[Any], bytes]:
    made: dict[int, Callable[[Any], bytes]] | None = getattr(_contexts, "compressors", None)
    if made is None:
        made = _contexts.compressors = {}
    found = made.get(level)
    if found is None:
        found = made[level] = compressor(level)
    return found


def decompress(data: bytes) -> bytes:
    """What a :func:`compressor` wrote (the thread's own context: not shared between threads)."""
    found: zstandard.ZstdDecompressor | None = getattr(_contexts, "decompressor", None)
    if found is None:
        found = _contexts.decompressor = zstandard.ZstdDecompressor()
    return found.decompress(data)


def pack_array(array: npt.NDArray[np.generic], level: int) -> bytes:
    """An array's bytes (in its own dtype's byte order), compressed."""
    return _thread_compressor(level)(np.ascontiguousarray(array).data)


def unpack_array(data: bytes, dtype: str) -> npt.NDArray[Any]:
    """What :func:`pack_array` wrote, as ``dtype`` (``"<i8"``, ``"<f8"`` ...)."""
    return np.frombuffer(decompress(data), dtype=dtype)
