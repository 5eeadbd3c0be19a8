"""A big multi-snapshot ``ss -tinm`` capture for parser benchmarks.

Built from the real capture ``tests/fixtures/ss/ss-tinm-loop.txt`` (10 snapshots of the
loopback load described in that folder's README): its snapshot bodies are repeated in turn,
each under a timestamp line 5 s after the previous one, rotating the three decorations a
capture loop writes (``=== <date -Is> ===``, ``date +%s.%N``, ``date``).

Usage: ``python bench/gen_ss.py OUT [MEGABYTES]`` (default 200).
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from bench.repeat import FIXTURES, write_repeated
from rootline.parsers.timestamps import iter_snapshots

FIXTURE = FIXTURES / "ss" / "ss-tinm-loop.txt"
START = dt.datetime(2026, 11, 21, 0, 0, 0, tzinfo=dt.UTC)
INTERVAL = dt.timedelta(seconds=5)


def snapshot_bodies(text: str) -> list[str]:
    """The fixture's snapshots without their timestamp lines (each starts with the header)."""
    lines = text.splitlines(keepends=True)
    return ["".join(lines[s.start : s.stop]) for s in iter_snapshots(lines, dt.UTC, 0)]


def timestamp_line(moment: dt.datetime, index: int) -> str:
    form = index % 3
    if form == 0:
        return f"=== {moment.isoformat(timespec='seconds')} ===\n"
    if form == 1:
        return f"{moment.timestamp():.9f}\n"
    return moment.strftime("%a %b %d %H:%M:%S UTC %Y\n")


def generate(path: Path, target_bytes: int) -> None:
    """Write at least ``target_bytes`` of snapshots to ``path``."""
    bodies = snapshot_bodies(FIXTURE.read_text())

    def snapshot(index: int) -> str:
        return timestamp_line(START + index * INTERVAL, index) + bodies[index % len(bodies)]

    write_repeated(path, target_bytes, snapshot)


if __name__ == "__main__":
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    generate(Path(sys.argv[1]), megabytes * 1024 * 1024)
