"""The setting or command an action item copies from a remedy, for every rule's remedies."""

from __future__ import annotations

import tomllib

import pytest

from rootline.actions.remedies import TITLE_MAX, remedy_title, setting_or_command
from rootline.detectors import engine


@pytest.mark.parametrize(
    ("remedy", "expected"),
    [
        (
            "Let autotuning reach the BDP: sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304' and"
            " for the receiver net.ipv4.tcp_rmem='4096 131072 4194304' (keep"
            " net.ipv4.tcp_moderate_rcvbuf=1).",
            "sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'\n"
            "net.ipv4.tcp_rmem='4096 131072 4194304'\nnet.ipv4.tcp_moderate_rcvbuf=1",
        ),
        (
            "If SO_SNDBUF must stay fixed, raise its ceiling: sysctl -w net.core.wmem_max=4194304"
            " (and net.core.rmem_max).",
            "sysctl -w net.core.wmem_max=4194304",
        ),
        # A bare setting already in a sysctl -w is not repeated.
        (
            "Keep the JVM out of swap: vm.swappiness=1 (sysctl -w vm.swappiness=1)",
            "sysctl -w vm.swappiness=1",
        ),
        ("Bound pauses: G1 with -XX:MaxGCPauseMillis=100.", "-XX:MaxGCPauseMillis=100"),
        (
            "Find the consumer: `top -H -p PID` and `jstack PID`; `threads`.",
            "top -H -p PID\njstack PID",
        ),
        (
            'More: <dubbo:reference connections="4"/> per pair.',
            '<dubbo:reference connections="4"/>',
        ),
        ("Spread the heartbeats: add jitter.", ""),
    ],
)
def test_setting_or_command(remedy: str, expected: str) -> None:
    assert setting_or_command(remedy) == expected


def test_every_remedy_gets_a_short_title() -> None:
    for rule in sorted(engine.rules_dir().glob("*.toml")):
        for remedy in tomllib.loads(rule.read_text()).get("remedies", []):
            title = remedy_title(remedy["text"])
            assert 0 < len(title) <= TITLE_MAX, (rule.name, title)
    assert (
        remedy_title("Let autotuning reach the BDP: sysctl -w x=1")
        == "Let autotuning reach the BDP"
    )
