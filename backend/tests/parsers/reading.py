"""Reading a file as the worker reads a stored one (``registry.parse_file``), for the parsers'
tests: how often it was read again whole, what it gave, and the parse's peak memory."""

from __future__ import annotations

import io
import subprocess
import sys

from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult


def parse_stored(data: bytes) -> tuple[ParseResult, int]:
    """``data`` parsed as the worker parses a stored file, and how often it was reopened (a
    piece parser gave it up and it was read again whole)."""
    reopened = []

    def reopen() -> io.BytesIO:
        reopened.append(1)
        return io.BytesIO(data)

    result = registry.parse_file(io.BytesIO(data), ParseContext(), reopen=reopen)
    return result, len(reopened)


def parse_whole(data: bytes) -> ParseResult:
    """``data`` decoded whole and parsed (no pieces)."""
    return registry.parse_decoded(registry.decode_bytes(data), ParseContext())


def dump(result: ParseResult) -> tuple[object, ...]:
    """What a parse gave, comparable with ``==`` (series bit for bit)."""
    return (
        result.kind,
        result.status,
        result.host,
        [(d.line, d.message) for d in result.diagnostics],
        [(f.key, f.value, f.time_ms) for f in result.facts],
        [
            (s.name, s.labels, s.unit, s.times_ms.tobytes(), s.values.tobytes())
            for s in result.series
        ],
    )


def peak_of_parse(generator: str, size: int) -> tuple[str, float]:
    """(status, peak / file size) of parsing a file the bench generator ``generator``
    (``bench.gen_nmon``) writes at ``size`` bytes, as the worker parses a stored file:
    Python's and numpy's allocations (tracemalloc; pyarrow's are its own), in a fresh
    process so that nothing else counts."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, generator, str(size)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    status, peak = done.stdout.split()
    return status, float(peak)


_MEASURE = """
import importlib, sys, tempfile, tracemalloc
from pathlib import Path
from rootline.parsers import registry
from rootline.parsers.base import ParseContext
generate = importlib.import_module(sys.argv[1]).generate
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "capture.txt"
    generate(path, int(sys.argv[2]))
    size = path.stat().st_size
    tracemalloc.start()
    with path.open("rb") as handle:
        result = registry.parse_file(handle, ParseContext(), reopen=lambda: path.open("rb"))
    peak = tracemalloc.get_traced_memory()[1]
print(result.status, peak / size)
"""
