"""The machine's own speed, measured beside every benchmark: this machine is shared, and its
CPU time per unit of work drifts by a third between hours (a neighbour on the other
hyperthread, a throttled host). A throughput is comparable with another session's only in
proportion to these two numbers, taken in the same run."""

from __future__ import annotations

import time

import numpy as np

LOOP = 5_000_000
SORTED = 4_000_000


def reference() -> tuple[float, float]:
    """CPU seconds of a fixed pure-Python loop and of a fixed numpy sort, least of three."""
    python_s, numpy_s = [], []
    values = np.random.default_rng(7).random(SORTED)
    for _ in range(3):
        started = time.process_time()
        total = 0
        for i in range(LOOP):
            total += i
        python_s.append(time.process_time() - started)
        started = time.process_time()
        np.sort(values, kind="quicksort")
        numpy_s.append(time.process_time() - started)
    return min(python_s), min(numpy_s)


def describe() -> str:
    python_s, numpy_s = reference()
    return (
        f"machine reference (least of 3; lower is faster): {LOOP:,}-step Python loop"
        f" {python_s:.3f} CPU s, numpy sort of {SORTED:,} floats {numpy_s:.3f} CPU s"
    )


if __name__ == "__main__":
    print(describe())
