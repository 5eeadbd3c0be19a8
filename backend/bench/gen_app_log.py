"""Big application log for benchmarks: the rejections capture repeated, one hour later each time.

Real app logs are mostly noise; the capture is almost all rejections, so this is the slow case.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

from bench.repeat import FIXTURES, write_repeated

FIXTURE = FIXTURES / "app_log" / "pool-saturation-jdk17-rejections.log"
STAMP_RE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})", re.MULTILINE)


def generate(path: Path, target_bytes: int) -> None:
    text = FIXTURE.read_text()

    def copy(number: int) -> str:
        shift = dt.timedelta(hours=number)
        return STAMP_RE.sub(
            lambda m: (dt.datetime.fromisoformat(m[1]) + shift).strftime("%Y-%m-%d %H:%M:%S"), text
        )

    write_repeated(path, target_bytes, copy)


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
