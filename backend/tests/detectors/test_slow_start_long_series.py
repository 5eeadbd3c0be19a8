"""slow_start_after_idle on long per-connection series: numpy picks the snapshots the loop
reads (``_idle_candidates``); the episodes found must be the ones the plain loop finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors import registry
from rootline.detectors import slow_start_after_idle as detector
from rootline.detectors.base import SeriesView

RULE = registry.CHECKLISTS["slow_start_after_idle"].rule
PARAMS = {name: t.value for name, t in RULE.thresholds.items()}
MB = 1024 * 1024.0


def _view(name: str, times: np.ndarray, values: np.ndarray) -> SeriesView:
    keep = ~np.isnan(values)  # ss leaves a field out: no point at that snapshot
    return SeriesView(
        f"tcp.conn.{name}", {}, "", "server", "ss.txt", times[keep], values[keep].astype(float)
    )


def _row(seed: int, n: int) -> dict[str, SeriesView]:
    """A long connection with random idles, bursts, queued data, losses and missing fields."""
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.integers(500, 1500, n)).astype(np.int64)
    bursts = rng.random(n) < 0.2
    acked = np.cumsum(np.where(bursts, rng.integers(1, 400, n) * 1448.0, 0.0))
    lastsnd = np.where(rng.random(n) < 0.5, rng.integers(0, 3000, n), np.nan)
    rto = np.where(rng.random(n) < 0.9, rng.choice([204.0, 220.0, 1000.0], n), np.nan)
    mss = np.where(rng.random(n) < 0.95, 1448.0, np.nan)
    sendq = np.where(rng.random(n) < 0.2, rng.integers(1, 5000, n), np.nan)
    retrans = np.cumsum(rng.random(n) < 0.05).astype(float)
    cwnd = np.where(rng.random(n) < 0.3, rng.integers(4, 12, n), rng.integers(10, 400, n))
    if seed % 3 == 0:  # bytes_acked not printed until something was acked
        acked[: n // 4] = np.nan
    return {
        "cwnd": _view("cwnd", times, cwnd.astype(float)),
        "bytes_acked": _view("bytes_acked", times, acked),
        "lastsnd_ms": _view("lastsnd_ms", times, lastsnd.astype(float)),
        "rto_ms": _view("rto_ms", times, rto),
        "mss": _view("mss", times, mss),
        "sendq.bytes": _view("sendq.bytes", times, sendq.astype(float)),
        "retrans": _view("retrans", times, retrans),
    }


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(1, 400))
def test_long_series_find_the_episodes_the_loop_finds(seed: int, extra: int) -> None:
    row = _row(seed, detector._VECTOR_FROM + extra)
    found = detector._episodes(row, PARAMS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(detector, "_VECTOR_FROM", 10**9)  # every snapshot through the loop
        assert detector._episodes(row, PARAMS) == found


def test_the_long_series_exercise_episodes_and_restarts() -> None:
    """The generator above makes episodes and restarts, so the comparison compares them."""
    episodes = [detector._episodes(_row(seed, 600), PARAMS)[0] for seed in range(20)]
    assert sum(len(e) for e in episodes) > 20
    assert any(ep.restart for e in episodes for ep in e)


def test_a_long_series_reads_only_the_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``_VECTOR_FROM`` snapshots the loop sees the few candidates, not every one."""
    row = _row(7, 2000)
    seen: list[int] = []
    original = detector._idle_candidates

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = list(original(*args, **kwargs))
        seen.extend(found)
        return found

    monkeypatch.setattr(detector, "_idle_candidates", spy)
    detector._episodes(row, PARAMS)
    assert 0 < len(seen) < 2000 // 4
