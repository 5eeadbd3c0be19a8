"""Redacted share links: addresses, host names and ports as consistent pseudonyms.

A redacted link shows the incident with every IP address (v4 and v6), host name and port
replaced: ``sender`` reads ``host-a``, ``10.77.0.1:5001`` reads ``10.0.0.1:port-1``,
``2001:db8::7`` reads ``fd00::1``; the same original always gets the same pseudonym, and no
two originals share one. It is one transformation of every JSON response of the shared
routes (`RedactSharedResponses`): each string is rewritten by a `Redactor` built per request
from the share's stored pseudonyms and the names the incident holds (`Known`), so a route
added later is covered without a line of its own.

What is found where:

- host names: the incident's known ones only (artifact, series, event, fact and
  annotation hosts and ``host`` labels): a name is not recognisable by its shape. Matched
  whole (not inside a longer word: ``web-1`` is not found in ``web-10``), in any case.
- IPv4 and IPv6 literals anywhere in any text, with a port after them
  (``10.0.0.1:80``, ``[2001:db8::1]:443``, ``*:8080``); the unspecified and loopback
  addresses (``0.0.0.0``, ``127.0.0.1``, ``::``, ``::1``) name no host and are kept.
- ports: after an address or a known host, in a ``port`` label (or a key ending in
  ``_port``), and a known port after the word "port".

Pseudonyms of the known names are numbered in sorted order when the link is made and kept
with it; names that appear later get the next numbers. An address seen only in free text
gets one derived from a keyed hash, stable for the share (``10.255.x.y``).

>>> known = Known(hosts={"db-7"}, addresses={"10.77.0.1", "10.77.0.2"}, ports={"5432"})
>>> redactor = Redactor(assign(known), key=b"k")
>>> redactor.text("db-7 (rootline-db-7.tar.gz) talks to 10.77.0.2:5432 from 10.77.0.1:51000")
'host-a (rootline-host-a.tar.gz) talks to 10.0.0.2:port-1 from 10.0.0.1:port-xf895'
>>> redactor.text("DB-7 listens on port 5432, see [::ffff:10.77.0.1]:5432; 127.0.0.1 stays")
'host-a listens on port port-1, see [::ffff:10.0.0.1]:port-1; 127.0.0.1 stays'
>>> redactor.text(r"failover to \\[::ffff:10.77.0.2\\]:5432")
'failover to \\\\[::ffff:10.0.0.2\\\\]:port-1'
>>> redactor.original("host-a")
'db-7'
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

Pseudonyms = dict[str, dict[str, str]]
KINDS = ("hosts", "addresses", "ports")

# Values under these keys are identifiers and enumerations the app relies on (a host named
# like a checklist id or a parser kind must not rename them); none holds a name or address.
STRUCTURAL_KEYS = frozenset(
    {
        "id",
        "kind",
        "status",
        "verdict",
        "effective_verdict",
        "verdict_override",
        "unit",
        "rules_version",
        "sha256",
        "requested_kind",
        "timezone",
        "event_kind",
        "threshold_name",
        "operator",
        "explained_by",
        "finding_id",
        "incident_id",
        "artifact_id",
        "parent_id",
        "prefix",
        "code",
    }
)

_V4 = r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_V6 = r"(?:[0-9A-Fa-f]{0,4}:){2,7}(?:" + _V4 + r"|[0-9A-Fa-f]{1,4})?"
_PORT = r"(?::(?P<{name}>\d{{1,5}})(?!\d))?"
_ADDRESS_PATTERNS = (
    # Brackets may come escaped (`\\[::1\\]:80`, Markdown the postmortem writes).
    r"(?P<open>\\?)\[(?P<v6b>" + _V6 + r")(?P<close>\\?)\]" + _PORT.format(name="v6b_port"),
    r"(?<![\w:.])(?P<v6>" + _V6 + r")(?![\w:.])",
    r"(?<![\w.])(?P<v4>" + _V4 + r")(?![\w]|\.\d)" + _PORT.format(name="v4_port"),
    r"(?<![\w*])\*:(?P<star_port>\d{1,5})(?!\d)",
)
_ADDRESS_PORT = re.compile(r"(" + _V4 + r"|\\?\[" + _V6 + r"\\?\]|\*):(\d{1,5})(?!\d)")
_NAME_EDGE_BEFORE = r"(?<![A-Za-z0-9_])"
_NAME_EDGE_AFTER = r"(?![A-Za-z0-9_])"


@dataclass
class Known:
    """The host names, addresses and ports an incident names (originals)."""

    hosts: set[str] = field(default_factory=set)
    addresses: set[str] = field(default_factory=set)
    ports: set[str] = field(default_factory=set)

    def add_host(self, host: str | None) -> None:
        if not host:
            return
        address = _address(host)
        if address is not None:
            self.add_address(address)
        else:
            self.hosts.add(host.lower())

    def add_address(self, address: str) -> None:
        parsed = _address(address)
        if parsed is not None and not _kept(parsed):
            self.addresses.add(parsed)

    def add_text(self, text: str) -> None:
        """Addresses with their ports (``10.0.0.1:80``) and bare addresses in a label value."""
        for address, port in _ADDRESS_PORT.findall(text):
            self.add_address(address.strip("[]\\"))
            if port:
                self.ports.add(str(int(port)))
        for match in re.finditer(_V4 + "|" + _V6, text):
            self.add_address(match.group(0))

    def add_labels(self, labels: Mapping[str, Any]) -> None:
        for key, value in labels.items():
            if not isinstance(value, str):
                continue
            if key == "host":
                self.add_host(value)
            elif _is_port_key(key) and value.isdigit():
                self.ports.add(str(int(value)))
            else:
                self.add_text(value)


def _address(text: str) -> str | None:
    """The canonical text of an IP address (an IPv4-mapped IPv6 one's IPv4 address), or
    None when ``text`` is not one."""
    try:
        parsed = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped.compressed
    return parsed.compressed


def _kept(address: str) -> bool:
    parsed = ipaddress.ip_address(address)
    return parsed.is_unspecified or parsed.is_loopback


def _is_port_key(key: str) -> bool:
    return key == "port" or key.endswith("_port")


def _host_name(index: int) -> str:
    """host-a ... host-z, host-aa, host-ab ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return f"host-{letters}"


def _v4_name(index: int) -> str:
    return f"10.0.{index // 254}.{index % 254 + 1}"


def _v6_name(index: int) -> str:
    return f"fd00::{index + 1:x}"


def assign(known: Known, previous: Pseudonyms | None = None) -> Pseudonyms:
    """Pseudonyms for every known name: ``previous`` ones kept, new names numbered after
    them in sorted order; no pseudonym is also an original (or another's pseudonym)."""
    previous = previous or {}
    originals = {name.lower() for name in known.hosts | known.addresses | known.ports}

    def extend(
        given: Mapping[str, str], names: Iterable[str], make: Callable[[int], str]
    ) -> dict[str, str]:
        mapping = dict(given)
        taken = set(mapping.values()) | originals
        index = len(mapping)
        for name in sorted(set(names) - set(mapping)):
            while make(index) in taken:
                index += 1
            mapping[name] = make(index)
            taken.add(mapping[name])
            index += 1
        return mapping

    def v6(address: str) -> bool:
        return ":" in address

    given = previous.get("addresses", {})
    v4_map = extend(
        {a: p for a, p in given.items() if not v6(a)},
        (a for a in known.addresses if not v6(a)),
        _v4_name,
    )
    v6_map = extend(
        {a: p for a, p in given.items() if v6(a)}, (a for a in known.addresses if v6(a)), _v6_name
    )
    return {
        "hosts": extend(previous.get("hosts", {}), known.hosts, _host_name),
        "addresses": {**v4_map, **v6_map},
        "ports": extend(previous.get("ports", {}), known.ports, lambda i: f"port-{i + 1}"),
    }


class Redactor:
    """Rewrites text and JSON values with the pseudonyms; ``key`` keys the hash that names an
    address no pseudonym was given for (seen only in free text)."""

    def __init__(self, pseudonyms: Pseudonyms, *, key: bytes) -> None:
        self._hosts = {h.lower(): p for h, p in pseudonyms.get("hosts", {}).items()}
        self._addresses = dict(pseudonyms.get("addresses", {}))
        self._ports = dict(pseudonyms.get("ports", {}))
        self._key = key
        patterns = list(_ADDRESS_PATTERNS)
        if self._hosts:
            names = "|".join(re.escape(h) for h in sorted(self._hosts, key=len, reverse=True))
            patterns.append(
                _NAME_EDGE_BEFORE
                + r"(?P<host>"
                + names
                + r")"
                + _NAME_EDGE_AFTER
                + _PORT.format(name="host_port")
            )
        if self._ports:
            patterns.append(r"\b(?P<word>port)(?P<sep>[ =#:]?)(?P<port_word>\d{1,5})\b")
        self._pattern = re.compile("|".join(patterns), re.IGNORECASE)
        reverse = {p: o for kind in KINDS for o, p in pseudonyms.get(kind, {}).items()}
        self._reverse = reverse
        self._reverse_pattern = (
            re.compile(
                _NAME_EDGE_BEFORE
                + "("
                + "|".join(re.escape(p) for p in sorted(reverse, key=len, reverse=True))
                + ")"
                + r"(?![A-Za-z0-9_]|\.\d)"
            )
            if reverse
            else None
        )

    # --- single names ---

    def _hashed(self, text: str, bits: int) -> int:
        digest = hmac.new(self._key, text.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") % (1 << bits)

    def address(self, text: str) -> str:
        canonical = _address(text)
        if canonical is None or _kept(canonical):
            return text
        if ":" in text and ":" not in canonical:  # IPv4-mapped: the IPv4 address's pseudonym
            return "::ffff:" + self.address(canonical)
        if canonical in self._addresses:
            return self._addresses[canonical]
        number = self._hashed(canonical, 16)
        if ":" in canonical:
            return f"fd00:ffff::{number:x}"
        return f"10.255.{number >> 8}.{number & 255}"

    def port(self, text: str) -> str:
        key = str(int(text)) if text.isdigit() else text
        if key in self._ports:
            return self._ports[key]
        return f"port-x{self._hashed(key, 16):04x}"

    def host(self, text: str) -> str:
        return self._hosts.get(text.lower(), text)

    # --- text and JSON ---

    def _replace(self, match: re.Match[str]) -> str:
        groups = match.groupdict()
        if groups.get("v6b") is not None:
            if _address(groups["v6b"]) is None:
                return match.group(0)
            port = groups.get("v6b_port")
            bracketed = f"{groups['open']}[{self.address(groups['v6b'])}{groups['close']}]"
            return bracketed + (f":{self.port(port)}" if port else "")
        if groups.get("v6") is not None:
            return self.address(groups["v6"]) if _address(groups["v6"]) else match.group(0)
        if groups.get("v4") is not None:
            port = groups.get("v4_port")
            return self.address(groups["v4"]) + (f":{self.port(port)}" if port else "")
        if groups.get("star_port") is not None:
            return f"*:{self.port(groups['star_port'])}"
        if groups.get("host") is not None:
            port = groups.get("host_port")
            return self.host(groups["host"]) + (f":{self.port(port)}" if port else "")
        if groups.get("port_word") is not None:
            number = str(int(groups["port_word"]))
            if number not in self._ports:
                return match.group(0)
            return f"{groups['word']}{groups['sep']}{self._ports[number]}"
        return match.group(0)

    def text(self, text: str) -> str:
        """``text`` with every address, known host name and port replaced."""
        return self._pattern.sub(self._replace, text)

    def value(self, value: Any, key: str | None = None) -> Any:
        """A JSON value with every string in it, keys included, redacted (values of `STRUCTURAL_KEYS` kept;
        a port under a ``port`` / ``*_port`` key replaced even as a bare number)."""
        if isinstance(value, str):
            if key is not None and key in STRUCTURAL_KEYS:
                return value
            if key is not None and _is_port_key(key) and value.isdigit():
                return self.port(value)
            return self.text(value)
        if isinstance(value, dict):
            # Keys too: maps keyed by a pool, thread or connection name ("DubboServerHandler-
            # 10.0.0.1:20880") name hosts as their values do.
            return {self.text(k): self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            # Columns of numbers (timeline points): nothing to redact, skipped fast.
            if value and all(not isinstance(item, (str, dict, list)) for item in value):
                return value
            return [self.value(item, key) for item in value]
        if key is not None and _is_port_key(key) and isinstance(value, int) and value > 0:
            return self.port(str(value))
        return value

    def original(self, text: str) -> str:
        """``text`` with the pseudonyms turned back into the originals (query parameters a
        redacted page sends: ``host=host-a`` filters on the real host)."""
        if self._reverse_pattern is None:
            return text
        return self._reverse_pattern.sub(lambda m: self._reverse[m.group(1)], text)

    def names_only_pseudonyms(self, text: str) -> bool:
        """Whether ``text`` holds nothing but pseudonyms and separators (``10.0.0.3:port-1``):
        what an address search of a redacted link may ask for. Any other letter or digit
        would be matched against the real addresses, and whether anything matched would
        tell the viewer about them (``10.1.`` answering one connection)."""
        rest = text if self._reverse_pattern is None else self._reverse_pattern.sub("", text)
        # What wraps a pseudonym in the link's own labels: [::ffff:10.0.0.2]:port-1.
        rest = re.sub(r"(?i)::ffff:", "", rest)
        return not any(c.isalnum() for c in rest)

    def original_query(self, query: bytes) -> bytes:
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
        return urlencode([(name, self.original(value)) for name, value in pairs]).encode()
