"""A big nmon capture for parser benchmarks, built from real captures.

The snapshots of a real capture (by default our own ``tests/fixtures/nmon`` Linux capture,
60 snapshots under load with TOP lines) are repeated after its one header block, each
repetition renumbered (``T0061``, ``T0062`` ... past ``T9999`` as nmon itself does) and
stamped one interval after the previous snapshot, so the result reads as one long run.
:func:`generate_aix` does the same from the AIX corpus sample (``topas_nmon`` with 24 CPUs,
VG/DISK*/TOP sections), read from ``../shared/corpus`` at run time and never copied.

    python bench/gen_nmon.py /tmp/nmon-100mb.nmon 100 [aix]
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

from bench.repeat import write_repeated

BACKEND = Path(__file__).resolve().parents[1]
FIXTURE = BACKEND / "tests" / "fixtures" / "nmon" / "linux-debian12-nmon16n-stress-60x1s.nmon"
CORPUS = Path(os.environ.get("ROOTLINE_CORPUS_DIR", BACKEND.parents[1] / "shared" / "corpus"))
AIX_SAMPLE = CORPUS / "nmon" / "aix61-tl09-power7-topas-nmon-vg-diskserv-top-nmonchart-sampleD.nmon"
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def _header_and_snapshots(text: str) -> tuple[list[str], list[list[str]], int, dt.datetime]:
    """Lines before the first ZZZZ, each snapshot's lines (ZZZZ first), interval s, first time."""
    header: list[str] = []
    snapshots: list[list[str]] = []
    interval = 1
    for line in text.splitlines():
        if line.startswith("ZZZZ,"):
            snapshots.append([line])
        elif line.startswith("BBB") and snapshots:
            continue  # AIX appends "ending" config dumps after the last snapshot
        elif snapshots:
            snapshots[-1].append(line)
        else:
            header.append(line)
            if line.startswith("AAA,interval,"):
                interval = int(line.split(",")[2])
    _, _, clock, date = snapshots[0][0].split(",")[:4]
    day, month, year = date.split("-")
    hour, minute, second = map(int, clock.split(":"))
    first = dt.datetime(
        int(year), _MONTHS.index(month) + 1, int(day), hour, minute, second, tzinfo=dt.UTC
    )
    return header, snapshots, interval, first


def _renumbered(snapshot: list[str], number: int, moment: dt.datetime) -> str:
    old_tag = snapshot[0].split(",")[1]
    tag = f"T{number:04d}"
    stamp = f"{moment:%H:%M:%S},{moment.day:02d}-{_MONTHS[moment.month - 1]}-{moment.year}"
    lines = [f"ZZZZ,{tag},{stamp}"]
    old, new = f",{old_tag},", f",{tag},"
    lines.extend(line.replace(old, new, 1) for line in snapshot[1:])
    return "\n".join(lines) + "\n"


def generate(path: Path, target_bytes: int, source: Path = FIXTURE) -> None:
    """Write at least ``target_bytes`` of one long nmon run, repeating ``source``'s snapshots."""
    header, snapshots, interval, first = _header_and_snapshots(source.read_text(errors="replace"))
    step = dt.timedelta(seconds=interval)

    def snapshot(number: int) -> str:
        return _renumbered(snapshots[number % len(snapshots)], number + 1, first + number * step)

    write_repeated(path, target_bytes, snapshot, header="\n".join(header) + "\n")


def generate_aix(path: Path, target_bytes: int) -> None:
    """As :func:`generate`, from the AIX topas_nmon corpus sample (the fixture when absent)."""
    generate(path, target_bytes, AIX_SAMPLE if AIX_SAMPLE.exists() else FIXTURE)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("nmon-big.nmon")
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 100.0
    make = generate_aix if sys.argv[3:4] == ["aix"] else generate
    make(target, int(megabytes * 1024 * 1024))
