"""What an action item copies from a remedy: a title and the setting or command to apply.

Remedies are sentences written for people (``docs/checklist.md``); the settings and commands
in them follow a few shapes, picked out here in text order:

>>> setting_or_command("Let autotuning reach the BDP: sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'"
...     " and for the receiver net.ipv4.tcp_rmem='4096 131072 4194304'.")
"sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'\\nnet.ipv4.tcp_rmem='4096 131072 4194304'"
>>> setting_or_command("Size the heap (-Xms = -Xmx, e.g. -Xmx8g); see `jstat -gcutil PID 1s`.")
'-Xmx8g\\njstat -gcutil PID 1s'
>>> setting_or_command("Spread the heartbeats: add jitter.")
''
>>> remedy_title("If SO_SNDBUF must stay fixed, raise its ceiling: sysctl -w net.core.wmem_max=1")
'If SO_SNDBUF must stay fixed, raise its ceiling'
"""

from __future__ import annotations

import re

TITLE_MAX = 120

# One alternation, so matches never overlap: a `sysctl -w` keeps its setting to itself.
_SHAPES = re.compile(
    "|".join(
        (
            # sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'
            r"sysctl -w [\w.]+=(?:'[^']*'|\"[^\"]*\"|[^\s,;()]+)",
            # a command quoted in backticks (more than one word): `top -H -p PID`
            r"`(?P<quoted>[^`\s][^`]*\s[^`]*[^`\s])`",
            # an XML setting: <dubbo:reference connections="4"/>
            r"<\w+:[^<>]*/>",
            # JVM flags with a value: -XX:MaxGCPauseMillis=100, -XX:+UseZGC, -Xmx8g, -Dhttp.maxConnections=200
            r"-XX:[+-]?\w+(?:=[^\s,;()]+)?|-Xm[sxn]\w+|-D[\w.]+=[^\s,;()]+",
            # a bare kernel setting: net.core.netdev_max_backlog=16384
            r"(?<![\w.-])(?:net|vm|kernel|fs)\.[\w.]+=(?:'[^']*'|[^\s,;()]+)",
        )
    )
)


def setting_or_command(remedy: str) -> str:
    """The settings and commands a remedy names, one a line in text order ('' when none)."""
    found: list[str] = []
    for match in _SHAPES.finditer(remedy):
        text = match.group("quoted") or match.group(0)
        text = text.rstrip(".")
        if any(text in earlier for earlier in found):
            continue
        found = [earlier for earlier in found if earlier not in text]
        found.append(text)
    return "\n".join(found)


def remedy_title(remedy: str) -> str:
    """A short title for an item made from ``remedy``: its words up to the first colon (or
    sentence end), at most `TITLE_MAX` characters."""
    head = re.split(r":\s|\.\s|;\s", remedy.strip(), maxsplit=1)[0].strip().rstrip(".")
    if len(head) <= TITLE_MAX:
        return head
    return head[: TITLE_MAX - 1].rstrip() + "…"
