"""Big thread-pool CSV for benchmarks: the captured fixture's rows repeated with advancing time."""

from __future__ import annotations

import sys
from pathlib import Path

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "threadpool_metrics"
    / "pool-saturation-jdk17.csv"
)


def generate(path: Path, target_bytes: int) -> None:
    header, *rows = FIXTURE.read_text().splitlines()
    parsed = [row.split(",", 1) for row in rows]
    span_ms = int(parsed[-1][0]) - int(parsed[0][0]) + 200
    written = 0
    with path.open("w") as out:
        out.write(header + "\n")
        repeat = 0
        while written < target_bytes:
            shift = repeat * span_ms
            chunk = "".join(f"{int(t) + shift},{rest}\n" for t, rest in parsed)
            out.write(chunk)
            written += len(chunk)
            repeat += 1


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
