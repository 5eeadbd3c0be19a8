"""Line endings: a capture whose lines end in CR CR LF (a Windows capture written again in
text mode) reads as the same capture with LF endings, in every parser that numbers lines."""

from __future__ import annotations

import pytest

from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult
from tests.conftest import FIXTURES_DIR

CAPTURES = [
    ("proc_net", "proc-net-series.txt"),
    ("proc_net_dev", "proc-net-dev.txt"),
    ("netstat_s", "netstat-s-series.txt"),
    ("thread_dump", "pool-saturation-jdk17-jstack-3-dumps.txt"),
]


def _summary(result: ParseResult) -> object:
    return (
        result.kind,
        result.status,
        sorted(
            (s.name, sorted(s.labels.items()), list(s.times_ms), list(s.values))
            for s in result.series
        ),
        [(f.key, f.value, f.time_ms) for f in result.facts],
        len(result.events),
        [(d.line, d.message) for d in result.diagnostics],
    )


@pytest.mark.parametrize(("kind", "name"), CAPTURES)
def test_cr_cr_lf_reads_as_lf(kind: str, name: str) -> None:
    lf = (FIXTURES_DIR / kind / name).read_bytes().replace(b"\r\n", b"\n")
    context = ParseContext.for_zone(None)
    expected = registry.parse_decoded(registry.decode_bytes(lf), context, kind)
    assert expected.series or expected.facts
    crcrlf = lf.replace(b"\n", b"\r\r\n")
    doubled = registry.parse_decoded(registry.decode_bytes(crcrlf), context, kind)
    assert _summary(doubled) == _summary(expected)
