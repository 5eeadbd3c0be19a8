"""FreeBSD and macOS ``sysctl -a`` (or a subset): ``name: value`` settings.

Produced by ``sysctl -a``, ``sysctl net.inet.tcp kern.ipc`` ..., optionally after a
timestamp line::

    kern.ipc.somaxconn: 128
    kern.ipc.maxsockbuf: 8388608
    net.inet.tcp.sendspace: 131072
    net.inet.ip.portrange.first: 49152
    kern.clockrate: { hz = 100, tick = 10000, profhz = 100, stathz = 100 }

Every setting becomes a fact under its own BSD name, value as written with runs of
whitespace made one space. A value printed on several lines (FreeBSD's
``kern.conftxt``, ``kern.geom.confxml``) continues until the next ``name: value`` line and
gives one fact, the lines joined by a newline (blank lines inside it are kept as known
no-ops). A fact carries the snapshot's time when a timestamp line stands above it.

Where a BSD setting means what a Linux one means, the Linux fact is written too, so the
checklist reads both hosts alike:

==============================================  ===============================================
BSD                                             also written as
==============================================  ===============================================
``kern.ipc.somaxconn`` (macOS, old FreeBSD) /   ``net.core.somaxconn``: the cap put on the
``kern.ipc.soacceptqueue`` (FreeBSD >= 10)      ``backlog`` of ``listen()``
``net.inet.ip.portrange.first`` + ``.last``     ``net.ipv4.ip_local_port_range`` = ``first last``:
                                                the ephemeral ports ``connect()`` picks from
==============================================  ===============================================

Not mapped, because the meaning differs: ``net.inet.tcp.sendspace`` / ``recvspace`` are the
default buffer sizes of a new socket (grown by ``sendbuf_auto`` / ``recvbuf_auto`` up to
``sendbuf_max`` / ``recvbuf_max``), while Linux's ``tcp_wmem`` / ``tcp_rmem`` are
min/default/max triples; ``net.inet.tcp.msl`` sets TIME-WAIT to twice its value where Linux's
TIME-WAIT is fixed at 60 s; ``kern.ipc.maxsockbuf`` counts buffer overhead, unlike
``net.core.wmem_max``. They stay facts under their BSD names.

>>> from rootline.parsers.base import ParseContext
>>> [(f.key, f.value) for f in parse("kern.ipc.somaxconn: 128\\n", ParseContext()).facts]
[('kern.ipc.somaxconn', '128'), ('net.core.somaxconn', '128')]
"""

from __future__ import annotations

import re

from rootline.parsers.base import Fact, ParseContext, ParseResult, iter_lines
from rootline.parsers.timestamps import iter_snapshots

KIND = "sysctl_bsd"

RULES: dict[str, re.Pattern[str]] = {
    # ``kern.ipc.somaxconn: 128`` (a dotted name starting with a lower-case root).
    "SETTING": re.compile(r"^(?P<key>[a-z][a-z0-9_]*(?:\.[^\s:]+)+): ?(?P<value>.*)$"),
    # ``sysctl: unknown oid 'x'`` / ``sysctl: x: Operation not permitted``: keys it could not read.
    "WARNING": re.compile(r"^sysctl: "),
}
# Top-level MIB names of FreeBSD and macOS: a line must start with one to be a setting.
ROOTS = frozenset(
    {"kern", "vm", "vfs", "net", "debug", "hw", "machdep", "user", "p1003_1b", "compat",
     "security", "dev", "kstat", "sysctl", "audit", "regression", "hptmv", "hptnr", "hptrr"}
)  # fmt: skip
_SOMAXCONN = ("kern.ipc.somaxconn", "kern.ipc.soacceptqueue")


def sniff(head: str) -> float:
    lines = [line for line in head.splitlines()[:400] if line.strip()]
    if not lines:
        return 0.0
    settings = [m for m in map(RULES["SETTING"].match, lines) if m is not None]
    rooted = [m for m in settings if m["key"].partition(".")[0] in ROOTS]
    bsd_only = any(m["key"].startswith(("kern.", "net.inet", "hw.", "machdep.")) for m in rooted)
    if len(rooted) >= 3 and bsd_only and len(rooted) * 10 >= len(lines) * 3:
        return 0.9
    if rooted and bsd_only and len(rooted) == len(lines):
        return 0.7
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    lines = list(iter_lines(text))
    for span in iter_snapshots(lines, context.timezone, context.default_time_ms):
        time_ms = span.time_ms if span.separator_line else None
        current: Fact | None = None
        snapshot: list[Fact] = []
        for index in range(span.start, span.stop):
            line = lines[index]
            m = RULES["SETTING"].match(line)
            if m and m["key"].partition(".")[0] in ROOTS:
                current = Fact(m["key"], " ".join(m["value"].split()), time_ms)
                snapshot.append(current)
                continue
            if RULES["WARNING"].match(line):
                current = None
                continue
            if current is not None:  # the next line of a multi-line value
                if line.strip():
                    current.value += "\n" + " ".join(line.split())
                continue
            if line.strip():
                result.diagnose(index + 1, f"not a BSD sysctl setting: {line[:80]!r}")
        result.facts.extend(snapshot)
        result.facts.extend(_linux_equivalents(snapshot, time_ms))
    if not result.facts:
        result.diagnose(0, "no BSD sysctl settings found")
    return result


def _linux_equivalents(facts: list[Fact], time_ms: int | None) -> list[Fact]:
    values = {f.key: f.value for f in facts}
    found: list[Fact] = []
    for key in _SOMAXCONN:
        if key in values:
            found.append(Fact("net.core.somaxconn", values[key], time_ms))
            break
    first = values.get("net.inet.ip.portrange.first")
    last = values.get("net.inet.ip.portrange.last")
    if first and last:
        found.append(Fact("net.ipv4.ip_local_port_range", f"{first} {last}", time_ms))
    return found
