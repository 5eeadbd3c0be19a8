"""netstat -s, nstat -az and /proc/net/{snmp,netstat} name the same counter the same way.

The four fixtures were captured one right after the other on this machine under load
(``netstat -s; nstat -az; cat /proc/net/snmp; cat /proc/net/netstat``, see the READMEs), so
every counter also reads in capture order: netstat -s <= nstat <= /proc/net.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from rootline.parsers import netstat_s, nstat, proc_net
from rootline.parsers.base import ParseContext
from rootline.parsers.snmp_counters import GAUGE_UNITS
from tests.conftest import FIXTURES_DIR

KEY_COUNTERS = (
    "TcpActiveOpens",
    "TcpPassiveOpens",
    "TcpAttemptFails",
    "TcpEstabResets",
    "TcpInSegs",
    "TcpOutSegs",
    "TcpRetransSegs",
    "TcpInErrs",
    "TcpOutRsts",
    "TcpExtListenOverflows",
    "TcpExtListenDrops",
    "TcpExtTW",
    "TcpExtTCPTimeouts",
    "TcpExtTCPSynRetrans",
    "TcpExtTCPLostRetransmit",
    "TcpExtTCPAbortOnData",
    "TcpExtTCPToZeroWindowAdv",
    "TcpExtTCPFromZeroWindowAdv",
    "TcpExtTCPWantZeroWindowAdv",
    "IpExtInOctets",
)


def _counters(kind_module: ModuleType, *names: str) -> dict[str, float]:
    text = "".join((FIXTURES_DIR / kind_module.KIND / n).read_text() for n in names)
    result = kind_module.parse(text, ParseContext(default_time_ms=1))
    assert result.status == "parsed"
    return {f.key.removeprefix("netstat."): float(f.value) for f in result.facts}


@pytest.fixture(scope="module")
def formats() -> dict[str, dict[str, float]]:
    return {
        "netstat_s": _counters(netstat_s, "netstat-s.txt"),
        "nstat": _counters(nstat, "nstat-az.txt"),
        "proc_net": _counters(proc_net, "proc-net-snmp.txt", "proc-net-netstat.txt"),
    }


def test_key_counters_have_one_name_in_every_format(formats: dict[str, dict[str, float]]) -> None:
    for name in KEY_COUNTERS:
        for kind, counters in formats.items():
            assert name in counters, (kind, name)


def test_every_netstat_s_name_is_an_nstat_name(formats: dict[str, dict[str, float]]) -> None:
    # netstat -s leaves most zero counters out, so its names are a subset.
    assert set(formats["netstat_s"]) <= set(formats["nstat"])


def test_every_nstat_snmp_name_is_a_proc_net_name(formats: dict[str, dict[str, float]]) -> None:
    snmp_names = {
        n for n in formats["nstat"] if not n.startswith(("Ip6", "Icmp6", "Udp6", "UdpLite6"))
    }
    assert snmp_names <= set(formats["proc_net"])
    assert not set(GAUGE_UNITS) & set(
        formats["nstat"]
    )  # nstat skips gauges; we never make them facts


def test_values_follow_capture_order(formats: dict[str, dict[str, float]]) -> None:
    for name in KEY_COUNTERS:
        assert formats["netstat_s"][name] <= formats["nstat"][name] <= formats["proc_net"][name], (
            name
        )
    # Captured within milliseconds: the listen overflows did not move in between.
    assert (
        formats["netstat_s"]["TcpExtListenOverflows"]
        == formats["proc_net"]["TcpExtListenOverflows"]
    )
