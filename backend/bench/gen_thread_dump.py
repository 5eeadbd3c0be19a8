"""Big thread-dump file for benchmarks: the three captured jstack dumps repeated, a minute later each time."""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

from bench.repeat import FIXTURES, write_repeated

FIXTURE = FIXTURES / "thread_dump" / "pool-saturation-jdk17-jstack-3-dumps.txt"
STAMP_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})", re.MULTILINE)


def generate(path: Path, target_bytes: int) -> None:
    text = FIXTURE.read_text()

    def copy(number: int) -> str:
        shift = dt.timedelta(minutes=number)
        return STAMP_RE.sub(
            lambda m: (dt.datetime.fromisoformat(m[1]) + shift).isoformat(sep=m[1][10]), text
        )

    write_repeated(path, target_bytes, copy)


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
