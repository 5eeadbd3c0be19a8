"""Big Prometheus exposition file for benchmarks: the Micrometer capture repeated, sample timestamps advanced."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.repeat import FIXTURES, write_repeated

FIXTURE = FIXTURES / "prometheus" / "pool-saturation-jdk17-micrometer.prom"


def generate(path: Path, target_bytes: int) -> None:
    lines = FIXTURE.read_text().splitlines()
    samples = [line.rsplit(" ", 1) if not line.startswith("#") else [line, ""] for line in lines]
    stamps = [int(t) for _, t in samples if t]
    span_ms = max(stamps) - min(stamps) + 1000

    def copy(number: int) -> str:
        shift = number * span_ms
        return "".join(f"{body} {int(t) + shift}\n" if t else f"{body}\n" for body, t in samples)

    write_repeated(path, target_bytes, copy)


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(float(sys.argv[2]) * 1_000_000))
