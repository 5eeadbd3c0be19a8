"""Verdicts from evidence whose time was assumed (:mod:`rootline.detectors.assumed_time`), on
the ``rootline analyze`` path: files parsed as the CLI parses them, with an upload time.

An ``ss`` listing without a timestamp line sits at the upload time. Beside a GC log of 2022 it
must not rule a cause out for 2022 (nor for any window it cannot be shown to cover); alone it
keeps its verdict but says its time was taken as the upload time. A dated ``ss`` loop is
judged as before. Application-log lines with a time of day only sit on the upload's date, and
what they confirm says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rootline import offline
from rootline.detectors import registry, symptom
from rootline.detectors.base import Finding
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers.base import ParseContext
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

UPLOAD_MS = 1_795_600_000_000  # 2026-11-25T09:46:40Z: when the files were "uploaded"

# Hand-written: an `ss -tan` listing as an operator pastes it during an incident, no timestamp
# line; a server whose clients close first (2 TIME-WAIT sockets on its listening port).
UNDATED_SS = """\
State      Recv-Q Send-Q Local Address:Port   Peer Address:Port
LISTEN     0      128          0.0.0.0:8080        0.0.0.0:*
ESTAB      0      0         10.0.0.5:8080      10.0.0.9:51000
ESTAB      0      0         10.0.0.5:8080      10.0.0.9:51002
ESTAB      0      0         10.0.0.5:41000     10.0.0.7:3306
TIME-WAIT  0      0         10.0.0.5:8080      10.0.0.9:50990
TIME-WAIT  0      0         10.0.0.5:8080      10.0.0.9:50992
"""

# Hand-written: the same listing taken by `while :; do date -Is; ss -tan; sleep 5; done`,
# on the GC log's day.
DATED_SS_LOOP = "".join(
    f"2022-03-14T09:00:{second:02d}+00:00\n{UNDATED_SS}" for second in (5, 10, 15)
)

# Hand-written: a unified GC log (-Xlog:gc:time,uptime,level,tags) of 2022-03-14, four short
# young pauses: a JVM that GC did not stall.
DATED_GC_LOG = """\
[2022-03-14T09:00:00.100+0000][0.004s][info][gc] Using G1
[2022-03-14T09:00:05.000+0000][4.904s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.456ms
[2022-03-14T09:00:15.000+0000][14.904s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 30M->5M(256M) 4.100ms
[2022-03-14T09:00:25.000+0000][24.904s][info][gc] GC(2) Pause Young (Normal) (G1 Evacuation Pause) 31M->5M(256M) 3.900ms
[2022-03-14T09:00:35.000+0000][34.904s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 31M->6M(256M) 4.300ms
"""

CORPUS_GC_2022 = (
    CORPUS_DIR / "gc" / "jdk17-ujl-g1-full-concurrent-cycle-gc-all-safepoint-gcviewer.txt"
)
CORPUS_UNDATED_SS = [
    CORPUS_DIR / "ss" / name
    for name in (
        "ss-noemitauOH-oneline-tcpinfo-skmem-desktop-pcp.txt",
        "ss-noemitauOH-oneline-tcpinfo-skmem-ubuntu-pcp.txt",
        "ss-a-centos77-jc.txt",
        "ss-s-summary-old-iproute2-orphaned-kernel-doc.txt",
    )
]


def parsed(*paths: Path) -> list[ParsedArtifact]:
    """The files as ``rootline analyze`` reads them, uploaded at :data:`UPLOAD_MS`."""
    context = ParseContext.for_zone("UTC", default_time_ms=UPLOAD_MS)
    return [item for path in paths for item in offline.parse_path(path, context, None)]


def written(tmp_path: Path, **files: str) -> list[Path]:
    paths = []
    for name, text in files.items():
        path = tmp_path / name.replace("_", ".", 1)
        path.write_text(text)
        paths.append(path)
    return paths


def findings(items: list[ParsedArtifact]) -> dict[str, Finding]:
    return {f.id: f for f in registry.run_all(MemoryIncidentData(items))}


def rests_only_on(finding: Finding, artifact: str) -> bool:
    """Every evidence item naming a file names ``artifact`` (and one does)."""
    named = [e.artifact for e in finding.evidence if e.artifact]
    return bool(named) and all(a == artifact for a in named)


def test_an_undated_listing_beside_a_gc_log_of_2022_rules_nothing_out(tmp_path: Path) -> None:
    ss, gc = written(tmp_path, ss_txt=UNDATED_SS, gc_log=DATED_GC_LOG)
    items = parsed(ss, gc)
    data = MemoryIncidentData(items)
    times = {t.artifact: t for t in data.artifact_times()}
    assert times[str(ss)].assumed == (("placed_at_upload", ""),)
    assert times[str(ss)].start_ms == UPLOAD_MS
    assert times[str(gc)].assumed == ()
    by_id = findings(items)
    storm = by_id["time_wait_storm"]
    # Without the listing's time it was "No TIME_WAIT storm", for 2022 as much as for today.
    assert storm.verdict == "insufficient_data", storm.summary
    assert storm.summary.startswith("Not ruled out: ")
    assert "ss.txt holds no timestamp, so its time was taken as the upload time" in storm.summary
    assert "placed 1,717 days after them" in storm.summary
    assert "No TIME_WAIT storm" in storm.summary  # what it shows, wherever it was taken
    assert "date -Is" in storm.summary and "clock offset" in storm.summary
    assert storm.missing[0].artifact == "ss.txt with its own time"
    assert "date -Is" in storm.missing[0].command
    assert {e.time_assumed for e in storm.evidence if e.artifact == str(ss)} == {"placed_at_upload"}
    # Nothing is ruled out on the listing alone; the GC log's own verdict stands.
    assert not [
        f.id for f in by_id.values() if f.verdict == "ruled_out" and rests_only_on(f, str(ss))
    ]
    gc_finding = by_id["gc_pauses"]
    assert gc_finding.verdict == "ruled_out"
    assert all(e.time_assumed is None for e in gc_finding.evidence)
    assert "assumed" not in gc_finding.summary and "timestamp" not in gc_finding.summary


def test_an_undated_listing_alone_keeps_its_verdict_and_says_its_time_was_assumed(
    tmp_path: Path,
) -> None:
    """Listings pasted during a live incident, with nothing dated beside them: the upload
    time is the best there is, so the verdict stands, saying so."""
    (ss,) = written(tmp_path, ss_txt=UNDATED_SS)
    storm = findings(parsed(ss))["time_wait_storm"]
    assert storm.verdict == "ruled_out", storm.summary
    assert storm.summary.startswith("No TIME_WAIT storm")
    assert (
        "Its time is assumed (ss.txt holds no timestamp, so its time was taken as the upload"
        " time, 2026-11-25T09:46:40Z); to give it its own, re-capture it"
    ) in storm.summary
    assert storm.missing == []


def test_a_dated_ss_loop_beside_the_gc_log_is_judged_as_before(tmp_path: Path) -> None:
    """The contrast: the same listing in a loop with `date` lines has a time of its own."""
    ss, gc = written(tmp_path, ss_txt=DATED_SS_LOOP, gc_log=DATED_GC_LOG)
    items = parsed(ss, gc)
    assert all(not t.assumed for t in MemoryIncidentData(items).artifact_times())
    by_id = findings(items)
    storm = by_id["time_wait_storm"]
    assert storm.verdict == "ruled_out"
    assert storm.summary.startswith("No TIME_WAIT storm")
    assert "assumed" not in storm.summary and "upload time" not in storm.summary
    assert all(e.time_assumed is None for f in by_id.values() for e in f.evidence)


def test_what_an_undated_listing_confirms_stays_confirmed_and_says_its_time_is_unknown(
    tmp_path: Path,
) -> None:
    """A mechanism seen is seen: 3 000 TIME-WAIT sockets stay a storm, but the listing's
    time is not the incident's, so the summary says it may not have been at work then."""
    rows = "".join(
        f"TIME-WAIT  0      0         10.0.0.5:8080      10.0.{i // 250}.{i % 250}:50990\n"
        for i in range(3000)
    )
    storm_ss = UNDATED_SS.replace("TIME-WAIT", "ESTAB", 2) + rows
    ss, gc = written(tmp_path, ss_txt=storm_ss, gc_log=DATED_GC_LOG)
    alone = findings(parsed(ss))["time_wait_storm"]
    assert alone.verdict in ("confirmed", "likely"), alone.summary
    assert "Its time is assumed (ss.txt holds no timestamp" in alone.summary
    beside = findings(parsed(ss, gc))["time_wait_storm"]
    assert beside.verdict == alone.verdict
    assert "Its time is not known (ss.txt holds no timestamp" in beside.summary
    assert "so whether this was at work then is unknown" in beside.summary


def test_an_app_log_without_dates_says_the_day_it_was_put_on(tmp_path: Path) -> None:
    """Rejection lines with a time of day only, put on the upload's day: the pool exhaustion
    they show stands, but not as a fact of the GC log's day."""
    bare = (FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log").read_text()
    bare = bare.replace("2026-11-21 ", "")
    log, gc = written(tmp_path, app_log=bare, gc_log=DATED_GC_LOG)
    items = parsed(log, gc)
    times = {t.artifact: t for t in MemoryIncidentData(items).artifact_times()}
    assert times[str(log)].assumed == (("app_log.date_assumed", "2026-11-25"),)
    pool = findings(items)["threadpool_exhaustion"]
    assert pool.verdict == "confirmed", pool.summary
    assert (
        "Its time is not known (app.log gives times of day without a date, put on"
        " 2026-11-25, the upload's date), apart from the captures that carry their own time"
    ) in pool.summary
    assert "log with dates" in pool.summary
    assert {e.time_assumed for e in pool.evidence if e.artifact == str(log)} == {
        "app_log.date_assumed"
    }
    # Its evidence sits where it was put: it overlaps no symptom window.
    window = symptom.Symptom(
        "app.x.p99_ms", {}, None, "ms", "latency", UPLOAD_MS - 86_400_000, UPLOAD_MS, 1, 2, 3, ""
    )
    overlap = symptom.overlap(window, pool.verdict, pool.to_dict()["evidence"])
    assert overlap.overlaps is None
    assert overlap.sentence is not None and "assumed" in overlap.sentence
    # The log with its dates assumes nothing.
    dated = findings(parsed(FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log", gc))
    assert dated["threadpool_exhaustion"].verdict == "confirmed"
    assert "Its time" not in dated["threadpool_exhaustion"].summary


@pytest.mark.parametrize("listing", CORPUS_UNDATED_SS, ids=lambda p: p.name)
def test_undated_corpus_listings_beside_a_dated_corpus_gc_log(listing: Path) -> None:
    """The corpus' ss listings carry no timestamp: beside a GC log of 2022-01-29, none rules
    a cause out on its own; alone, what it rules out says its time was assumed."""
    if not listing.is_file() or not CORPUS_GC_2022.is_file():
        pytest.skip(f"corpus not found at {CORPUS_DIR} (set ROOTLINE_CORPUS_DIR)")
    beside = findings(parsed(listing, CORPUS_GC_2022))
    assert not [
        f.id for f in beside.values() if f.verdict == "ruled_out" and rests_only_on(f, str(listing))
    ]
    turned = [f for f in beside.values() if f.summary.startswith("Not ruled out: ")]
    assert turned, "the listing rules something out alone (below): it must not beside the log"
    for finding in turned:
        assert finding.verdict == "insufficient_data"
        assert "holds no timestamp, so its time was taken as the upload time" in finding.summary
    alone = findings(parsed(listing))
    for finding in turned:
        assert alone[finding.id].verdict == "ruled_out"
        assert "Its time is assumed (" in alone[finding.id].summary


def test_a_slow_period_from_an_app_log_without_dates_is_no_fact_about_a_dated_gc_log(
    tmp_path: Path,
) -> None:
    """The slow period (the pool's rejections) comes from log lines put on the upload's day;
    the GC log is of 2022. "None of its pauses falls in the slow period" is then a guess
    about where the slow period lies, and the finding says so."""
    bare = (FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log").read_text()
    log, gc = written(tmp_path, app_log=bare.replace("2026-11-21 ", ""), gc_log=DATED_GC_LOG)
    gc_finding = findings(parsed(log, gc))["gc_pauses"]
    (inside,) = [e for e in gc_finding.evidence if "slow period" in e.summary]
    assert inside.artifact == str(gc) and inside.against == [str(log)]
    assert inside.time_assumed == "app_log.date_assumed"
    assert (
        "Part of it was placed against files whose time was assumed (app.log gives times of"
        " day without a date, put on 2026-11-25"
    ) in gc_finding.summary
    # With its dates, the log's slow period is a fact: nothing to add.
    dated = findings(parsed(FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log", gc))
    assert "assumed" not in dated["gc_pauses"].summary


def test_a_symptom_from_log_lines_without_dates_overlaps_nothing(tmp_path: Path) -> None:
    """Errors logged with a time of day only rise at 10:00:30 of the upload's day: that
    window is where the lines were put, so no dated cause is said to overlap it."""
    quiet = "10:00:{:02d},000 INFO  [main] c.e.App - ok\n"
    failed = (
        "10:00:{:02d},000 ERROR [http-1] c.e.OrderClient - call failed\n"
        "java.net.SocketTimeoutException: Read timed out\n"
    )
    lines = [quiet.format(s) for s in range(0, 30)]
    lines += [failed.format(s) for s in range(30, 36)]
    lines += [quiet.format(s) for s in range(36, 41)]
    bare = "".join(lines)
    (log,) = written(tmp_path, app_log=bare)
    found = symptom.find_symptom(MemoryIncidentData(parsed(log)))
    assert found is not None and found.series == "app.log.errors"
    assert found.time_assumed == "app_log.date_assumed"
    assert "its file's times were assumed (app_log.date_assumed = 2026-11-25)" in found.summary
    inside = [{"from_ms": found.start_ms, "to_ms": found.end_ms, "met": True}]
    overlap = symptom.overlap(found, "confirmed", inside)
    assert overlap.overlaps is None
    assert overlap.sentence is not None and "The symptom's time was assumed" in overlap.sentence
    # With its dates the same lines place the symptom, and a cause inside it overlaps it.
    dated_log = tmp_path / "dated.log"
    dated_log.write_text(
        "".join("2026-11-25 " + line if line[:1] == "1" else line for line in lines)
    )
    dated = symptom.find_symptom(MemoryIncidentData(parsed(dated_log)))
    assert dated is not None and dated.time_assumed is None
    inside = [{"from_ms": dated.start_ms, "to_ms": dated.end_ms, "met": True}]
    assert symptom.overlap(dated, "confirmed", inside).overlaps is True


def test_settings_of_a_sysctl_dump_do_not_place_an_undated_listing(tmp_path: Path) -> None:
    """A send buffer judged from an undated `ss -tinm` and the host's tcp_wmem (sysctl, a
    file of settings with no time at all): the settings hold whenever the listing was taken,
    so they do not make its ruling out a fact of the GC log's day."""
    listing = FIXTURES_DIR / "ss" / "ss-tinm.txt"
    sysctl = FIXTURES_DIR / "sysctl" / "sysctl-net.txt"
    (gc,) = written(tmp_path, gc_log=DATED_GC_LOG)
    alone = findings(parsed(listing, sysctl))["small_send_buffer"]
    assert alone.verdict == "ruled_out", alone.summary
    assert {Path(e.artifact or "").name for e in alone.evidence} >= {listing.name, sysctl.name}
    beside = findings(parsed(listing, sysctl, gc))["small_send_buffer"]
    assert beside.verdict == "insufficient_data", beside.summary
    assert beside.summary.startswith("Not ruled out: ")
    assert {e.time_assumed for e in beside.evidence if e.artifact == str(sysctl)} == {None}


def test_an_uptime_only_gc_log_beside_a_dated_listing_rules_nothing_out(tmp_path: Path) -> None:
    """A GC log with JVM uptimes only sits near the epoch: its short pauses say nothing of the
    dated listing's time (alone, with nothing dated, it is judged as before)."""
    uptime_log = FIXTURES_DIR / "gc_unified" / "parallel-uptime.log"
    alone = findings(parsed(uptime_log))["gc_pauses"]
    assert alone.verdict == "ruled_out", alone.summary
    assert "Its time is assumed (parallel-uptime.log holds JVM uptimes only" in alone.summary
    (loop,) = written(tmp_path, ss_txt=DATED_SS_LOOP)
    beside = findings(parsed(uptime_log, loop))["gc_pauses"]
    assert beside.verdict == "insufficient_data", beside.summary
    assert beside.summary.startswith(
        "Not ruled out: what this rests on comes only from files whose time is not known"
        " (parallel-uptime.log holds JVM uptimes only, no clock time), apart from the captures"
        " that carry their own time (2022-03-14T09:00:05Z to 2022-03-14T09:00:15Z), so"
    )
    assert "--jvm-start" in beside.summary
    assert beside.missing[0].command.startswith("ps -o lstart= -p <pid>")


def test_an_undated_listing_beside_dated_counters_keeps_the_verdict_and_says_which_part(
    tmp_path: Path,
) -> None:
    """The counters (nstat, every snapshot dated) carry the verdict's time; the ESTABLISHED
    count beside them comes from the undated listing: the verdict stands, saying so."""
    (ss,) = written(tmp_path, ss_txt=UNDATED_SS)
    counters = FIXTURES_DIR / "nstat" / "nstat-az-series.txt"
    churn = findings(parsed(ss, counters))["short_lived_connections"]
    assert churn.verdict == "confirmed", churn.summary
    assumed = {Path(e.artifact or "").name: e.time_assumed for e in churn.evidence if e.artifact}
    assert assumed == {"ss.txt": "placed_at_upload", counters.name: None}
    assert (
        "Part of what this rests on has an assumed time (ss.txt holds no timestamp, so its"
        " time was taken as the upload time, 2026-11-25T09:46:40Z)"
    ) in churn.summary
