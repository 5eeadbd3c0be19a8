"""The loop every big-file generator shares: a header once, then copies until the size is reached."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def write_repeated(
    path: Path, target_bytes: int, render: Callable[[int], str], *, header: str = ""
) -> None:
    """Write ``header``, then ``render(0)``, ``render(1)`` ... until ``path`` holds ``target_bytes``.

    Each copy must carry its own advanced timestamps, so ``render`` gets the copy's number.
    """
    with path.open("w", encoding="utf-8") as out:
        written = out.write(header)
        copy = 0
        while written < target_bytes:
            written += out.write(render(copy))
            copy += 1
