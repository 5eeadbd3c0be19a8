"""The shared counter emitter: numpy rates equal base.counter_rates point for point."""

from __future__ import annotations

from array import array

from hypothesis import given
from hypothesis import strategies as st

from rootline.parsers.base import ParseResult, counter_rates
from rootline.parsers.snmp_counters import CounterColumns, emit_absolute, vectorised_counter_rates

points = st.lists(
    st.tuples(st.integers(0, 10**13), st.integers(0, 2**53).map(float)), min_size=0, max_size=40
)


@given(points)
def test_vectorised_rates_equal_counter_rates(pairs: list[tuple[int, float]]) -> None:
    times = array("q", (t for t, _ in pairs))
    values = array("d", (v for _, v in pairs))
    assert vectorised_counter_rates(times, values) == counter_rates(times, values)


def test_single_snapshot_gives_facts_and_totals_and_gauges_stay_values() -> None:
    counters = CounterColumns()
    counters.start_snapshot(1000)
    counters.add("TcpActiveOpens", 1000, 12.0)
    counters.add("TcpCurrEstab", 1000, 3.0)
    result = ParseResult(kind="x")
    emit_absolute(result, counters)
    assert [(f.key, f.value, f.time_ms) for f in result.facts] == [
        ("netstat.TcpActiveOpens", "12", 1000)
    ]
    assert sorted((s.name, s.unit) for s in result.series) == [
        ("netstat.TcpActiveOpens.total", "count"),
        ("netstat.TcpCurrEstab", "connections"),
    ]


def test_out_of_order_snapshots_are_sorted_before_rates() -> None:
    counters = CounterColumns()
    for t, v in ((3000, 30.0), (1000, 10.0), (2000, 20.0)):
        counters.start_snapshot(t)
        counters.add("TcpInSegs", t, v)
    result = ParseResult(kind="x")
    emit_absolute(result, counters)
    rates = next(s for s in result.series if s.name == "netstat.TcpInSegs")
    assert list(rates.times_ms) == [2000, 3000] and list(rates.values) == [10.0, 10.0]
