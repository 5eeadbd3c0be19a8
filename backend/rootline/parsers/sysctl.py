"""Kernel settings: ``sysctl -a`` (or a subset) and ``grep -r . /proc/sys/net``.

Produced by ``sysctl -a``, ``sysctl net.ipv4 net.core``, ``sysctl -e ...`` or
``grep -r . /proc/sys/net``, optionally after a timestamp line::

    net.core.somaxconn = 4096
    net.ipv4.tcp_wmem = 4096	16384	4194304
    net.ipv4.tcp_slow_start_after_idle=1
    /proc/sys/net/ipv4/tcp_rmem:4096	131072	6291456
    sysctl: permission denied on key 'fs.protected_hardlinks'

Every setting becomes a fact: key as sysctl names it (``/proc/sys/net/ipv4/tcp_rmem`` is
``net.ipv4.tcp_rmem``; a dot inside a path component, as in the interface ``eth0.100``,
becomes ``/`` as sysctl writes it), value as written with runs of whitespace made one space
(``4096 16384 4194304``). Settings are not series. A fact carries the snapshot's time when a
timestamp line stands above it, else no time. A key written on several consecutive lines
(``dev.cdrom.info``) gives one fact, the lines joined by a newline.

``sysctl`` warnings about keys it could not read (permission denied, reading key ...) are
known no-ops: the key is simply missing, which is not a parse error.

>>> from rootline.parsers.base import ParseContext
>>> [(f.key, f.value) for f in parse("net.ipv4.tcp_wmem = 4096\\t16384  4194304\\n", ParseContext()).facts]
[('net.ipv4.tcp_wmem', '4096 16384 4194304')]
"""

from __future__ import annotations

import re

from rootline.parsers.base import Fact, ParseContext, ParseResult, iter_lines
from rootline.parsers.timestamps import iter_snapshots

KIND = "sysctl"

RULES: dict[str, re.Pattern[str]] = {
    # ``net.core.somaxconn = 4096`` and ``net.core.somaxconn=4096``.
    "SETTING": re.compile(
        r"^(?P<key>[A-Za-z0-9_][\w\-/*+:@]*(?:\.[\w\-/*+:@]+)+)\s*=\s?(?P<value>.*)$"
    ),
    # ``/proc/sys/net/ipv4/tcp_rmem:4096 131072 6291456`` (``grep -r . /proc/sys/net``).
    "PROC_SYS": re.compile(r"^/proc/sys/(?P<path>[^:\s]+):(?P<value>.*)$"),
    # ``sysctl: permission denied on key 'x'``, ``sysctl: reading key "x"``: keys it could not read.
    "SYSCTL_WARNING": re.compile(
        r"^sysctl: (?:permission denied|reading key|cannot stat|error reading|unknown key)"
    ),
    # ``grep: /proc/sys/...: Permission denied`` / ``Input/output error`` from the grep form.
    "GREP_WARNING": re.compile(r"^grep: /proc/sys/"),
}


def sniff(head: str) -> float:
    lines = [line for line in head.splitlines()[:400] if line.strip()]
    if not lines:
        return 0.0
    settings = sum(
        1 for line in lines if RULES["SETTING"].match(line) or RULES["PROC_SYS"].match(line)
    )
    keys_with_known_roots = sum(
        1
        for line in lines
        if line.startswith(
            ("net.", "kernel.", "vm.", "fs.", "/proc/sys/", "abi.", "dev.", "crypto.")
        )
    )
    if settings >= 3 and keys_with_known_roots * 2 >= len(lines):
        return 0.9
    if settings >= 1 and keys_with_known_roots == len(lines):
        return 0.7
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    lines = list(iter_lines(text))
    for snapshot in iter_snapshots(lines, context.timezone, context.default_time_ms):
        time_ms = snapshot.time_ms if snapshot.separator_line else None
        previous: Fact | None = None
        for index in range(snapshot.start, snapshot.stop):
            line = lines[index]
            if not line or line.isspace():
                continue
            setting = _read_setting(line)
            if setting is None:
                if not (RULES["SYSCTL_WARNING"].match(line) or RULES["GREP_WARNING"].match(line)):
                    result.diagnose(index + 1, f"not a sysctl setting: {line[:80]!r}")
                continue
            key, value = setting
            if previous is not None and previous.key == key:
                previous.value += "\n" + value
                continue
            previous = Fact(key, value, time_ms)
            result.facts.append(previous)
    if not result.facts:
        result.diagnose(0, "no sysctl settings found")
    return result


def _read_setting(line: str) -> tuple[str, str] | None:
    m = RULES["PROC_SYS"].match(line)
    if m:
        # sysctl writes a dot inside a component (``eth0.100``) as ``/``.
        key = ".".join(part.replace(".", "/") for part in m["path"].split("/"))
        return key, " ".join(m["value"].split())
    m = RULES["SETTING"].match(line)
    if m:
        return m["key"], " ".join(m["value"].split())
    return None
