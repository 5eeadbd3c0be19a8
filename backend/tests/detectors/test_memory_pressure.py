"""memory_pressure: low available memory, swapping, major faults; ruled out with numbers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.net_incident import assert_well_formed
from tests.detectors.runtime_incident import (
    T0,
    Capture,
    corpus_incident,
    fixture_incident,
    incident,
)

ID = "memory_pressure"


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, registry.CHECKLISTS[ID].rule.thresholds)
    return finding


def linux(
    free: list[float],
    *,
    total: float = 16_000,
    cached: float = 0.0,
    swap_free: list[float] | None = None,
    pswpin: list[float] | None = None,
    pswpout: list[float] | None = None,
    majfault: list[float] | None = None,
    step_s: float = 1.0,
    host: str = "app-1",
) -> Capture:
    """nmon MEM + VM series as the nmon parser emits them (VM counts per interval)."""
    n = len(free)
    capture = Capture("nmon", host)
    capture.series("mem.total_mb", [total] * n, step_s=step_s, unit="MB")
    capture.series("mem.free_mb", free, step_s=step_s, unit="MB")
    capture.series("mem.cached_mb", [cached] * n, step_s=step_s, unit="MB")
    capture.series("mem.buffers_mb", [0.0] * n, step_s=step_s, unit="MB")
    capture.series("mem.swap_total_mb", [2048.0] * n, step_s=step_s, unit="MB")
    capture.series("mem.swap_free_mb", swap_free or [2048.0] * n, step_s=step_s, unit="MB")
    capture.series("nmon.VM.pswpin", pswpin or [0.0] * n, step_s=step_s)
    capture.series("nmon.VM.pswpout", pswpout or [0.0] * n, step_s=step_s)
    capture.series("nmon.VM.pgmajfault", majfault or [0.0] * n, step_s=step_s)
    return capture


def test_ruled_out_on_the_real_capture_names_the_numbers() -> None:
    finding = check(fixture_incident("nmon/linux-debian12-nmon16n-stress-60x1s.nmon"))
    assert finding.verdict == "ruled_out"
    assert "available memory never below 23,305 MB (97 % of 24,106 MB)" in finding.summary
    assert (
        "swap-in peak 0 pages/s" in finding.summary
        and "major faults per second at peak: 27." in finding.summary
    )
    assert any(e.summary == "no swap configured" for e in finding.evidence)


def test_confirmed_by_sustained_swap_in() -> None:
    # 1 s capture, 400 pages swapped in per second for 15 s.
    pswpin = [0.0] * 5 + [400.0] * 15 + [0.0] * 5
    finding = check(incident(linux([300.0] * 25, pswpin=pswpin)))
    assert finding.verdict == "confirmed"
    assert "swap-in peaked at 400 pages/s, >= 100/s for 15.0 s in a row" in finding.summary
    lead = next(e for e in finding.evidence if e.series == "nmon.VM.pswpin")
    # Each rate is counted over the second before its stamp (T0+5 s .. T0+19 s): the run
    # began at T0+4 s and ended at the last stamp, T0+19 s.
    assert lead.from_ms == T0 + 4_000 and lead.to_ms == T0 + 19_000


def test_vm_counts_per_interval_become_rates() -> None:
    # nmon -s 5: 400 pages per 5 s interval = 80 pages/s, below 100/s.
    pswpin = [400.0] * 6
    finding = check(incident(linux([8000.0] * 6, pswpin=pswpin, step_s=5)))
    assert finding.verdict == "ruled_out"
    assert "swap-in peak 80 pages/s" in finding.summary


def test_confirmed_by_low_memory_while_swapping_out() -> None:
    free = [700.0] * 12  # 700 of 16000 MB = 4.4 %
    swap_free = [2048.0 - 20 * i for i in range(12)]  # 220 MB pushed out
    finding = check(incident(linux(free, swap_free=swap_free, pswpout=[300.0] * 12)))
    assert finding.verdict == "confirmed"
    assert "available memory <= 5.0 % for 12.0 s" in finding.summary
    assert "swap use grew by 220 MB" in finding.summary


def test_likely_on_low_memory_alone() -> None:
    finding = check(incident(linux([1200.0] * 10, cached=200.0)))
    assert finding.verdict == "likely"
    assert "lowest available memory 1,400 MB, 8.8 % of 16,000 MB" in finding.summary


def test_boundary_low_available() -> None:
    # Exactly 5 % for exactly 10 s with swap-out: confirmed; 5.1 %: only likely.
    at_limit = linux([800.0] * 10, pswpout=[150.0] * 10)
    above = linux([816.0] * 10, pswpout=[150.0] * 10)
    assert registry.judge(ID, incident(at_limit)).verdict == "confirmed"
    assert registry.judge(ID, incident(above)).verdict == "likely"


def test_page_cache_counts_as_available() -> None:
    finding = check(incident(linux([200.0] * 10, cached=9000.0)))
    assert finding.verdict == "ruled_out"


def test_real_aix_paging_space_storm() -> None:
    finding = check(
        corpus_incident("nmon/aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon")
    )
    assert finding.verdict == "confirmed"
    assert "swap-in" in finding.summary and "swap use grew by 6,608 MB" in finding.summary


def test_aix_low_free_with_file_cache_is_not_pressure() -> None:
    finding = check(corpus_incident("nmon/aix71-tl03-power7-topas-nmon-300s-nmon2influxdb.nmon"))
    assert finding.verdict == "ruled_out"
    assert "71 % of 43,008 MB" in finding.summary


def test_insufficient_without_memory_samples() -> None:
    finding = check(incident(Capture("nmon").series("cpu.user_pct", [3])))
    assert finding.verdict == "insufficient_data"
    assert any("nmon -f" in m.command for m in finding.missing)


mb = st.floats(min_value=-1, max_value=1e5, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(mb, max_size=20), st.lists(mb, max_size=20), st.lists(st.integers(0, 2), max_size=20)
)
def test_never_raises(free, paging, times) -> None:  # type: ignore[no-untyped-def]
    capture = Capture("nmon", None)
    for i, value in enumerate(free):
        at = T0 + (times[i] if i < len(times) else i) * 1000
        capture.points.add("mem.free_mb", {}, "MB", at, value)
        capture.points.add("mem.total_mb", {}, "MB", at, value * 2 - 1)
        capture.points.add("mem.cached_mb", {}, "MB", at, value / 3)
        capture.points.add("mem.swap_free_mb", {}, "MB", at, value)
        capture.points.add("mem.swap_total_mb", {}, "MB", at, 0.0)
    for i, value in enumerate(paging):
        capture.points.add("nmon.VM.pswpin", {}, "", T0 + i * 1000, value)
        capture.points.add("nmon.PAGE.pgsout", {}, "", T0, value)
    finding = registry.judge(ID, incident(capture))
    assert finding.verdict in {"confirmed", "likely", "ruled_out", "insufficient_data"}


def test_major_faults_without_swap_confirm() -> None:
    """The lab's memory_pressure: a cgroup too small for its working set, no swap on the host,
    host-wide memory plentiful; every read of the mapped file is a major fault."""
    faults = [5.0] * 3 + [6000.0] * 20 + [5.0] * 3
    capture = linux([20_000.0] * 26, total=24_000, majfault=faults)
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    assert "major faults peaked at 6000/s, >= 100/s for 20.0 s in a row" in finding.summary
    # a healthy contrast: the same host with the file cached after one cold pass of 3 s
    cold = [5.0] * 3 + [6000.0] * 3 + [5.0] * 20
    contrast = check(incident(linux([20_000.0] * 26, total=24_000, majfault=cold)))
    assert contrast.verdict == "ruled_out"
    burst = [5.0] * 3 + [6000.0] * 6 + [5.0] * 17
    assert check(incident(linux([20_000.0] * 26, total=24_000, majfault=burst))).verdict == "likely"
    quiet = check(incident(linux([20_000.0] * 26, total=24_000, majfault=[20.0] * 26)))
    assert quiet.verdict == "ruled_out"


def test_a_recorder_without_major_faults_says_so_plainly() -> None:
    """AIX nmon has no major-fault counter: the ruled-out summary said 'peak n/a/s'; now it
    states what was measured and leaves the unmeasured faults out."""
    finding = check(corpus_incident("nmon/aix712-topas-nmon-1s-top-nfs-omp-nmonrrd.nmon"))
    assert finding.verdict == "ruled_out"
    assert "n/a" not in finding.summary and "n/a" not in finding.explanation
    assert "major faults" not in finding.summary and "swap-in peak" in finding.summary
    assert finding.summary.endswith(" MB.")


def swap_only(
    swap_free: list[float],
    *,
    swap_total: float = 2048.0,
    pswpin: list[float] | None = None,
    pswpout: list[float] | None = None,
    step_s: float = 1.0,
) -> Capture:
    """An nmon recording with swap figures (and maybe swap rates) but no free / available
    memory: no MEM free or cache columns, no AIX MEMNEW."""
    n = len(swap_free)
    capture = Capture("nmon", "app-1")
    capture.series("mem.swap_total_mb", [swap_total] * n, step_s=step_s, unit="MB")
    capture.series("mem.swap_free_mb", swap_free, step_s=step_s, unit="MB")
    if pswpin is not None:
        capture.series("nmon.VM.pswpin", pswpin, step_s=step_s)
    if pswpout is not None:
        capture.series("nmon.VM.pswpout", pswpout, step_s=step_s)
    return capture


def test_swap_figures_alone_do_not_rule_memory_pressure_out() -> None:
    """Swap use that did not grow says nothing of free memory: a host can run out of it and
    evict its page cache without touching swap. Without free / available memory figures the
    finding is insufficient_data and says what was measured, not ruled_out."""
    for n, swap_total in ((5, 2048.0), (60, 8192.0), (300, 512.0)):
        finding = check(incident(swap_only([swap_total] * n, swap_total=swap_total)))
        assert finding.verdict == "insufficient_data", (n, finding.summary)
        assert "available" in finding.summary and "swap use +0 MB" in finding.summary
        assert any("nmon -f" in m.command for m in finding.missing)
    # swap rates measured and idle: still no free-memory side
    idle = swap_only([2048.0] * 20, pswpin=[0.0] * 20, pswpout=[0.0] * 20)
    finding = check(incident(idle))
    assert finding.verdict == "insufficient_data"
    assert "swap-in peak 0 pages/s" in finding.summary
    # healthy contrast: the same swap figures beside free memory are ruled out, with numbers
    healthy = linux([9000.0] * 20, total=16_000)
    assert check(incident(healthy)).verdict == "ruled_out"


def test_swapping_without_free_memory_figures_still_counts() -> None:
    """Swap activity is the pressure itself: it makes the finding without the MEM figures."""
    pswpin = [0.0] * 3 + [400.0] * 15 + [0.0] * 2
    confirmed = check(incident(swap_only([2048.0] * 20, pswpin=pswpin)))
    assert confirmed.verdict == "confirmed"
    assert "swap-in peaked at 400 pages/s" in confirmed.summary
    pswpout = [0.0] * 3 + [300.0] * 6 + [0.0] * 11
    likely = check(incident(swap_only([2048.0] * 20, pswpout=pswpout)))
    assert likely.verdict == "likely"
    # swap use growing by 600 MB: pushed out during the capture
    growing = check(incident(swap_only([2048.0 - 40.0 * i for i in range(16)])))
    assert growing.verdict == "likely" and "swap use grew by 600 MB" in growing.summary
    # a short swap-in burst is below every threshold: nothing to rule out with
    burst = [0.0] * 3 + [400.0] * 2 + [0.0] * 15
    assert check(incident(swap_only([2048.0] * 20, pswpin=burst))).verdict == "insufficient_data"


def test_free_memory_without_the_file_cache_does_not_rule_out_either() -> None:
    """An AIX topas_nmon file with MEM (real free 10-22 %, paging space) but no MEMNEW file
    cache: AIX keeps free memory low by design, its file cache is the reserve, so available
    memory is unknown; paging space grew 41 MB (below 100 MB). It was ruled out on the
    paging space alone."""
    from tests.detectors.runtime_incident import fixture_incident

    finding = check(fixture_incident("nmon/aix-topas-nmon-zzzz-without-date-handwritten.nmon"))
    assert finding.verdict == "insufficient_data"
    assert finding.summary.startswith("No available memory on aixdb2")
    assert "swap use +41 MB of 8,192 MB" in finding.summary


def test_a_percentage_is_of_the_total_at_that_time_when_memory_is_added() -> None:
    """Memory added to a running LPAR (DLPAR) raises the total midway: the lowest available
    memory is a share of the total then, not of the later one (a corpus audit: 3.2 % of
    43,008 MB read as '1,540 MB, 3.2 % of 48,128 MB')."""
    for n, low_at in ((10, 2), (40, 30)):
        capture = Capture("nmon", "lpar-1")
        total = [43008.0 if i < n // 2 else 48128.0 for i in range(n)]
        free_pct = [20.0] * n
        free_pct[low_at] = 1.0
        capture.series("mem.total_mb", total, step_s=300, unit="MB")
        capture.series("nmon.MEMNEW.free_pct", free_pct, step_s=300, unit="percent")
        capture.series("nmon.MEMNEW.fscache_pct", [2.2] * n, step_s=300, unit="percent")
        finding = check(incident(capture))
        then = total[low_at]
        assert f"3.2 % of {then:,.0f} MB" in finding.summary, finding.summary
        assert f"{then * 0.032:,.0f} MB, 3.2 %" in finding.summary
        # Linux MEM sums: the total at the low point too.
        linux_capture = linux([8000.0] * 3 + [100.0] + [8000.0] * 3, total=16_000)
        assert "of 16,000 MB" in check(incident(linux_capture)).summary


def test_remedies_follow_the_hosts_operating_system() -> None:
    # The same paging storm on a Linux host and on an AIX host (topas_nmon's AAA,AIX line,
    # kept as the fact nmon.os): sysctl and /proc for one, vmo and svmon for the other.
    storm = [0.0] * 5 + [400.0] * 15 + [0.0] * 5
    on_linux = check(incident(linux([300.0] * 25, pswpin=storm).fact("nmon.os", "Linux 5.14")))
    on_aix = check(incident(linux([300.0] * 25, pswpin=storm).fact("nmon.os", "AIX 7.2.5.0")))
    unknown = check(incident(linux([300.0] * 25, pswpin=storm)))
    assert on_linux.verdict == on_aix.verdict == unknown.verdict == "confirmed"
    for linux_finding in (on_linux, unknown):
        text = " ".join(linux_finding.remedies)
        assert "vm.swappiness" in text and "ps aux --sort=-rss" in text and "vmo" not in text
    text = " ".join(on_aix.remedies)
    assert "vmo -p -o lru_file_repage=0" in text and "svmon -P" in text
    assert "swappiness" not in text and "sysctl" not in text and "--sort" not in text
    # Another host's AIX says nothing of this one.
    mixed = check(
        incident(
            linux([300.0] * 25, pswpin=storm),
            Capture("nmon", "db-aix").fact("nmon.os", "AIX 7.2.5.0"),
        )
    )
    assert "vm.swappiness" in " ".join(mixed.remedies)


def test_real_aix_capture_gets_aix_remedies() -> None:
    finding = check(
        corpus_incident("nmon/aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon")
    )
    text = " ".join(finding.remedies)
    assert "vmo" in text and "svmon" in text and "sysctl" not in text


def test_a_coarse_capture_places_the_paging_run_in_the_intervals_it_counted() -> None:
    """topas_nmon stamps each 20-minute figure at the interval's end (corpus sampleC: run
    started 00:00:06, T0001 at 00:20:22): a run of paging ends at its last stamp, not one
    interval past the end of the capture."""
    pswpin = [0.0, 0.0, 600_000.0, 600_000.0, 600_000.0, 0.0]  # pages per 1200 s interval
    finding = check(incident(linux([300.0] * 6, pswpin=pswpin, step_s=1200.0)))
    lead = next(e for e in finding.evidence if e.series == "nmon.VM.pswpin")
    assert lead.to_ms == T0 + 4 * 1_200_000  # the last paging stamp
    assert lead.from_ms == T0 + 1 * 1_200_000  # one interval before the first one
