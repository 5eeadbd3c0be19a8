"""Big thread-pool CSV for benchmarks: the captured fixture's rows repeated with advancing time."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.repeat import FIXTURES, write_repeated

FIXTURE = FIXTURES / "threadpool_metrics" / "pool-saturation-jdk17.csv"


def generate(path: Path, target_bytes: int) -> None:
    header, *rows = FIXTURE.read_text().splitlines()
    parsed = [row.split(",", 1) for row in rows]
    span_ms = int(parsed[-1][0]) - int(parsed[0][0]) + 200

    def copy(number: int) -> str:
        return "".join(f"{int(t) + number * span_ms},{rest}\n" for t, rest in parsed)

    write_repeated(path, target_bytes, copy, header=header + "\n")


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
