"""Big application log for benchmarks: the rejections capture repeated, one hour later each time.

Real app logs are mostly noise; the capture is almost all rejections, so this is the slow case.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "app_log"
    / "pool-saturation-jdk17-rejections.log"
)
STAMP_RE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})", re.MULTILINE)


def generate(path: Path, target_bytes: int) -> None:
    text = FIXTURE.read_text()
    written = 0
    with path.open("w") as out:
        repeat = 0
        while written < target_bytes:
            shift = dt.timedelta(hours=repeat)

            def advance(match: re.Match[str], shift: dt.timedelta = shift) -> str:
                return (dt.datetime.fromisoformat(match[1]) + shift).strftime("%Y-%m-%d %H:%M:%S")

            chunk = STAMP_RE.sub(advance, text)
            out.write(chunk)
            written += len(chunk)
            repeat += 1


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
