"""Big GC logs for the parse benchmark, built from real captures with advancing clocks.

- :func:`generate_unified`: our Java 17 G1 capture (``-Xlog:gc*`` with
  ``time,uptime,level,tags``) from ``tests/fixtures/gc_unified``, repeated.
- :func:`generate_legacy_g1`: the JDK 8 G1 ``PrintGCDetails`` + datestamps + ``PrintGCID``
  corpus file, read at run time from the public corpus (never copied), repeated.

Each copy moves every datestamp and uptime forward by the span of the template (plus one
second), so the result reads as one long run. Usage::

    python bench/gen_gc.py unified /tmp/gc-unified.log 200
    python bench/gen_gc.py legacy /tmp/gc-legacy.log 200
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

from bench.repeat import write_repeated

BACKEND = Path(__file__).resolve().parents[1]
UNIFIED_TEMPLATE = BACKEND / "tests" / "fixtures" / "gc_unified" / "g1-time-uptime-level-tags.log"
CORPUS = BACKEND.parent.parent / "shared" / "corpus" / "gc"
LEGACY_TEMPLATE = CORPUS / "jdk8-g1-printgcid-datestamps-openjdk8u342-gcviewer.txt"

DATESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}"
UNIFIED_STAMPS = re.compile(r"\[(" + DATESTAMP + r")\]\[(\d+\.\d+)s\]")
LEGACY_STAMPS = re.compile(r"(" + DATESTAMP + r"): (\d+\.\d+): ")
GC_ID = re.compile(r"(GC\(|#)(\d+)(\)|: )")


def _repeat(
    template: str, stamps: re.Pattern[str], unified: bool, path: Path, target: int, header: str = ""
) -> None:
    pieces = stamps.split(template)  # text, datestamp, uptime, text, datestamp, uptime, ...
    texts = pieces[0::3]
    walls = [dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f%z") for s in pieces[1::3]]
    uptimes = [float(u) for u in pieces[2::3]]
    span_s = (max(uptimes) - min(uptimes)) + 1.0 if uptimes else 1.0
    ids = [int(m.group(2)) for m in GC_ID.finditer(template)]
    id_step = (max(ids) + 1) if ids else 0

    def copy(number: int) -> str:
        shift = dt.timedelta(seconds=span_s * number)
        parts = [texts[0]]
        for i, (wall, uptime) in enumerate(zip(walls, uptimes, strict=True)):
            moved = (wall + shift).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + (wall.strftime("%z"))
            up = f"{uptime + span_s * number:.3f}"
            parts.append(f"[{moved}][{up}s]" if unified else f"{moved}: {up}: ")
            parts.append(texts[i + 1])
        block = "".join(parts)
        if not id_step:
            return block
        offset = id_step * number
        return GC_ID.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + offset}{m.group(3)}", block)

    write_repeated(path, target, copy, header=header)


def generate_unified(path: Path, target_bytes: int) -> None:
    """A unified (JDK 17 G1, ``gc*``) log of about ``target_bytes``."""
    _repeat(UNIFIED_TEMPLATE.read_text(), UNIFIED_STAMPS, True, path, target_bytes)


def generate_legacy_g1(path: Path, target_bytes: int) -> None:
    """A JDK 8 G1 ``PrintGCDetails`` log of about ``target_bytes`` (header kept once)."""
    text = LEGACY_TEMPLATE.read_text()
    body_start = text.index("\n", text.index("CommandLine flags:")) + 1
    _repeat(text[body_start:], LEGACY_STAMPS, False, path, target_bytes, header=text[:body_start])


def generate(path: Path, target_bytes: int) -> None:
    """The default big GC file for ``make bench``: the unified log."""
    generate_unified(path, target_bytes)


if __name__ == "__main__":
    flavour, out_path, megabytes = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    maker = generate_unified if flavour == "unified" else generate_legacy_g1
    maker(out_path, int(megabytes * 1024 * 1024))
