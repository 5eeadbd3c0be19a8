"""The `rootline` command's offline verbs: the JSON shapes tools rely on, and exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rootline.detectors.registry import IDS
from tests.conftest import FIXTURES_DIR

ROOTLINE = str(Path(sys.executable).with_name("rootline"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ROOTLINE, *args], capture_output=True, text=True, timeout=300)


def test_parse_json_shape_for_one_file() -> None:
    path = FIXTURES_DIR / "gc_unified" / "g1-time-uptime-level-tags.log"
    done = run("parse", "--json", str(path))
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert set(body) == {"path", "kind", "status", "diagnostics", "from", "to", "series", "events"}
    assert (body["kind"], body["status"]) == ("gc_unified", "parsed")
    assert body["from"] < body["to"]
    series = body["series"][0]
    assert set(series) == {"name", "labels", "unit", "points", "min", "max"}
    pauses = next(e for e in body["events"] if e["kind"] == "gc_pause")
    assert set(pauses) == {"kind", "count", "total_duration_ms", "max_duration_ms"}
    assert pauses["count"] > 0


def test_parse_json_gives_a_list_for_several_files() -> None:
    files = [FIXTURES_DIR / "ss" / "ss-s.txt", FIXTURES_DIR / "nstat" / "nstat-az.txt"]
    body = json.loads(run("parse", "--json", *map(str, files)).stdout)
    assert [item["kind"] for item in body] == ["ss", "nstat"]


def test_parse_prints_a_readable_summary() -> None:
    done = run("parse", str(FIXTURES_DIR / "ss" / "ss-s.txt"))
    assert "ss (parsed)" in done.stdout


def test_analyze_json_lists_every_check_once(tmp_path: Path) -> None:
    for name in (
        "ss/ss-tinm-loop.txt",
        "nstat/nstat-az-series.txt",
        "nmon/linux-debian12-nmon16n-stress-60x1s.nmon",
    ):
        source = FIXTURES_DIR / name
        (tmp_path / source.name).write_bytes(source.read_bytes())
    done = run("analyze", "--json", str(tmp_path))
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert list(body) == ["findings"]
    assert sorted(f["id"] for f in body["findings"]) == sorted(IDS)
    for finding in body["findings"]:
        assert finding["verdict"] in {"confirmed", "likely", "ruled_out", "insufficient_data"}
        assert finding["summary"]


def test_analyze_exits_non_zero_only_when_nothing_was_read(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("not a capture\n")
    done = run("analyze", str(junk))
    assert done.returncode == 2
    assert "nothing could be read" in done.stderr
    readable = run("analyze", str(junk), str(FIXTURES_DIR / "ss" / "ss-s.txt"))
    assert readable.returncode == 0


def test_openapi_prints_the_document_the_frontend_types_come_from() -> None:
    result = run("openapi")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert "/api/incidents/{incident_id}/timeline" in document["paths"]
    generated = (Path(__file__).parents[2] / "frontend" / "src" / "api" / "schema.d.ts").read_text()
    stale = [path for path in document["paths"] if f'"{path}"' not in generated]
    assert not stale, f"frontend/src/api/schema.d.ts is stale, regenerate it (README): {stale}"


def test_the_committed_frontend_types_are_what_the_document_generates(tmp_path: Path) -> None:
    """The whole of schema.d.ts, regenerated and compared: a changed parameter, field or
    answer shape is drift too, not only a missing path."""
    frontend = Path(__file__).parents[2] / "frontend"
    generator = frontend / "node_modules" / ".bin" / "openapi-typescript"
    if not generator.exists():
        pytest.skip("frontend/node_modules is not installed (make setup)")
    document = tmp_path / "openapi.json"
    result = run("openapi")
    assert result.returncode == 0, result.stderr
    document.write_text(result.stdout)
    generated = tmp_path / "schema.d.ts"
    made = subprocess.run(
        [str(generator), str(document), "-o", str(generated)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    committed = (frontend / "src" / "api" / "schema.d.ts").read_text()
    assert generated.read_text() == committed, (
        "frontend/src/api/schema.d.ts is stale: cd frontend && npm run api-types"
    )


def test_analyze_anchors_an_uptime_only_gc_log_with_jvm_start_and_warns_without() -> None:
    log = str(FIXTURES_DIR / "gc_unified" / "parallel-uptime.log")
    relative = run("analyze", log)
    assert relative.returncode == 0
    (warning,) = [line for line in relative.stderr.splitlines() if line.startswith("warning:")]
    assert "parallel-uptime.log" in warning and "relative" in warning and "--jvm-start" in warning
    anchored = run("analyze", "--json", "--jvm-start", "2026-11-21T07:00:00Z", log)
    assert anchored.returncode == 0 and "warning:" not in anchored.stderr
    parsed = run("parse", "--json", "--jvm-start", "2026-11-21T07:00:00Z", log)
    assert json.loads(parsed.stdout)["from"].startswith("2026-11-21T07:00")


def test_analyze_warns_when_log_lines_were_put_on_todays_date(tmp_path: Path) -> None:
    """A log with a time of day only is put on today's date (the server's artifact listing
    says so; a corpus audit found the CLI silent, a Dubbo rejection stamped with today)."""
    undated = tmp_path / "provider.log"
    undated.write_text(
        "17:54:34,026 WARN [DubboServerHandler] Thread pool is EXHAUSTED! Thread Name:"
        " DubboServerHandler-10.0.0.1:20880, Pool Size: 300 (active: 300, core: 300,"
        " max: 300, largest: 300)\n"
    )
    dated = tmp_path / "dated.log"
    dated.write_text("2026-11-21 " + undated.read_text())
    (warning,) = [
        line for line in run("analyze", str(undated)).stderr.splitlines() if "warning:" in line
    ]
    assert "provider.log" in warning and "app_log.date_assumed" in warning
    assert "warning:" not in run("analyze", str(dated)).stderr


def test_analyze_warns_when_a_listing_holds_no_timestamp(tmp_path: Path) -> None:
    """An ss listing without a timestamp line sits at the time of the run: said at once, as
    the server's artifact listing says "placed at the upload time"; a loop with `date` lines
    has its own times."""
    listing = FIXTURES_DIR / "ss" / "ss-tan.txt"
    (warning,) = [
        line for line in run("analyze", str(listing)).stderr.splitlines() if "warning:" in line
    ]
    assert "ss-tan.txt: no timestamp in the file" in warning and "date -Is" in warning
    loop = run("analyze", str(FIXTURES_DIR / "ss" / "ss-tinm-loop.txt"))
    assert loop.returncode == 0 and "warning:" not in loop.stderr
