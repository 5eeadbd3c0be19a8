"""nmon: numbers recounted from the CSV with plain splits, Linux and AIX, broken files."""

from __future__ import annotations

import datetime as dt
import io
import random
import re
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import nmon, registry
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from rootline.parsers.registry import SNIFF_BYTES, detect_kind, sniff_scores
from tests.conftest import CORPUS_DIR, FIXTURES_DIR, corpus_files
from tests.parsers.reading import dump, parse_stored, parse_whole, peak_of_parse

FIXTURE = FIXTURES_DIR / "nmon" / "linux-debian12-nmon16n-stress-60x1s.nmon"
AIX_TOP_UARG = (
    CORPUS_DIR / "nmon" / "aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon"
)
AIX_JFS = CORPUS_DIR / "nmon" / "aix71-tl03-power7-topas-nmon-300s-nmon2influxdb.nmon"
FRAGMENT = (
    CORPUS_DIR / "nmon" / "linux-nmon-headerless-fragment-5-snapshots-grafana-influx-nmon.csv"
)
INCOMPLETE = (
    CORPUS_DIR / "nmon" / "linux-centos7-kvm-nmon16g-incomplete-run-nmon-analysis-tools.nmon"
)
NMON_FILES = [FIXTURE, *corpus_files("nmon")]
OTHER_FILES = [
    p
    for folder in [
        *(FIXTURES_DIR.iterdir()),
        *(CORPUS_DIR.iterdir() if CORPUS_DIR.is_dir() else []),
    ]
    if folder.is_dir() and folder.name != "nmon"
    for p in sorted(folder.rglob("*"))
    if p.is_file() and p.name != "README.md"
]
needs_corpus = pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason="corpus absent")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _parse(text: str, **context: object) -> ParseResult:
    return nmon.parse(text, ParseContext(**context))  # type: ignore[arg-type]


def _series(result: ParseResult, name: str, **labels: str) -> SeriesData:
    found = [s for s in result.series if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, [s.labels for s in result.series if s.name == name])
    return found[0]


def _rows(text: str, section: str) -> list[list[str]]:
    """Data rows (values only) of one section, by a plain split."""
    return [line.split(",")[2:] for line in text.splitlines() if line.startswith(f"{section},T")]


def _zzzz_ms(text: str, zone: dt.tzinfo = dt.UTC) -> list[int]:
    stamps = []
    for line in text.splitlines():
        if line.startswith("ZZZZ,"):
            _, _, clock, date = line.split(",")[:4]
            moment = dt.datetime.strptime(f"{clock} {date.title()} +0000", "%H:%M:%S %d-%b-%Y %z")
            stamps.append(int(moment.replace(tzinfo=zone).timestamp() * 1000))
    return stamps


# --------------------------------------------------------------------------- our capture


def test_cpu_all_matches_the_csv_and_zzzz_times() -> None:
    text = _read(FIXTURE)
    result = _parse(text)
    rows = _rows(text, "CPU_ALL")  # User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs
    assert len(rows) == 60
    times = _zzzz_ms(text)
    assert times[0] == int(dt.datetime(2026, 11, 21, 7, 29, 38, tzinfo=dt.UTC).timestamp() * 1000)
    for name, column in (
        ("cpu.user_pct", 0),
        ("cpu.sys_pct", 1),
        ("cpu.wait_pct", 2),
        ("cpu.idle_pct", 3),
    ):
        series = _series(result, name)
        assert series.unit == "%"
        assert list(series.values) == [float(r[column]) for r in rows]
        assert list(series.times_ms) == times
    assert set(_series(result, "cpu.count").values) == {2.0}
    # Busy is written empty by Linux nmon: no points rather than zeros.
    assert not [s for s in result.series if s.name == "cpu.busy_pct"]
    # The stress-ng CPU worker pinned one of the two cores: user+sys near 100 %.
    assert max(_series(result, "cpu.user_pct").values) > 60.0
    assert result.status == "parsed" and result.diagnostics == []
    assert result.host == "vm"


def test_snapshot_times_are_read_in_the_context_zone() -> None:
    text = _read(FIXTURE)
    paris = ZoneInfo("Europe/Paris")
    result = _parse(text, timezone=paris)
    assert list(_series(result, "cpu.user_pct").times_ms) == _zzzz_ms(text, paris)
    assert _zzzz_ms(text, paris)[0] == _zzzz_ms(text)[0] - 3600_000  # CET is UTC+1 in November


def test_per_core_series_and_busy_is_user_plus_sys() -> None:
    text = _read(FIXTURE)
    result = _parse(text)
    for cpu in ("1", "2"):
        rows = _rows(text, f"CPU00{cpu}")
        user = _series(result, "cpu.core.user_pct", cpu=cpu)
        assert list(user.values) == [float(r[0]) for r in rows]
        assert list(_series(result, "cpu.core.wait_pct", cpu=cpu).values) == [
            float(r[2]) for r in rows
        ]
        busy = _series(result, "cpu.core.busy_pct", cpu=cpu)
        assert list(busy.values) == pytest.approx([float(r[0]) + float(r[1]) for r in rows])


def test_memory_network_disk_and_proc() -> None:
    text = _read(FIXTURE)
    result = _parse(text)
    mem = _rows(
        text, "MEM"
    )  # memtotal,hightotal,lowtotal,swaptotal,memfree,...,cached(9),...,buffers(12)
    assert list(_series(result, "mem.total_mb").values) == [float(r[0]) for r in mem]
    assert list(_series(result, "mem.free_mb").values) == [float(r[4]) for r in mem]
    assert list(_series(result, "mem.cached_mb").values) == [float(r[9]) for r in mem]
    assert list(_series(result, "mem.buffers_mb").values) == [float(r[12]) for r in mem]
    assert _series(result, "mem.swap_free_mb").unit == "MB"
    # NET,Network I/O vm,lo-read-KB/s,ifb0-read-KB/s,ifb1-read-KB/s,eth0-read-KB/s,lo-write-KB/s,...
    net = _rows(text, "NET")
    lo_read = _series(result, "net.read_kbs", **{"if": "lo"})
    assert lo_read.unit == "KB/s" and list(lo_read.values) == [float(r[0]) for r in net]
    assert list(_series(result, "net.write_kbs", **{"if": "eth0"}).values) == [
        float(r[7]) for r in net
    ]
    # stress-ng --sock pushed traffic over loopback.
    assert max(lo_read.values) > 1000.0
    packets = _rows(text, "NETPACKET")
    assert list(_series(result, "net.packets_out", **{"if": "lo"}).values) == [
        float(r[4]) for r in packets
    ]
    busy = _series(result, "disk.busy_pct", disk="vda")
    assert list(busy.values) == [float(r[0]) for r in _rows(text, "DISKBUSY")]
    written = _series(result, "disk.write_kbs", disk="vda")
    assert written.unit == "KB/s" and max(written.values) > 1000.0  # stress-ng --hdd
    assert list(_series(result, "disk.xfer_per_s", disk="vda").values) == [
        float(r[0]) for r in _rows(text, "DISKXFER")
    ]
    proc = _rows(text, "PROC")  # Runnable,Blocked,pswitch,syscall,read,write,fork,exec,sem,msg
    assert list(_series(result, "proc.runqueue").values) == [float(r[0]) for r in proc]
    assert list(_series(result, "proc.pswitch").values) == [float(r[2]) for r in proc]
    assert (
        _series(result, "proc.pswitch").unit == "/s" and _series(result, "proc.runqueue").unit == ""
    )
    assert list(_series(result, "proc.fork").values) == [float(r[6]) for r in proc]


def test_other_sections_become_generic_series() -> None:
    text = _read(FIXTURE)
    result = _parse(text)
    vm_header = next(line for line in text.splitlines() if line.startswith("VM,Paging")).split(",")[
        2:
    ]
    pgpgin = vm_header.index("pgpgin")
    assert list(_series(result, "nmon.VM.pgpgin").values) == [
        float(r[pgpgin]) for r in _rows(text, "VM")
    ]
    # JFSFILE,JFS Filespace %Used vm,/dev,/,/mnt/tools
    root = _series(result, "nmon.JFSFILE.root")
    assert root.unit == "%" and list(root.values) == [float(r[1]) for r in _rows(text, "JFSFILE")]
    assert _series(result, "nmon.JFSFILE.mnt_tools")
    assert _series(result, "nmon.DISKBSIZE.vda")


def test_facts_from_the_aaa_block() -> None:
    result = _parse(_read(FIXTURE))
    facts = {f.key: f.value for f in result.facts}
    assert facts["nmon.host"] == "vm"
    assert facts["nmon.version"] == "16n"
    assert facts["nmon.interval_s"] == "1"
    assert facts["nmon.snapshots"] == "60"
    assert facts["nmon.snapshots_read"] == "60"
    assert facts["nmon.cpus"] == "2"
    assert facts["nmon.os"] == "Linux 6.18.44-fc-v595 x86_64"
    assert facts["nmon.os_release"] == "Debian GNU/Linux 12 (bookworm)"
    assert facts["nmon.command"] == "nmon -f -t -s 1 -c 60"


def test_top_processes_kept_by_peak_cpu() -> None:
    text = _read(FIXTURE)
    result = _parse(text)
    # TOP,+PID,Time,%CPU,%Usr,%Sys,Size,ResSet,ResText,ResData,ShdLib,MinorFault,MajorFault,Command,...
    peaks: dict[tuple[str, str], float] = {}
    resident: dict[tuple[str, str], list[float]] = {}
    for line in text.splitlines():
        fields = line.split(",")
        if fields[0] == "TOP" and fields[1].isdigit():
            key = (str(int(fields[1])), fields[13])
            peaks[key] = max(peaks.get(key, 0.0), float(fields[3]))
            resident.setdefault(key, []).append(float(fields[7]))
    ranked = sorted(peaks, key=peaks.__getitem__, reverse=True)
    expected = {k for i, k in enumerate(ranked) if i < nmon.TOP_ALWAYS_KEPT or peaks[k] > 1.0}
    cpu_series = {
        (s.labels["pid"], s.labels["command"]): s for s in result.series if s.name == "top.cpu_pct"
    }
    assert set(cpu_series) == expected
    assert len(peaks) > len(expected)  # some quiet processes were dropped
    stress = [s for (pid, command), s in cpu_series.items() if command == "stress-ng-cpu"]
    assert stress and max(max(s.values) for s in stress) == 85.35  # a shared machine: not 100
    some = ranked[0]
    assert (
        list(_series(result, "top.res_size_kb", pid=some[0], command=some[1]).values)
        == resident[some]
    )
    facts = {f.key: f.value for f in result.facts}
    assert facts["nmon.top.processes_seen"] == str(len(peaks))
    assert facts["nmon.top.processes_kept"] == str(len(expected))


# --------------------------------------------------------------------------- AIX


@needs_corpus
def test_aix_memory_proc_network_and_top() -> None:
    text = _read(AIX_TOP_UARG)
    result = _parse(text)
    assert result.host == "sampleC"
    # MEM,Memory sampleC,Real Free %,Virtual free %,Real free(MB),Virtual free(MB),Real total(MB),Virtual total(MB)
    mem = _rows(text, "MEM")
    assert list(_series(result, "mem.free_pct").values) == [float(r[0]) for r in mem]
    assert list(_series(result, "mem.swap_free_pct").values) == [float(r[1]) for r in mem]
    assert list(_series(result, "mem.free_mb").values) == [float(r[2]) for r in mem]
    assert list(_series(result, "mem.total_mb").values) == [float(r[4]) for r in mem]
    assert list(_series(result, "mem.swap_total_mb").values) == [float(r[5]) for r in mem]
    # PROC,Processes sampleC,Runnable,Swap-in,pswitch,...
    proc = _rows(text, "PROC")
    assert list(_series(result, "proc.runqueue").values) == [float(r[0]) for r in proc]
    assert list(_series(result, "proc.swapin").values) == [float(r[1]) for r in proc]
    # NETPACKET,...,en8-reads/s,...; NETERROR,...,en8-ierrs,...,en8-oerrs,...,en8-collisions
    packets = _rows(text, "NETPACKET")
    assert list(_series(result, "net.packets_in", **{"if": "en8"}).values) == [
        float(r[0]) for r in packets
    ]
    assert _series(result, "net.errors_out", **{"if": "lo0"})
    assert _series(result, "net.collisions", **{"if": "en10"})
    # AIX CPU_ALL writes Busy empty and the logical CPU count as PhysicalCPUs.
    assert set(_series(result, "cpu.count").values) == {28.0}
    assert _series(result, "cpu.core.busy_pct", cpu="28")
    assert _series(result, "nmon.PCPU.user", cpu="1")
    assert _series(result, "nmon.MEMNEW.process_pct").unit == "%"
    # TOP,31850666,T0002,27.89,27.44,0.46,1,196472,36180,5816,...,oracle,Unclassified: ResText + ResData
    oracle = _series(result, "top.res_size_kb", pid="31850666", command="oracle")
    assert oracle.values[0] == 36180 + 5816
    facts = {f.key: f for f in result.facts}
    assert facts["nmon.uarg.31850666"].value == "oraclePROD (LOCAL=NO)"
    assert facts["nmon.uarg.31850666"].time_ms == _zzzz_ms(text)[1]  # first seen at T0002
    # A command line with commas is kept whole.
    assert "-ystart_time=00:00:06,Dec01,2014" in facts["nmon.uarg.5505132"].value
    assert facts["nmon.os"].value == "AIX 6.1.7.17"
    assert (
        facts["nmon.cpus"].value == "28" and facts["nmon.cpus_max"].value == "28"
    )  # AAA,cpus,28,28


@needs_corpus
def test_aix_broken_lines_are_diagnosed_and_the_rest_read() -> None:
    result = _parse(_read(AIX_TOP_UARG))
    messages = {d.line: d.message for d in result.diagnostics}
    assert messages[5855].startswith(
        "not an nmon line: '25.531,7,28"
    )  # an LPAR row lost its prefix
    assert "LPAR row has 20 values, the header names 21" in messages[4206]
    assert "31 of the 72 snapshots planned" in messages[max(messages)]
    assert result.status == "partial"
    assert len(_series(result, "cpu.user_pct")) == 31


@needs_corpus
def test_more_values_than_header_columns_are_kept() -> None:
    text = _read(AIX_JFS)
    result = _parse(text)
    jfs = _rows(text, "JFSFILE")
    assert len(jfs[0]) == 31
    assert list(_series(result, "nmon.JFSFILE.col31").values) == [float(r[30]) for r in jfs]
    assert list(_series(result, "nmon.JFSFILE.root").values) == [float(r[0]) for r in jfs]
    assert list(_series(result, "nmon.JFSFILE.root_9").values) == [
        float(r[8]) for r in jfs
    ]  # "/root"
    assert any(
        "JFSFILE rows have 31 values but the header names 9" in d.message
        for d in result.diagnostics
    )


# --------------------------------------------------------------------------- odd files


@needs_corpus
def test_headerless_fragment_is_read_with_a_diagnostic() -> None:
    text = _read(FRAGMENT)
    assert detect_kind(text[:SNIFF_BYTES]) == "nmon"
    result = _parse(text)
    assert result.host == "shitbarn"
    assert list(_series(result, "cpu.user_pct").times_ms) == _zzzz_ms(text)
    assert len(_series(result, "cpu.core.user_pct", cpu="12")) == 5
    assert [d.line for d in result.diagnostics] == [0]
    assert "no AAA header block" in result.diagnostics[0].message
    assert result.status == "partial"


@needs_corpus
def test_incomplete_run_says_how_many_snapshots_were_planned() -> None:
    result = _parse(_read(INCOMPLETE))
    assert [d.message for d in result.diagnostics] == [
        "capture holds 6 of the 10 snapshots planned (run stopped early or file cut)"
    ]
    assert len(_series(result, "cpu.user_pct")) == 6


def test_file_cut_mid_line_and_mid_snapshot() -> None:
    text = _read(FIXTURE)
    cut_at = text.index("MEM,T0030,") + 15
    result = _parse(text[:cut_at])
    cut_line = text[:cut_at].count("\n") + 1
    messages = [(d.line, d.message) for d in result.diagnostics]
    assert (
        cut_line,
        "file ends mid-line (cut while nmon was writing); last line dropped",
    ) in messages
    assert any("snapshot T0030 is incomplete" in m for _, m in messages)
    assert any("30 of the 60 snapshots planned" in m for _, m in messages)
    assert len(_series(result, "cpu.user_pct")) == 30  # T0030's CPU_ALL came before the cut
    assert len(_series(result, "mem.free_mb")) == 29
    assert result.status == "partial"


def test_last_line_without_newline_but_whole_is_kept() -> None:
    text = _read(FIXTURE)
    end = text.index("\n", text.index("CPU_ALL,T0010,"))
    result = _parse(text[:end])
    assert len(_series(result, "cpu.user_pct")) == 10
    assert not any("mid-line" in d.message for d in result.diagnostics)


def test_two_runs_in_one_file_are_both_read() -> None:
    text = _read(FIXTURE)
    result = _parse(text + text)
    assert len(_series(result, "cpu.user_pct")) == 120
    assert [d.message for d in result.diagnostics] == [
        "file holds 2 nmon runs one after the other; all were read"
    ]


def test_sorted_file_with_zzzz_at_the_end_gives_the_same_series() -> None:
    text = _read(FIXTURE)
    expected = _parse(text)
    result = _parse("\n".join(sorted(text.splitlines())) + "\n")
    for name in ("cpu.user_pct", "mem.free_mb"):
        pairs = sorted(
            zip(_series(result, name).times_ms, _series(result, name).values, strict=True)
        )
        assert pairs == list(
            zip(_series(expected, name).times_ms, _series(expected, name).values, strict=True)
        )


def test_snapshots_without_zzzz_are_placed_by_the_interval() -> None:
    text = _read(FIXTURE)
    lines = [line for line in text.splitlines() if not line.startswith("ZZZZ,T0005,")]
    result = _parse("\n".join(lines) + "\n")
    times = list(_series(result, "cpu.user_pct").times_ms)
    assert times == _zzzz_ms(text)  # T0004 + 1 s interval = the real T0005 time
    assert any("without a ZZZZ time line" in d.message for d in result.diagnostics)


def test_garbage_lines_cost_a_diagnostic_each() -> None:
    text = _read(FIXTURE)
    marker = text.index("CPU_ALL,T0003,")
    broken = text[:marker] + "hello world\nCPU_ALL,T0003,abc,1,2,3,4,,2\n" + text[marker:]
    result = _parse(broken)
    line = broken[:marker].count("\n") + 1
    messages = {d.line: d.message for d in result.diagnostics}
    assert messages[line] == "not an nmon line: 'hello world'"
    assert messages[line + 1] == "CPU_ALL: not a number 'abc'"
    assert len(_series(result, "cpu.user_pct")) == 60  # the bad value skipped, others kept


def test_empty_and_wrong_kind_inputs() -> None:
    assert _parse("").status == "failed"
    assert _parse("").diagnostics[0].message == "no nmon sections, snapshots or header lines found"
    assert _parse("Netid State Recv-Q Send-Q\n").status == "failed"


# --------------------------------------------------------------------------- every file, sniffing


@pytest.mark.parametrize("path", NMON_FILES, ids=lambda p: p.name)
def test_every_nmon_file_is_detected_and_parsed(path: Path) -> None:
    text = _read(path)
    assert detect_kind(text[:SNIFF_BYTES]) == "nmon"
    scores = sniff_scores(text[:SNIFF_BYTES])
    assert [k for k, v in scores.items() if v >= 0.5] == ["nmon"]
    result = _parse(text)
    assert result.status != "failed"
    assert len(_series(result, "cpu.user_pct")) == len(_rows(text, "CPU_ALL"))
    assert result.host


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_nmon_sniffer_does_not_claim_other_kinds(path: Path) -> None:
    assert nmon.sniff(_read(path)[:SNIFF_BYTES]) < 0.5


# --------------------------------------------------------------------------- never raises


@given(st.text())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_parse_never_raises_on_any_text(text: str) -> None:
    assert isinstance(_parse(text), ParseResult)
    assert 0.0 <= nmon.sniff(text) <= 1.0


_FIXTURE_LINES = _read(FIXTURE).splitlines(keepends=True)[:400]


@given(
    cut=st.integers(min_value=0, max_value=sum(map(len, _FIXTURE_LINES))),
    garbage=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(_FIXTURE_LINES)),
            st.one_of(
                st.text(max_size=40),
                st.sampled_from(["ZZZZ,T0009,", "CPU_ALL,T0001,x", "TOP,1,T9", ",,,"]),
            ),
        ),
        max_size=8,
    ),
)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_parse_never_raises_on_a_mangled_capture(cut: int, garbage: list[tuple[int, str]]) -> None:
    lines = list(_FIXTURE_LINES)
    for position, junk in garbage:
        lines.insert(position, junk + "\n")
    text = "".join(lines)[:cut]
    result = _parse(text)
    assert isinstance(result, ParseResult)
    for series in result.series:
        assert len(series.times_ms) == len(series.values)


def test_bench_generator_writes_one_long_readable_run(tmp_path: Path) -> None:
    from bench.gen_nmon import generate

    target = tmp_path / "big.nmon"
    generate(target, 300_000)
    text = target.read_text()
    result = _parse(text)
    snapshots = text.count("\nZZZZ,")
    assert snapshots > 120 and result.status == "parsed"
    times = list(_series(result, "cpu.user_pct").times_ms)
    assert (
        len(times) == snapshots
        and times == sorted(times)
        and times[-1] - times[0] == (snapshots - 1) * 1000
    )


# --------------------------------------------------------------------------- AIX without dates, nmon 14

AIX_NO_DATE = FIXTURES_DIR / "nmon" / "aix-topas-nmon-zzzz-without-date-handwritten.nmon"
NMON14 = FIXTURES_DIR / "nmon" / "linux-nmon14-headers-without-columns-handwritten.nmon"


@pytest.mark.parametrize("path", [AIX_NO_DATE, NMON14], ids=lambda p: p.name)
def test_handwritten_variants_are_detected_and_parsed_clean(path: Path) -> None:
    text = _read(path)
    assert [k for k, v in sniff_scores(text[:SNIFF_BYTES]).items() if v >= 0.5] == ["nmon"]
    result = _parse(text)
    assert result.status == "parsed", result.diagnostics
    assert len(_series(result, "cpu.user_pct")) == len(_rows(text, "CPU_ALL"))


def test_zzzz_without_a_date_takes_the_aaa_date_and_crosses_midnight() -> None:
    result = _parse(_read(AIX_NO_DATE))
    user = _series(result, "cpu.user_pct")
    day = dt.datetime(2026, 3, 14, tzinfo=dt.UTC)
    expected = [
        day + dt.timedelta(hours=23, minutes=50, seconds=3),
        day + dt.timedelta(days=1, seconds=3),
        day + dt.timedelta(days=1, minutes=10, seconds=3),
        day + dt.timedelta(days=1, minutes=20, seconds=3),
    ]
    assert list(user.times_ms) == [int(t.timestamp() * 1000) for t in expected]
    assert list(user.values) == [12.1, 14.0, 55.2, 61.7]
    assert list(_series(result, "mem.free_mb").values) == [7372.8, 7176.2, 3932.2, 3407.9]


def test_zzzz_without_a_date_and_without_aaa_date_is_diagnosed() -> None:
    text = "CPU_ALL,CPU Total h,User%,Sys%\nZZZZ,T0001,00:00:05\nCPU_ALL,T0001,3.5,1.5\n"
    result = _parse(text)
    assert any(d.line == 2 and "no readable AAA,date" in d.message for d in result.diagnostics), (
        result.diagnostics
    )


def test_headers_without_columns_are_known_no_ops() -> None:
    result = _parse(_read(NMON14))
    assert result.diagnostics == []
    assert list(_series(result, "net.read_kbs", **{"if": "eth0"}).values) == [12.4, 15.1, 11.0]
    assert not [s for s in result.series if s.name.startswith(("nmon.JFSFILE", "disk."))]
    # A header line whose second field is a number is still a broken line.
    assert _parse("CPU_ALL,12\n").diagnostics


def _series_of(result: ParseResult) -> dict[tuple[str, tuple[tuple[str, str], ...]], SeriesData]:
    return {(s.name, tuple(sorted(s.labels.items()))): s for s in result.series}


@pytest.mark.parametrize("path", NMON_FILES, ids=lambda p: p.name)
def test_bulk_conversion_reads_what_the_general_path_reads(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The numpy fast path for uniform sections gives the same series, values and
    diagnostics as the per-field path it short-cuts."""
    text = path.read_text(errors="replace")
    fast = nmon.parse(text, ParseContext())
    monkeypatch.setattr(nmon._Reader, "_flush_uniform", lambda *_: False)
    general = nmon.parse(text, ParseContext())
    assert [(d.line, d.message) for d in fast.diagnostics] == [
        (d.line, d.message) for d in general.diagnostics
    ]
    fast_series, general_series = _series_of(fast), _series_of(general)
    assert fast_series.keys() == general_series.keys()
    for key, series in fast_series.items():
        other = general_series[key]
        assert (series.unit, list(series.times_ms)) == (other.unit, list(other.times_ms)), key
        assert list(series.values) == list(other.values), key


_BULK = (
    "AAA,progname,nmon\nAAA,interval,1\n"
    "MEM,Memory MB h,memtotal,memfree,cached\n"
    "ZZZZ,T0001,00:00:01,01-JAN-2020\nMEM,T0001,100.5,,7\n"
    "ZZZZ,T0002,00:00:02,01-JAN-2020\nMEM,T0002,100.5,40,\n"
    "MEM,Memory MB h,memtotal,memfree,cached\n"
    "ZZZZ,T0003,00:00:03,01-JAN-2020\nMEM,T0003,100.5,39,8\n"
)


def test_bulk_section_gaps_header_repeats_and_crlf() -> None:
    """Empty values are gaps, a repeated identical header is passed over, CRLF reads alike."""
    for text in (_BULK, _BULK.replace("\n", "\r\n")):
        result = nmon.parse(text, ParseContext())
        series = _series_of(result)
        assert list(series[("mem.total_mb", ())].values) == [100.5, 100.5, 100.5]
        assert list(series[("mem.free_mb", ())].times_ms) == [1577836802000, 1577836803000]
        assert list(series[("mem.cached_mb", ())].values) == [7.0, 8.0]
        assert result.diagnostics == []


def test_bulk_section_with_a_bad_value_or_width_falls_back_with_line_numbers() -> None:
    bad_value = _BULK.replace("MEM,T0002,100.5,40,", "MEM,T0002,100.5,4x0,")
    result = nmon.parse(bad_value, ParseContext())
    assert [(d.line, d.message) for d in result.diagnostics] == [(7, "MEM: not a number '4x0'")]
    assert list(_series_of(result)[("mem.free_mb", ())].values) == [39.0]
    wide = _BULK.replace("MEM,T0003,100.5,39,8", "MEM,T0003,100.5,39,8,5")
    result = nmon.parse(wide, ParseContext())
    assert (10, "MEM row has 4 values, the header names 3; read by position") in [
        (d.line, d.message) for d in result.diagnostics
    ]
    assert list(_series_of(result)[("mem.cached_mb", ())].values) == [7.0, 8.0]


def test_top_rows_with_a_bad_cpu_value_are_diagnosed_and_the_rest_grouped() -> None:
    text = (
        "AAA,progname,nmon\n"
        "TOP,+PID,Time,%CPU,%Usr,%Sys,Size,ResSet,ResText,ResData,ShdLib,MinorFault,MajorFault,Command\n"
        "ZZZZ,T0001,00:00:01,01-JAN-2020\n"
        "TOP,0000042,T0001,5.0,1,1,1,100,1,1,1,0,0,java\n"
        "TOP,0000043,T0001,zz,1,1,1,100,1,1,1,0,0,sh\n"
        "ZZZZ,T0002,00:00:02,01-JAN-2020\n"
        "TOP,0000042,T0002,7.0,1,1,1,200,1,1,1,0,0,java\n"
    )
    result = nmon.parse(text, ParseContext())
    assert (5, "unreadable TOP row: bad snapshot tag or %CPU") in [
        (d.line, d.message) for d in result.diagnostics
    ]
    series = _series_of(result)
    java = (("command", "java"), ("pid", "42"))
    assert list(series[("top.cpu_pct", java)].values) == [5.0, 7.0]
    assert list(series[("top.res_size_kb", java)].values) == [100.0, 200.0]


def _fixture_variant(label: str) -> str:
    text = _read(FIXTURE)
    marker = text.index("CPU_ALL,T0003,")
    broken = text[:marker] + "hello world\nCPU_ALL,T0003,abc,1,2,3,4,,2\n" + text[marker:]
    return {
        "one run": text,
        "two runs": text + text,
        "CRLF": text.replace("\n", "\r\n"),
        "garbage": broken,
        "cut": text[: len(text) * 2 // 3],
    }[label]


@pytest.mark.parametrize("label", ["one run", "two runs", "CRLF", "garbage", "cut"])
def test_reading_in_small_blocks_gives_what_one_block_gives(
    label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines are grouped per section a block at a time; where the blocks fall must not
    change a point, a diagnostic or its line number (a run's end inside a block, a CR)."""
    text = _fixture_variant(label)
    monkeypatch.setattr(nmon, "_LINE_BLOCK", len(text) + 1)
    whole = nmon.parse(text, ParseContext())
    monkeypatch.setattr(nmon, "_LINE_BLOCK", 700)
    blocks = nmon.parse(text, ParseContext())
    assert [(d.line, d.message) for d in blocks.diagnostics] == [
        (d.line, d.message) for d in whole.diagnostics
    ], label
    whole_series, block_series = _series_of(whole), _series_of(blocks)
    assert block_series.keys() == whole_series.keys()
    for key, series in block_series.items():
        other = whole_series[key]
        assert list(series.times_ms) == list(other.times_ms), key
        assert list(series.values) == list(other.values), key
    assert blocks.facts == whole.facts


def _everything(result: ParseResult) -> tuple[object, ...]:
    """A result as comparable data, series in their order."""
    return (
        result.host,
        [(s.name, s.labels, s.unit, list(s.times_ms), list(s.values)) for s in result.series],
        [(f.key, f.value, f.time_ms) for f in result.facts],
        [(d.line, d.message) for d in result.diagnostics],
    )


_VARIANTS = ["as is", "two runs", "CRLF", "cut", "no last newline", "header repeats", "bad value"]


def _variant(text: str, label: str) -> str:
    if label == "two runs":
        return text + text
    if label == "CRLF":
        return text.replace("\n", "\r\n")
    if label == "cut":
        return text[: len(text) * 2 // 3]
    if label == "no last newline":
        return text.rstrip("\n")
    if label == "header repeats":  # every header line written again before each ZZZZ line
        headers = "".join(
            line + "\n"
            for line in text.splitlines()
            if "," in line
            and not line.split(",")[1].startswith("T")
            and line[:4] != "ZZZZ"
            and not line.startswith(("AAA", "BBB", "UARG"))
        )
        return text.replace("\nZZZZ,", "\n" + headers + "ZZZZ,")
    if label == "bad value":
        at = text.find(",T0003,")
        return text[: at + 7] + "x" + text[at + 7 :] if at > 0 else text + "CPU_ALL,T1,x\n"
    return text


@pytest.mark.parametrize("label", _VARIANTS)
@pytest.mark.parametrize("path", NMON_FILES, ids=lambda p: p.name)
def test_columnar_path_reads_what_the_line_path_reads(
    path: Path, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """parse() reads usual files column-wise (pyarrow) and falls back to the line path for
    the rest: either way every series (in order), value, time, fact and diagnostic is the
    line path's. Small blocks put block ends everywhere (mid-section, mid-snapshot)."""
    text = _variant(_read(path), label)
    line_path = _everything(nmon._Reader(ParseContext()).read(text))
    assert _everything(nmon.parse(text, ParseContext())) == line_path
    monkeypatch.setattr(nmon, "_COLUMNAR_BLOCK", 40_000)
    assert _everything(nmon.parse(text, ParseContext())) == line_path


def _columnar(text: str) -> ParseResult | None:
    try:
        return nmon._Columnar(nmon._Reader(ParseContext())).read(text)
    except nmon._Bail:
        return None


def test_columnar_path_takes_usual_files_and_leaves_odd_ones() -> None:
    text = _read(FIXTURE)
    assert _columnar(text) is not None
    assert _columnar(_variant(text, "header repeats")) is not None
    for label in ("two runs", "CRLF", "cut", "bad value"):
        assert _columnar(_variant(text, label)) is None, label
    assert _columnar(_read(AIX_NO_DATE)) is None  # ZZZZ lines without a date


def _retagged(text: str, rows: tuple[str, ...], back: int) -> str:
    """Rows of the sections ``rows`` name (and TOP) tagged with the snapshot ``back`` before
    their own: rows in a snapshot other than the latest ZZZZ line's."""
    out = []
    for line in text.split("\n"):
        fields = line.split(",")
        at = 2 if fields[0] == "TOP" else 1
        if fields[0] in rows and len(fields) > at and fields[at][1:].isdigit():
            number = int(fields[at][1:])
            if number > back and number % 7 == 0:
                fields[at] = f"T{number - back:04d}"
        out.append(",".join(fields))
    return "\n".join(out)


def _fail_if_called(*args: object) -> None:
    raise AssertionError("a row's tag was read as a number")


def test_rows_times_are_their_latest_zzzz_lines_without_reading_a_tag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The usual capture's rows follow their ZZZZ line: their tags are compared with its
    tag, never read as numbers, and their times are those the line path gives."""
    text = _read(FIXTURE)
    line_path = _everything(nmon._Reader(ParseContext()).read(text))
    monkeypatch.setattr(nmon._Columnar, "_times_by_number", _fail_if_called)
    assert _everything(nmon.parse(text, ParseContext())) == line_path
    monkeypatch.setattr(nmon, "_COLUMNAR_BLOCK", 40_000)  # rows after a block's first line
    assert _everything(nmon.parse(text, ParseContext())) == line_path


@pytest.mark.parametrize("back", [1, 5, 40])
def test_rows_tagged_with_an_earlier_snapshot_get_that_snapshots_time(back: int) -> None:
    """A row whose tag is not its latest ZZZZ line's is looked up by its number: read
    column-wise, still the line path's times (not the latest ZZZZ line's)."""
    text = _retagged(_read(FIXTURE), ("CPU_ALL", "MEM", "TOP", "DISKBUSY"), back)
    line_path = _everything(nmon._Reader(ParseContext()).read(text))
    columnar = _columnar(text)
    assert columnar is not None
    assert _everything(columnar) == line_path
    assert _everything(nmon.parse(text, ParseContext())) == line_path
    plain = _everything(nmon.parse(_read(FIXTURE), ParseContext()))
    assert _everything(columnar)[1] != plain[1]  # the tags did move points


def test_a_tag_that_only_starts_with_its_latest_zzzz_tag_is_another_snapshot() -> None:
    """``T00070`` after ``ZZZZ,T0007`` is snapshot 70 (none here), not 7."""
    text = _read(FIXTURE).replace("\nCPU_ALL,T0007,", "\nCPU_ALL,T00070,", 1)
    assert "CPU_ALL,T00070," in text
    assert _everything(nmon.parse(text, ParseContext())) == _everything(
        nmon._Reader(ParseContext()).read(text)
    )


@pytest.mark.parametrize("name", ["DISKBUSY", "DISKBUSY_LONGER_NAME", "DISK_BUSY_23_CHARACTERS"])
def test_section_names_past_a_word_read_as_the_line_path_reads(name: str) -> None:
    """Names of 8 to 23 characters (the key holds 24 bytes) read as the line path reads."""
    text = _read(FIXTURE).replace("\nDISKBUSY,", f"\n{name},")
    columnar = _columnar(text)
    assert columnar is not None
    assert _everything(columnar) == _everything(nmon._Reader(ParseContext()).read(text))
    assert any(
        s.name == "nmon." + name + ".vda" or s.name == "disk.busy_pct" for s in columnar.series
    )


def _top_pids_changed(text: str, change: Callable[[str], str]) -> str:
    lines = []
    for line in text.split("\n"):
        fields = line.split(",")
        if fields[0] == "TOP" and len(fields) > 2 and fields[1].isdigit():
            fields[1] = change(fields[1])
        lines.append(",".join(fields))
    return "\n".join(lines)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda pid: pid[1:] if int(pid) % 3 == 0 else pid, id="7 and 6 digits"),
        pytest.param(lambda pid: pid if int(pid) % 3 == 0 else pid[1:], id="6 and 7 digits"),
        pytest.param(lambda pid: pid[:-1] + "a" if int(pid) % 5 == 0 else pid, id="not digits"),
        pytest.param(lambda pid: pid.lstrip("0"), id="no zeros"),
        pytest.param(lambda pid: " " + pid[1:], id="space"),
    ],
)
def test_pids_of_several_widths_read_as_the_line_path_reads(change: Callable[[str], str]) -> None:
    """``003878`` and ``0003878`` are two processes, as the line path has them."""
    text = _top_pids_changed(_read(FIXTURE), change)
    columnar = _columnar(text)
    assert columnar is not None
    assert _everything(columnar) == _everything(nmon._Reader(ParseContext()).read(text))


def test_one_pid_written_with_two_widths_is_two_processes() -> None:
    """``003878`` before ``0003878`` (each TOP row written again with one zero less): two
    processes, each with its own points, as the line path has them."""
    lines = []
    for line in _read(FIXTURE).split("\n"):
        fields = line.split(",")
        if fields[0] == "TOP" and len(fields) > 2 and fields[1].isdigit():
            lines.append(",".join([fields[0], fields[1][1:], *fields[2:]]))
        lines.append(line)
    text = "\n".join(lines)
    columnar = _columnar(text)
    assert columnar is not None
    assert _everything(columnar) == _everything(nmon._Reader(ParseContext()).read(text))


@pytest.mark.parametrize("digits", [8, 12])
def test_long_pids_and_snapshot_tags_read_as_the_line_path_reads(digits: int) -> None:
    """Pids past 7 digits (AIX) and snapshot tags past 7 digits (no tag word, see
    _Columnar._times) read as the line path reads them."""
    text = _read(FIXTURE)
    lines = []
    for line in text.split("\n"):
        fields = line.split(",")
        if fields[0] == "TOP" and len(fields) > 2 and fields[1].isdigit():
            fields[1] = fields[1].rjust(digits, "0")
        lines.append(",".join(fields))
    long_pids = "\n".join(lines)
    assert _columnar(long_pids) is not None
    assert _everything(nmon.parse(long_pids, ParseContext())) == _everything(
        nmon._Reader(ParseContext()).read(long_pids)
    )
    long_tags = re.sub(
        r"(^|\n)(ZZZZ,|[A-Z][A-Z0-9_]*,|TOP,\d+,)T(\d+),",
        lambda m: f"{m.group(1)}{m.group(2)}T{int(m.group(3)) + 10 ** (digits - 1)},",
        text,
    )
    assert _everything(nmon.parse(long_tags, ParseContext())) == _everything(
        nmon._Reader(ParseContext()).read(long_tags)
    )


def test_series_of_a_section_share_one_times_array_until_one_grows() -> None:
    """Columns without gaps share their times (a 100 MB capture held 75 MB of equal times);
    a series that grows (a second run) gets its own copy first, the others keep theirs."""
    text = _read(FIXTURE)
    one = nmon.parse(text, ParseContext())
    user, sys_ = _series(one, "cpu.user_pct"), _series(one, "cpu.sys_pct")
    assert user.times_ms is sys_.times_ms
    snapshots = len(user)
    two = nmon.parse(text + text, ParseContext())
    user, sys_ = _series(two, "cpu.user_pct"), _series(two, "cpu.sys_pct")
    assert len(user) == len(sys_) == 2 * snapshots
    assert list(user.times_ms) == list(sys_.times_ms)
    assert list(user.values) == 2 * list(_series(one, "cpu.user_pct").values)


# --------------------------------------------------------------------------- read as it is decoded


def _big_capture(tmp_path: Path, size: int) -> bytes:
    from bench.gen_nmon import generate

    target = tmp_path / "big.nmon"
    generate(target, size)
    return target.read_bytes()


def test_a_capture_read_as_it_is_decoded_reads_as_its_whole_text(tmp_path: Path) -> None:
    """Over 8 MB (several columnar blocks), read a piece at a time, never reopened."""
    data = _big_capture(tmp_path, 9 * 1024 * 1024)
    result, reopened = parse_stored(data)
    assert reopened == 0 and result.status == "parsed"
    assert dump(result) == dump(registry.parse_text(data.decode(), ParseContext()))


def _block_parts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The type of every part the columnar path's blocks are made of, as they are read."""
    kinds: list[str] = []
    block = nmon._Columnar._block

    def recorded(self: nmon._Columnar, parts: list[str | bytes], first_number: int) -> int:
        kinds.extend(type(part).__name__ for part in parts)
        return block(self, parts, first_number)

    monkeypatch.setattr(nmon._Columnar, "_block", recorded)
    return kinds


def test_ascii_pieces_reach_the_columnar_path_as_their_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as the worker reads it, an ASCII capture is copied into the columnar path's
    blocks from the bytes read (only the pieces peeked at for sniffing are decoded): no
    decoding and encoding again. A piece with other characters is text, read as before."""
    data = _big_capture(tmp_path, 9 * 1024 * 1024)
    kinds = _block_parts(monkeypatch)
    result, reopened = parse_stored(data)
    assert reopened == 0 and result.status == "parsed"
    assert kinds.count("bytes") >= 8 and kinds.count("str") <= 1, kinds
    assert dump(result) == dump(registry.parse_text(data.decode(), ParseContext()))
    kinds.clear()
    accented = data.replace(b"CPU Total vm", "CPU Total vé".encode(), 1)
    assert accented != data
    result, reopened = parse_stored(accented)
    assert reopened == 0 and "str" in kinds and "bytes" in kinds
    assert dump(result) == dump(registry.parse_text(accented.decode(), ParseContext()))


def test_a_block_is_read_into_the_same_buffer_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The block's bytes go into one buffer used again at every block: a new array each
    time was new memory each time (huge pages zeroed by the kernel: a tenth of the parse)."""
    monkeypatch.setattr(nmon, "_COLUMNAR_BLOCK", 10_000)
    buffers: list[int] = []
    scratch = nmon._Columnar._scratch

    def recorded(self: nmon._Columnar, name: str, size: int, dtype: object) -> object:
        buffer = scratch(self, name, size, dtype)
        if name == "data":
            buffers.append(buffer.__array_interface__["data"][0])
        return buffer

    monkeypatch.setattr(nmon._Columnar, "_scratch", recorded)
    text = _read(FIXTURE)
    assert _everything(nmon.parse(text, ParseContext())) == _everything(
        nmon._Reader(ParseContext()).read(text)
    )
    assert len(buffers) >= 8
    assert len(set(buffers)) <= 2, f"{len(set(buffers))} buffers for {len(buffers)} blocks"


def test_section_rows_are_read_as_csv_from_past_their_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the compiled loop, the CSV reader gets a section's values only:
    ``<SECTION>,T<n>,`` is not split again on every row (the tags are read from the block's
    bytes)."""
    monkeypatch.setattr(nmon, "_fast", None)
    texts: list[bytes] = []
    csv = nmon._Columnar._csv

    def recorded(self: nmon._Columnar, lines: object, stride: int, types: object) -> object:
        texts.append(lines.to_pylist()[0].encode())  # type: ignore[attr-defined]
        return csv(self, lines, stride, types)  # type: ignore[arg-type]

    monkeypatch.setattr(nmon._Columnar, "_csv", recorded)
    text = _read(FIXTURE)
    columnar = _columnar(text)
    assert columnar is not None
    assert _everything(columnar) == _everything(nmon._Reader(ParseContext()).read(text))
    values = [t for t in texts if not t.startswith((b"ZZZZ,", b"TOP,"))]
    assert values and not [t for t in values if re.match(rb"[A-Z][A-Z0-9_]*,T\d", t)], values[:3]


@pytest.mark.parametrize(
    ("row", "columnar_reads_it"),
    [
        pytest.param("CPU_ALL,T0003,", False, id="many columns"),
        pytest.param("DISKBUSY,T0003,", True, id="one column"),
    ],
)
def test_a_row_ending_at_its_tag_reads_as_the_line_path_reads_it(
    row: str, columnar_reads_it: bool
) -> None:
    """Cut past its tag, such a row is an empty line, which pyarrow reads as a row of
    nulls however many columns: with one column that is the row (an empty value), with
    more the row is short, and the line path reads the file (it diagnoses the row)."""
    text = _read(FIXTURE)
    section = row.split(",")[0]
    at = text.index(f"\n{section},T0003,") + 1
    text = text[:at] + row + text[text.index("\n", at) :]
    assert (_columnar(text) is not None) == columnar_reads_it
    assert _everything(nmon.parse(text, ParseContext())) == _everything(
        nmon._Reader(ParseContext()).read(text)
    )


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda data: data[: len(data) - 7], id="cut mid-line"),
        pytest.param(lambda data: data.replace(b"\n", b"\r\n"), id="CRLF"),
        pytest.param(
            lambda data: data.replace(b"\nCPU_ALL,T0070,", b"\nCPU_ALL,T0070,x", 1), id="odd row"
        ),
        pytest.param(lambda data: data + data, id="two runs"),
        pytest.param(
            lambda data: data.replace(b"\nAAA,host,", b"\nAAA,host,\xff", 1), id="bad UTF-8"
        ),
    ],
)
def test_a_capture_the_columnar_path_gives_up_is_read_again_whole(
    tmp_path: Path, change: Callable[[bytes], bytes]
) -> None:
    data = change(_big_capture(tmp_path, 300_000))
    result, reopened = parse_stored(data)
    whole = parse_whole(data)
    assert reopened == 1
    assert dump(result) == dump(whole)


def test_a_big_capture_is_parsed_without_its_whole_text() -> None:
    """Read as the worker reads it, a capture's text is never held whole: the peak is its
    series (0.9x the file) and a block's temporaries, 1.5x a 48 MB capture, where its text
    beside them was 2.9x. Python's and numpy's allocations (tracemalloc; pyarrow's are its
    own), in a fresh process."""
    status, peak = peak_of_parse("bench.gen_nmon", 48 * 1024 * 1024)
    assert status == "parsed"
    assert peak < 2.0, f"peak {peak:.2f}x the file"


@pytest.mark.parametrize("path", [FIXTURE, AIX_NO_DATE, NMON14], ids=lambda p: p.name[:24])
def test_a_snapshot_tag_past_any_time_costs_its_row_only(path: Path) -> None:
    """A tag of 22 digits (hostile or corrupt) puts its row past what a time can be: that row
    is reported with its line and the rest is read as without it (it failed the file)."""
    lines = path.read_text().splitlines()
    copies = []  # (the line a hostile copy follows, the copy)
    for prefix, tag_at in (("CPU_ALL,", 1), ("MEM,", 1), ("TOP,", 2)):
        for at, line in enumerate(lines):
            fields = line.split(",")
            if (
                line.startswith(prefix)
                and len(fields) > tag_at + 1
                and fields[tag_at][1:].isdigit()
            ):
                fields[tag_at] = "T" + "9" * 22
                copies.append((at, ",".join(fields)))
                break
    for at, copy in sorted(copies, reverse=True):
        lines.insert(at + 1, copy)
    # Numbered from 1, each after its original and the copies inserted before it.
    hostile = {at + 2 + k for k, (at, _) in enumerate(sorted(copies))}
    assert hostile
    data = ("\n".join(lines) + "\n").encode()
    clean = registry.parse_bytes(path.read_bytes(), ParseContext(), "nmon")
    whole = registry.parse_bytes(data, ParseContext(), "nmon")
    streamed = registry.parse_file(
        io.BytesIO(data), ParseContext(), "nmon", reopen=lambda: io.BytesIO(data)
    )
    for result in (whole, streamed):
        assert result.status == "partial"
        assert {
            d.line
            for d in result.diagnostics
            if "snapshot tag" in d.message or "TOP row" in d.message
        } == hostile
        assert [(s.name, s.labels, list(s.times_ms), list(s.values)) for s in result.series] == [
            (s.name, s.labels, list(s.times_ms), list(s.values)) for s in clean.series
        ]


# ---- the compiled inner loop (rootline/parsers/_nmon_fast.pyx)


def test_the_compiled_loop_was_built() -> None:
    """`make setup` builds it (Cython and gcc); without it the parser is correct but slower,
    so a setup that silently lost it must fail here, not only in `make bench`."""
    assert nmon._fast is not None, "rootline.parsers._nmon_fast missing: pip install -e backend"


_PLAIN = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _is_plain(value: str) -> bool:
    return value == "" or (
        _PLAIN.fullmatch(value) is not None and sum(c.isdigit() for c in value) <= 15
    )


def _arrow_values(rows: list[str], width: int) -> np.ndarray | None:
    """What pyarrow.csv reads (the columnar path without the compiled loop), or None when it
    fails."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    nmon._load_arrow()
    names = [f"f{i}" for i in range(width)]
    try:
        table = pa_csv.read_csv(
            pa.py_buffer("".join(row + "\n" for row in rows).encode()),
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=False),
            parse_options=nmon._ARROW_CSV_PARSE,
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.float64()), null_values=[""]
            ),
        )
    except (pa.ArrowInvalid, ValueError):
        return None
    return np.array([table.column(i).to_numpy() for i in range(width)], dtype=np.float64)


_DECIMALS = st.builds(
    lambda whole, decimals, negative: (
        ("-" if negative else "")
        + (f"{whole}" if decimals == 0 else f"{whole / 10**decimals:.{decimals}f}")
    ),
    st.integers(0, 10**15 - 1),
    st.integers(0, 8),
    st.booleans(),
)
_VALUES = st.one_of(
    _DECIMALS,
    st.sampled_from(["", "0", "-0", "-0.0", "0.1", "999999999999999", "1234567890123456",
                     "1e5", "+3", " 4", "nan", "12.", ".5", "-", "1.5.2", "0x10", "inf", "7 "]),
    st.from_regex(r"-?[0-9]{1,18}(\.[0-9]{1,18})?", fullmatch=True),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda width: st.tuples(
            st.just(width),
            st.lists(st.lists(_VALUES, min_size=width, max_size=width), min_size=1, max_size=6),
        )
    )
)
def test_compiled_loop_reads_plain_numbers_as_pyarrow_does_and_leaves_the_rest(
    case: tuple[int, list[list[str]]],
) -> None:
    """Bit for bit pyarrow's values (-0.0 and NaN for an empty value included) where every
    value is a plain decimal number of at most 15 digits; any other value is left to pyarrow
    (the loop names the first row it could not read)."""
    assert nmon._fast is not None
    width, table = case
    rows = [",".join(values) for values in table]
    text = "".join(f"SEC,T{n:04d},{row}\n" for n, row in enumerate(rows)).encode()
    data = np.frombuffer(text + b"\0" * 32, dtype=np.uint8)
    starts, stops, at = [], [], 0
    for n, row in enumerate(rows):
        starts.append(at + len(f"SEC,T{n:04d},"))
        at += len(f"SEC,T{n:04d},{row}\n")
        stops.append(at - 1)
    out = np.full((width, len(rows)), 7.0)
    gaps = np.zeros(width, dtype=np.uint8)
    refused = nmon._fast.section_values(
        data, np.array(starts, np.int64), np.array(stops, np.int64), out, gaps
    )
    plain = [all(_is_plain(v) for v in values) for values in table]
    if all(plain):
        assert refused == -1
        expected = _arrow_values(rows, width)
        assert expected is not None
        assert out.tobytes() == expected.tobytes()  # bit for bit: -0.0, NaN
        assert gaps.astype(bool).tolist() == np.isnan(expected).any(axis=1).tolist()
    else:
        assert refused == plain.index(False)


def test_compiled_loop_refuses_rows_of_another_width() -> None:
    assert nmon._fast is not None
    text = b"1,2\n1,2,3\n1\n\n"
    data = np.frombuffer(text + b"\0" * 8, dtype=np.uint8)
    for start, stop in ((0, 3), (4, 9), (10, 11), (12, 12)):
        out, gaps = np.empty((2, 1)), np.zeros(2, dtype=np.uint8)
        refused = nmon._fast.section_values(
            data, np.array([start], np.int64), np.array([stop], np.int64), out, gaps
        )
        assert refused == (-1 if start == 0 else 0), text[start:stop]


@pytest.mark.parametrize("path", NMON_FILES, ids=lambda p: p.name)
def test_every_nmon_file_reads_the_same_with_and_without_the_compiled_loop(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _read(path)
    compiled = _everything(nmon.parse(text, ParseContext()))
    monkeypatch.setattr(nmon, "_fast", None)
    assert _everything(nmon.parse(text, ParseContext())) == compiled


def _odd_top_rows(text: str, seed: int) -> str:
    """The fixture's TOP rows with other commands (spaces, dots, UTF-8, empty), other pids
    and some empty resident sizes: what the compiled TOP loop must read as pyarrow does."""
    rng = random.Random(seed)
    commands = ["java", "kworker/0:1 ", " sshd: root@pts/0", "", "café", "a.b-c_d", "(sd-pam)"]
    out = []
    for line in text.split("\n"):
        fields = line.split(",")
        if fields[0] == "TOP" and len(fields) > 13 and fields[2][1:].isdigit():
            fields[1] = rng.choice(["0000001", "1", "00042", fields[1]])
            fields[13] = rng.choice(commands)
            if rng.random() < 0.2:
                fields[6] = ""  # ResSet
        out.append(",".join(fields))
    return "\n".join(out)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_top_loop_reads_what_pyarrow_reads(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _odd_top_rows(_read(FIXTURE), seed)
    monkeypatch.setattr(nmon, "_COLUMNAR_BLOCK", 20_000)
    assert _columnar(text) is not None
    compiled = _everything(nmon.parse(text, ParseContext()))
    seen = {
        s.labels["command"]
        for s in nmon.parse(text, ParseContext()).series
        if s.name == "top.cpu_pct"
    }
    assert seen & {"café", "sshd: root@pts/0", "kworker/0:1", "(sd-pam)", ""}, seen
    monkeypatch.setattr(nmon, "_fast", None)
    assert _everything(nmon.parse(text, ParseContext())) == compiled
    assert compiled == _everything(nmon._Reader(ParseContext()).read(text))


_ODD_LINES = [
    "",  # an empty line
    "AAA,host,vm",
    "CPU_ALL,T0001,1.0,2.0",
    "CPU_ALL,T,1.0",  # T without a digit: not a tag
    "CPU_ALL,X0001,1.0",
    "TOP,0001234,T0002,1.0,python3",
    "TOP,+PID,Time,%CPU,Command",
    "TOP,%CPU Utilisation",
    "TOP,12345678901234567890123456,T0002,1.0",  # a pid longer than the span
    "TOP,1,",
    "TOP,",
    "ZZZZ,T0002,00:00:01,01-JAN-2026",
    "NAME_OF_23_CHARACTERS__,T1,1",
    "CAFÉ,T1,1",
    "A,T9",
]


@pytest.mark.parametrize("seed", range(40))
def test_compiled_line_index_is_numpys(seed: int) -> None:
    """_nmon_fast.index_lines finds what _Columnar._index finds (offsets, names in order of
    first appearance, each name's lines, tags, TOP tags), and refuses what makes it bail."""
    assert nmon._fast is not None
    rng = random.Random(seed)
    pool = _ODD_LINES + ["NAME_OF_24_CHARACTERS___,T1,1", "no comma here", ",T1,1"] * (seed % 2)
    text = "".join(rng.choice(pool) + "\n" for _ in range(rng.randint(1, 30))).encode()
    data = np.zeros(len(text) + 2 * nmon._NAME_SPAN + 8, dtype=np.uint8)
    data[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    nmon._load_arrow()
    columnar = nmon._Columnar(nmon._Reader(ParseContext()))
    compiled = nmon._fast.index_lines(data, len(text), nmon._NAME_SPAN)
    try:
        expected = columnar._index(data, len(text))
    except nmon._Bail:
        assert compiled is None
        return
    names = expected[1]
    if b"" in names:  # an empty name: _block bails on it (the compiled loop at once)
        assert compiled is None
        return
    assert compiled is not None
    assert compiled[1] == names
    for position, (got, want) in enumerate(zip(compiled, expected, strict=True)):
        if position == 1:
            continue
        got, want = np.asarray(got), np.asarray(want)
        if position >= 7:  # TOP tags: only TOP lines' count, their places only where tagged
            top = np.zeros(len(want), dtype=bool)
            if b"TOP" in names:
                code = names.index(b"TOP")
                top[expected[2][expected[3][code] : expected[3][code + 1]]] = True
            if position == 7:
                top &= np.asarray(expected[8])
            got, want = got[top], want[top]
        elif position in (4, 5, 6):  # tags: empty lines' are never read
            empty = np.diff(np.asarray(expected[0]))[: len(want)] == 1
            got, want = got[~empty], want[~empty]
        assert got.tolist() == want.tolist(), position
