"""One lowercase set of TCP state names shared by the ss and netstat parsers.

ss prints ``ESTAB``, ``SYN-SENT``, ``TIME-WAIT``, ``UNCONN`` ...; netstat prints
``ESTABLISHED``, ``SYN_SENT``, ``TIME_WAIT`` ...; ``ss -s`` writes ``synrecv`` and
``timewait``; /proc/net/tcp writes hex codes ``01``..``0B``. All become one of
:data:`TCP_STATES`, used in series names ``tcp.state.<state>``.

>>> normalise_tcp_state("ESTABLISHED"), normalise_tcp_state("TIME-WAIT"), normalise_tcp_state("06")
('estab', 'time-wait', 'time-wait')
"""

from __future__ import annotations

TCP_STATES = (
    "estab",
    "syn-sent",
    "syn-recv",
    "fin-wait-1",
    "fin-wait-2",
    "time-wait",
    "close",
    "close-wait",
    "last-ack",
    "listen",
    "closing",
)

_ALIASES = {
    "established": "estab",
    "synsent": "syn-sent",
    "synrecv": "syn-recv",
    "synreceived": "syn-recv",
    "synrcvd": "syn-recv",  # BSD netstat
    "finwait1": "fin-wait-1",
    "finwait2": "fin-wait-2",
    "timewait": "time-wait",
    "closed": "close",
    "unconn": "close",  # ss's name for a closed (or unconnected udp) socket
    "closewait": "close-wait",
    "lastack": "last-ack",
    "listening": "listen",
    "newsynrecv": "syn-recv",  # kernel's request-socket state, shown by some ss builds
}
# /proc/net/tcp state column (include/net/tcp_states.h).
_PROC_HEX = {
    "01": "estab",
    "02": "syn-sent",
    "03": "syn-recv",
    "04": "fin-wait-1",
    "05": "fin-wait-2",
    "06": "time-wait",
    "07": "close",
    "08": "close-wait",
    "09": "last-ack",
    "0A": "listen",
    "0B": "closing",
    "0C": "syn-recv",
}
_CACHE: dict[str, str] = {}


def normalise_tcp_state(name: str) -> str:
    """The shared lowercase name of a TCP state as any tool writes it.

    Unknown names come back lowercased with ``_`` as ``-`` so that nothing is lost.
    """
    cached = _CACHE.get(name)
    if cached is not None:
        return cached
    hex_state = _PROC_HEX.get(name.upper())
    if hex_state is not None:
        state = hex_state
    else:
        lowered = name.strip().lower().replace("_", "-")
        squashed = lowered.replace("-", "")
        state = lowered if lowered in TCP_STATES else _ALIASES.get(squashed, lowered)
    if len(_CACHE) < 1024:  # bounded: names come from input files
        _CACHE[name] = state
    return state
