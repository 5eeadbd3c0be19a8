"""A big multi-snapshot ``nstat -az`` capture for parser benchmarks.

Built from the real captures in ``tests/fixtures/nstat``: the counter names and starting
values of ``nstat-az.txt``, and per-second increments taken from ``nstat-az-series.txt``
(last minus first snapshot over the elapsed time). Each snapshot is one second after the
previous one, opened by a ``=== <ISO time> ===`` line as a capture loop writes it, with
every counter advanced by its increment (so rates stay constant and counters monotonic).

    python bench/gen_nstat.py /tmp/nstat-50mb.txt 50
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

from bench.repeat import FIXTURES as REPEAT_FIXTURES
from bench.repeat import write_repeated

NSTAT_FIXTURES = REPEAT_FIXTURES / "nstat"
_ROW = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)\s+(?P<value>\d+)\s+\S+\s*$", re.M)
_SEPARATOR = re.compile(r"^=== (?P<time>\S+) ===$", re.M)
START = dt.datetime(2026, 11, 21, 7, 0, 0, tzinfo=dt.UTC)


def _increments_per_s(series_text: str) -> dict[str, int]:
    """Counter name -> whole increment per second between the first and last snapshot."""
    stamps = [dt.datetime.fromisoformat(m["time"]) for m in _SEPARATOR.finditer(series_text)]
    blocks = _SEPARATOR.split(series_text)[2::2]  # text after each separator
    first = {m["name"]: int(m["value"]) for m in _ROW.finditer(blocks[0])}
    last = {m["name"]: int(m["value"]) for m in _ROW.finditer(blocks[-1])}
    seconds = max((stamps[-1] - stamps[0]).total_seconds(), 1.0)
    return {name: round((last[name] - first[name]) / seconds) for name in first if name in last}


def generate(path: Path, target_bytes: int) -> None:
    """Write at least ``target_bytes`` of ``nstat -az`` snapshots to ``path``."""
    base = [
        (m["name"], int(m["value"]))
        for m in _ROW.finditer((NSTAT_FIXTURES / "nstat-az.txt").read_text())
    ]
    increments = _increments_per_s((NSTAT_FIXTURES / "nstat-az-series.txt").read_text())
    step = [max(increments.get(name, 0), 0) for name, _value in base]

    def snapshot(second: int) -> str:
        stamp = (START + dt.timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")
        rows = "".join(
            f"{name:<32}{value + inc * second:<19}0.0\n"
            for (name, value), inc in zip(base, step, strict=True)
        )
        return f"=== {stamp} ===\n#kernel\n{rows}"

    write_repeated(path, target_bytes, snapshot)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("nstat-big.txt")
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
    generate(target, int(megabytes * 1024 * 1024))
