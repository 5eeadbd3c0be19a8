"""sysctl: settings as facts, the /proc/sys path form, warnings as no-ops, snapshot times."""

from __future__ import annotations

import pytest

from rootline.parsers import sysctl
from rootline.parsers.base import ParseContext
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "sysctl"


def _facts(text: str) -> dict[str, str]:
    return {f.key: f.value for f in sysctl.parse(text, ParseContext()).facts}


def test_full_dump_has_one_fact_per_key() -> None:
    text = (FIXTURES / "sysctl-a.txt").read_text()
    keys = {line.split(" = ", 1)[0] for line in text.splitlines()}
    facts = _facts(text)
    assert set(facts) == keys
    wmem = next(line for line in text.splitlines() if line.startswith("net.ipv4.tcp_wmem ="))
    assert facts["net.ipv4.tcp_wmem"] == " ".join(wmem.split(" = ", 1)[1].split())
    assert facts["net.ipv4.tcp_slow_start_after_idle"] in ("0", "1")


def test_non_root_dump_ignores_permission_warnings() -> None:
    text = (FIXTURES / "sysctl-a-nonroot.txt").read_text()
    result = sysctl.parse(text, ParseContext())
    warnings = [line for line in text.splitlines() if line.startswith("sysctl: permission denied")]
    assert warnings  # captured as user nobody
    assert result.status == "parsed"
    assert "kernel.cad_pid" not in {f.key for f in result.facts}


def test_proc_sys_path_form_matches_sysctl_names() -> None:
    paths = _facts((FIXTURES / "proc-sys-net-ipv4-tcp.txt").read_text())
    named = _facts((FIXTURES / "sysctl-net.txt").read_text())
    assert paths["net.ipv4.tcp_rmem"] == named["net.ipv4.tcp_rmem"]
    common = set(paths) & set(named)
    assert len(common) > 50
    stable = {
        "net.ipv4.tcp_wmem",
        "net.ipv4.tcp_max_syn_backlog",
        "net.ipv4.tcp_slow_start_after_idle",
    }
    assert all(paths[k] == named[k] for k in stable)


def test_compact_form_dotted_component_and_timestamp() -> None:
    text = "=== 2026-11-21T07:00:00Z ===\nnet.core.somaxconn=4096\n/proc/sys/net/ipv4/conf/eth0.100/rp_filter:1\n"
    result = sysctl.parse(text, ParseContext(default_time_ms=5))
    assert [(f.key, f.value, f.time_ms) for f in result.facts] == [
        ("net.core.somaxconn", "4096", 1795244400000),
        ("net.ipv4.conf.eth0/100.rp_filter", "1", 1795244400000),
    ]


def test_without_timestamp_facts_carry_no_time() -> None:
    result = sysctl.parse("net.core.somaxconn = 128\n", ParseContext(default_time_ms=5))
    assert result.facts[0].time_ms is None


def test_multi_line_value_is_one_fact() -> None:
    path = CORPUS_DIR / "netstat" / "sysctl-a-centos77-jc.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    facts = _facts(path.read_text())
    assert facts["dev.cdrom.info"].startswith("CD-ROM information, Id: cdrom.c 3.20 2003/12/17\n")
    assert facts["net.ipv4.tcp_wmem"] == "4096 16384 4194304"
    assert facts["net.core.somaxconn"] == "128"


def test_junk_line_is_diagnosed() -> None:
    result = sysctl.parse("net.core.somaxconn = 128\nhello world\n", ParseContext())
    assert [d.line for d in result.diagnostics] == [2]
    assert result.status == "partial"
