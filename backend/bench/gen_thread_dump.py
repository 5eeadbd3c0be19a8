"""Big thread-dump file for benchmarks: the three captured jstack dumps repeated, a minute later each time."""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "thread_dump"
    / "pool-saturation-jdk17-jstack-3-dumps.txt"
)
STAMP_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})", re.MULTILINE)


def generate(path: Path, target_bytes: int) -> None:
    text = FIXTURE.read_text()
    written = 0
    with path.open("w") as out:
        repeat = 0
        while written < target_bytes:
            shift = dt.timedelta(minutes=repeat)

            def advance(match: re.Match[str], shift: dt.timedelta = shift) -> str:
                moment = dt.datetime.fromisoformat(match[1]) + shift
                return moment.isoformat(sep=match[1][10])

            chunk = STAMP_RE.sub(advance, text)
            out.write(chunk)
            written += len(chunk)
            repeat += 1


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
