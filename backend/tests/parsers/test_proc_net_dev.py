"""/proc/net/dev: golden numbers from a capture on this machine (fixtures/proc_net_dev)."""

from __future__ import annotations

import pytest

from rootline.parsers import netstat, proc_net_dev
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from tests.conftest import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "proc_net_dev"
CONTEXT = ParseContext(default_time_ms=1_000)
T1, T2, T3 = 1795707271064, 1795707273101, 1795707275131


def one(result: ParseResult, name: str, **labels: str) -> SeriesData:
    found = [s for s in result.series if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels)
    return found[0]


@pytest.fixture(scope="module")
def series() -> ParseResult:
    result = proc_net_dev.parse((FIXTURES / "proc-net-dev-series.txt").read_text(), CONTEXT)
    assert result.status == "parsed", result.diagnostics
    return result


def test_totals_are_the_columns(series: ParseResult) -> None:
    lo = {"interface": "lo"}
    assert list(one(series, "net.if.rx_bytes.total", **lo).values) == [
        355469670,
        355494476,
        355510943,
    ]
    assert list(one(series, "net.if.rx_ok.total", **lo).values) == [106156, 106409, 106584]
    assert list(one(series, "net.if.tx_ok.total", **lo).values) == [106156, 106409, 106584]
    assert one(series, "net.if.rx_bytes.total", **lo).unit == "bytes"
    assert list(one(series, "net.if.tx_colls.total", interface="eth0").values) == [0, 0, 0]


def test_rates_under_netstat_and_nmon_names(series: ParseResult) -> None:
    # lo: 106409 - 106156 = 253 packets in 2.037 s; 106584 - 106409 = 175 in 2.030 s.
    packets = one(series, "net.if.rx_ok", interface="lo")
    assert list(packets.times_ms) == [T2, T3]
    assert packets.values == pytest.approx([253 / 2.037, 175 / 2.030])
    assert one(series, "net.packets_in", **{"if": "lo"}).values == pytest.approx(packets.values)
    # 355494476 - 355469670 = 24806 bytes in 2.037 s, as KB/s (1024 bytes).
    kbs = one(series, "net.read_kbs", **{"if": "lo"})
    assert (kbs.unit, kbs.values[0]) == ("KB/s", pytest.approx(24806 / 1024 / 2.037))
    assert one(series, "net.if.tx_bytes", interface="lo").values[1] == pytest.approx(16467 / 2.030)
    assert list(one(series, "net.packets_out", **{"if": "eth0"}).values) == [0.0, 0.0]


def test_same_names_as_netstat_i_for_the_same_columns() -> None:
    text = "Kernel Interface table\nIface MTU RX-OK RX-ERR RX-DRP RX-OVR TX-OK TX-ERR TX-DRP TX-OVR Flg\n"
    text += "lo 65536 106156 0 0 0 106156 0 0 0 LRU\n"
    from_netstat = {s.name for s in netstat.parse(text, CONTEXT).series}
    single = proc_net_dev.parse((FIXTURES / "proc-net-dev.txt").read_text(), CONTEXT)
    assert from_netstat <= {s.name for s in single.series}


def test_rows_of_the_wrong_width_are_diagnosed() -> None:
    text = (FIXTURES / "proc-net-dev.txt").read_text().splitlines()
    text.append("  eth9: 1 2 3")
    result = proc_net_dev.parse("\n".join(text), CONTEXT)
    assert result.status == "partial"
    assert result.diagnostics[0].line == len(text)
    assert "3 numbers" in result.diagnostics[0].message


def test_empty_input_fails_with_a_reason() -> None:
    result = proc_net_dev.parse("", CONTEXT)
    assert (result.status, bool(result.diagnostics)) == ("failed", True)
