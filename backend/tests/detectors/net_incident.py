"""Builders of in-memory incidents for the network detectors' tests (TCP states, kernel
counters, listeners, CPU / packet series), from real fixtures or synthetic points."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rootline.detectors.base import Finding, IncidentData
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers.base import Fact, ParseContext, ParseResult, SeriesSet
from rootline.parsers.registry import parse_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
T0 = 1_795_000_000_000  # an arbitrary epoch-ms origin for synthetic captures
VERDICTS = {"confirmed", "likely", "ruled_out", "insufficient_data"}


def fixture_incident(*relative: str, host: str | None = None) -> MemoryIncidentData:
    """Parse fixture files (paths under tests/fixtures) with the real parsers."""
    artifacts = []
    for rel in relative:
        path = FIXTURES / rel
        result = parse_bytes(path.read_bytes(), ParseContext.for_zone("UTC", default_time_ms=T0))
        artifacts.append(ParsedArtifact(path.name, host, result))
    return MemoryIncidentData(artifacts)


def fixture_hosts(files: dict[str, Sequence[str]]) -> MemoryIncidentData:
    """Parse fixture files of several hosts (``{host: [paths under tests/fixtures]}``)."""
    artifacts = []
    for host, relative in files.items():
        for rel in relative:
            path = FIXTURES / rel
            context = ParseContext.for_zone("UTC", default_time_ms=T0)
            artifacts.append(
                ParsedArtifact(path.name, host, parse_bytes(path.read_bytes(), context))
            )
    return MemoryIncidentData(artifacts)


class Capture:
    """A synthetic artifact: points and facts added by name, one host."""

    def __init__(self, kind: str = "synthetic", host: str | None = "h1") -> None:
        self.kind = kind
        self.host = host
        self.points = SeriesSet()
        self.facts: list[Fact] = []

    def series(
        self,
        name: str,
        values: Iterable[float],
        *,
        step_s: float = 1.0,
        start_s: float = 0.0,
        unit: str = "",
        labels: dict[str, str] | None = None,
    ) -> Capture:
        for i, value in enumerate(values):
            self.points.add(
                name, labels or {}, unit, T0 + int((start_s + i * step_s) * 1000), float(value)
            )
        return self

    def counter(
        self, name: str, increments: Sequence[float], *, step_s: float = 1.0, start: float = 0.0
    ) -> Capture:
        """An absolute kernel counter ``netstat.<name>.total`` rising by ``increments``."""
        total = start
        values = [total]
        for inc in increments:
            total += inc
            values.append(total)
        return self.series(f"netstat.{name}.total", values, step_s=step_s, unit="count")

    def fact(self, key: str, value: str) -> Capture:
        self.facts.append(Fact(key, value))
        return self

    def artifact(self) -> ParsedArtifact:
        result = ParseResult(kind=self.kind, series=list(self.points), facts=list(self.facts))
        return ParsedArtifact(f"{self.kind}.txt", self.host, result)


def incident(*captures: Capture) -> MemoryIncidentData:
    return MemoryIncidentData([c.artifact() for c in captures])


def assert_well_formed(finding: Finding, detector_id: str, parameters: Iterable[str]) -> None:
    """The parts of a finding every verdict must carry."""
    assert finding.id == detector_id
    assert finding.verdict in VERDICTS
    assert finding.summary and not finding.summary[0].islower() and finding.summary.endswith(".")
    assert finding.remedies
    for name in parameters:
        assert name.lower() in finding.parameters
    if finding.verdict == "insufficient_data":
        assert finding.missing and all(m.command for m in finding.missing)
    else:
        assert finding.evidence


def run_quietly(detect: object, data: IncidentData) -> Finding:
    finding = detect(data)  # type: ignore[operator]
    assert isinstance(finding, Finding)
    return finding


# Names the network detectors read, for robustness tests over odd inputs.
NET_SERIES = (
    ("tcp.state.time-wait", "sockets"),
    ("tcp.state.estab", "sockets"),
    ("netstat.TcpCurrEstab", "connections"),
    ("netstat.TcpActiveOpens.total", "count"),
    ("netstat.TcpPassiveOpens", "per_s"),
    ("netstat.TcpRetransSegs.total", "count"),
    ("netstat.TcpOutSegs.total", "count"),
    ("netstat.TcpOutSegs", "per_s"),
    ("netstat.TcpInSegs.delta", "count"),
    ("netstat.TcpExtTCPSynRetrans.total", "count"),
    ("netstat.TcpExtListenOverflows.total", "count"),
    ("netstat.TcpExtListenDrops.delta", "count"),
    ("netstat.TcpExtTW", "per_s"),
    ("tcp.listen.recvq", "connections"),
    ("tcp.listen.backlog", "connections"),
    ("cpu.user_pct", "%"),
    ("cpu.sys_pct", "%"),
    ("net.packets_in", "/s"),
    ("tcp.connections.recvq.bytes", "bytes"),
    ("tcp.conn.cwnd", "segments"),
    ("tcp.conn.retrans", "segments"),
    ("tcp.conn.segs_out", "segments"),
    ("threadpool.completed_per_s", "per_s"),
)


def odd_incidents():  # type: ignore[no-untyped-def]
    """A hypothesis strategy of incidents with odd series: empty, one point, duplicate
    times, zeros, huge values, counters going down, several hosts."""
    from hypothesis import strategies as st

    point = st.tuples(
        st.integers(min_value=0, max_value=400),
        st.one_of(st.just(0.0), st.floats(min_value=0, max_value=1e12, allow_nan=False)),
    )
    one = st.tuples(
        st.sampled_from(NET_SERIES),
        st.sampled_from(["h1", "h2", None]),
        st.lists(point, max_size=40),
    )

    def build(items):  # type: ignore[no-untyped-def]
        captures: dict[str | None, Capture] = {}
        for (name, unit), host, points in items:
            capture = captures.setdefault(host, Capture(host=host))
            labels = {"local": "10.0.0.1:80", "peer": "10.0.0.2:5000", "port": "80"}
            for second, value in points:
                capture.points.add(name, labels, unit, T0 + second * 1000, value)
        for capture in captures.values():
            capture.fact("net.ipv4.ip_local_port_range", "32768 60999")
            capture.fact("net.core.somaxconn", "garbage")
        return incident(*captures.values())

    return st.lists(one, max_size=8).map(build)
