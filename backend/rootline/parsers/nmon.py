"""nmon capture files (Linux ``nmon`` and AIX ``topas_nmon``): every section as series.

Produced by::

    nmon -f -t -s 5 -c 720             # Linux: <host>_<YYMMDD>_<HHMM>.nmon, 5 s x 720, top processes
    topas_nmon -f -T -s 300 -c 288     # AIX: the same CSV layout, more sections, UARG lines

The file is CSV. The first field names the line's section; a section's header line gives
the column names of its later data lines, and ``ZZZZ`` lines give each snapshot's time.
Real lines (Linux nmon 16n on this machine, AIX samples from the corpus)::

    AAA,host,vm
    AAA,interval,1
    CPU_ALL,CPU Total vm,User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs
    NET,Network I/O vm,lo-read-KB/s,eth0-read-KB/s,lo-write-KB/s,eth0-write-KB/s
    TOP,+PID,Time,%CPU,%Usr,%Sys,Size,ResSet,ResText,ResData,ShdLib,MinorFault,MajorFault,Command
    ZZZZ,T0001,06:06:52,31-JUL-2016
    CPU_ALL,T0001,2.4,1.0,0.3,96.4,0.0,,12
    TOP,0003878,T0002,1.60,0.60,1.00,1079724,96904,24292,1019960,17268,1,0,YDService
    MEM,Memory sampleC,Real Free %,Virtual free %,Real free(MB),Virtual free(MB),Real total(MB),Virtual total(MB)
    UARG,T0002,31850666, 1,oracle , 1 , oracle,oinstall,oraclePROD (LOCAL=NO)

Line rules, tried on the first field. The usual file (one run, rows as wide as their header,
dated ZZZZ lines, numbers only) is read column-wise without a per-line Python step: lines
grouped per section by numpy over the bytes, each section's rows converted by a compiled loop
(``_nmon_fast.pyx``, built at install; plain decimal numbers only) or else by ``pyarrow.csv``
(:class:`_Columnar`). Any other file is read by the line path (:class:`_Reader`: one
``split`` per line and a dict lookup, numbers converted per section in bulk when a run ends),
which the columnar path's output equals exactly:

============  ====================================  =========================================
rule          shape                                 meaning
============  ====================================  =========================================
``DATA``      ``<SECTION>,T<n>,v1,v2,...``          one snapshot's row of a section
``HEADER``    ``<SECTION>,<description>,c1,c2...``  column names of ``<SECTION>``'s rows
``ZZZZ``      ``ZZZZ,T<n>,HH:MM:SS,DD-MON-YYYY``    snapshot time, read in ``context.timezone``
``ZZZZ``      ``ZZZZ,T<n>,HH:MM:SS`` (AIX, no date)  the same on the day of ``AAA,date``, one
                                                    day later each time the clock goes back
``HEADER``    ``<SECTION>,<description>`` (nmon 14)  a header without columns: no-op
``AAA``       ``AAA,<key>,<value>...``              run header: host, OS, interval ... (facts)
``BBB*``      ``BBBP,<seq>,<command>,"<output>"``   configuration dump: no-op, except the
                                                    ``/etc/release`` PRETTY_NAME (a fact)
``TOP``       ``TOP,<pid>,T<n>,%CPU,...,Command``   per-process CPU and memory
``UARG``      ``UARG,T<n>,<pid>,...,<full command>``  process command lines (facts)
============  ====================================  =========================================

Series (``{...}`` are labels; ``%`` is percent, ``/s`` per second):

- ``CPU_ALL``: ``cpu.user_pct``, ``cpu.sys_pct``, ``cpu.wait_pct``, ``cpu.idle_pct``,
  ``cpu.steal_pct``, ``cpu.busy_pct`` (%), ``cpu.count``.
- ``CPU001``.. (Linux) / ``CPU01``.. (AIX): ``cpu.core.user_pct{cpu}``, ``.sys_pct``,
  ``.wait_pct``, ``.idle_pct``, ``.steal_pct`` and ``cpu.core.busy_pct{cpu}`` = user + sys (%).
- ``MEM``: ``mem.total_mb``, ``mem.free_mb``, ``mem.swap_total_mb``, ``mem.swap_free_mb``,
  ``mem.cached_mb``, ``mem.buffers_mb``, ``mem.active_mb``, ``mem.inactive_mb``,
  ``mem.shared_mb``, ``mem.swap_cached_mb`` (MB; Linux names), the AIX "Real ..." columns
  onto the same names ("Virtual" is paging space, so ``mem.swap_*``), and AIX's
  ``mem.free_pct`` / ``mem.swap_free_pct`` (%).
- ``NET``: ``net.read_kbs{if}``, ``net.write_kbs{if}`` (KB/s); ``NETPACKET``:
  ``net.packets_in{if}``, ``net.packets_out{if}`` (/s); ``NETERROR``: ``net.errors_in{if}``,
  ``net.errors_out{if}``, ``net.collisions{if}``.
- ``DISKBUSY`` / ``DISKREAD`` / ``DISKWRITE`` / ``DISKXFER``: ``disk.busy_pct{disk}`` (%),
  ``disk.read_kbs{disk}``, ``disk.write_kbs{disk}`` (KB/s), ``disk.xfer_per_s{disk}`` (/s).
- ``PROC``: ``proc.runqueue`` (Runnable), ``proc.blocked``, ``proc.swapin`` (AIX Swap-in),
  and ``proc.<column>`` for the rest (``pswitch`` = context switches, ``syscall``, ``fork``,
  ``exec`` ...: /s).
- ``TOP``: ``top.cpu_pct{pid,command}`` (%, AIX counts one full core as 100) and
  ``top.res_size_kb{pid,command}`` (Linux ResSet; AIX ResText + ResData). To keep the
  series count sane a process is kept when its peak %CPU exceeds
  :data:`TOP_MIN_PEAK_CPU_PCT` or it is among the :data:`TOP_ALWAYS_KEPT` highest peaks, at
  most :data:`TOP_MAX_PROCESSES` (highest peaks first); facts ``nmon.top.processes_seen`` /
  ``nmon.top.processes_kept`` say how many were dropped.
- ``PCPU01``.. / ``SCPU01``.. (AIX physical / scaled per-CPU): ``nmon.PCPU.<column>{cpu}``.
- Every other section with a header and ``T``-stamped rows (``MEMNEW``, ``MEMUSE``, ``VM``,
  ``PAGE``, ``JFSFILE``, ``LPAR``, ``DISKBSIZE`` ...): ``nmon.<SECTION>.<column-slug>``,
  e.g. ``nmon.VM.pgpgin``, ``nmon.JFSFILE.var`` (``/`` is ``root``); the slug is the column
  lower-cased, ``%`` as ``pct``, other punctuation as ``_``; unit from the column or the
  section description (``%``, ``KB/s``, ``MB``, ``/s``), else none.

Facts: ``nmon.host``, ``nmon.os``, ``nmon.os_release``, ``nmon.version``, ``nmon.progname``,
``nmon.command``, ``nmon.interval_s``, ``nmon.snapshots`` (planned), ``nmon.snapshots_read``,
``nmon.cpus`` (``nmon.cpus_max`` on AIX), ``nmon.hardware``, ``nmon.machine_type``,
``nmon.cpu_model``, ``nmon.boottime``; ``nmon.uarg.<pid>`` = full command line (AIX UARG,
stamped at the snapshot it was first seen).

Files read as far as they go: a fragment without the ``AAA`` block (host then taken from
the ``CPU Total <host>`` header), rows without a header (columns ``col1``..), rows whose
snapshot has no ``ZZZZ`` line (placed by the interval), a run cut short or cut mid-line,
and two runs concatenated into one file each yield their data plus a diagnostic.

>>> text = "ZZZZ,T0001,00:00:05,01-JAN-2020\\nCPU_ALL,CPU Total h,User%,Sys%\\nCPU_ALL,T0001,3.5,1.5\\n"
>>> result = parse(text, ParseContext())
>>> [(s.name, list(s.times_ms), list(s.values)) for s in result.series]
[('cpu.user_pct', [1577836805000], [3.5]), ('cpu.sys_pct', [1577836805000], [1.5])]
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import itertools
import math
import re
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import add
from typing import Any, NamedTuple, cast

import numpy as np

from rootline.parsers.base import Fact, ParseContext, ParseResult, SeriesData, TextPieces, to_ms

KIND = "nmon"

# TOP process selection (see the module docstring).
TOP_MIN_PEAK_CPU_PCT = 1.0
TOP_ALWAYS_KEPT = 20
TOP_MAX_PROCESSES = 200

# Distinct value texts remembered before the cache is dropped (bounds memory on odd files).
_FLOAT_CACHE_LIMIT = 1_000_000
# TOP rows split into fields this many at a time: all of a 100 MB file's at once took 500 MB.
_TOP_CHUNK_ROWS = 65536
# Text split into lines this many characters at a time (bounded memory, see read).
_LINE_BLOCK = 1024 * 1024
# Text read by the columnar path this many characters at a time (see _Columnar).
_COLUMNAR_BLOCK = 8 * 1024 * 1024
# Bytes of a block looked at a time for line breaks (see _Columnar._newlines).
_NEWLINE_SLICE = 1024 * 1024
# When neither ZZZZ nor AAA,interval tells when snapshots were taken, they are put this far apart.
_DEFAULT_INTERVAL_MS = 1000
_DAY_MS = 86_400_000

_MONTHS = {
    "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
    "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}  # fmt: skip

# Slow-path and sniffing rules only; the per-line data path uses no regex.
_SECTION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_SNAPSHOT_TAG = re.compile(r"T\d+\Z")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # what a time array holds
_SNIFF_DATA_LINE = re.compile(r"^[A-Z][A-Z0-9_]*,T\d{4,},[-\d.]", re.MULTILINE)
_SNIFF_ZZZZ_LINE = re.compile(
    r"^ZZZZ,T\d+,\d\d:\d\d:\d\d(?:,\d\d-[A-Za-z]{3}-\d{4}|,?\r?$)", re.MULTILINE
)
_SNIFF_HEADER_LINE = re.compile(
    r"^(CPU_ALL,CPU Total |MEM,Memory |NET,Network I/O |DISKBUSY,Disk %Busy )", re.MULTILINE
)
_SLUG_PUNCTUATION = re.compile(r"[^a-z0-9]+")


def sniff(head: str) -> float:
    """1.0 for an ``AAA,progname`` header; 0.95 for ZZZZ lines plus T-stamped rows (fragments)."""
    if head.startswith("AAA,progname,") or "\nAAA,progname," in head:
        return 1.0
    data_lines = len(_SNIFF_DATA_LINE.findall(head, 0, 65536))
    if _SNIFF_ZZZZ_LINE.search(head) and data_lines >= 2:
        return 0.95
    if _SNIFF_HEADER_LINE.search(head) and data_lines >= 2:
        return 0.9
    if data_lines >= 5:
        return 0.6
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    """Every section's rows as series, plus facts from the AAA block; never raises.

    The usual file is read column-wise at C speed (:class:`_Columnar`); anything it does not
    read exactly as the line path does is read again by the line path (:class:`_Reader`)."""
    try:
        return _Columnar(_Reader(context)).read(text)
    except _Bail:
        pass
    return _Reader(context).read(text)


def parse_pieces(pieces: Iterator[str], context: ParseContext) -> ParseResult | None:
    """As :func:`parse`, from the text a piece at a time as it is decoded (whole lines, but
    maybe the last piece's last), never whole: a 100 MB capture's series are about its size
    again. None when the columnar path gives the file up: the caller reads it again whole
    and :func:`parse` reads it by the line path."""
    # Its ASCII pieces as bytes: read as text, each was encoded again (see _Columnar._block).
    source = pieces.ascii_as_bytes() if isinstance(pieces, TextPieces) else pieces
    try:
        return _Columnar(_Reader(context)).read_pieces(source)
    except _Bail:
        return None


# --------------------------------------------------------------------------- column naming


class _Column(NamedTuple):
    """Where one column's values go."""

    name: str
    labels: dict[str, str]
    unit: str


_CPU_ALL_COLUMNS = {
    "user%": ("cpu.user_pct", "%"),
    "sys%": ("cpu.sys_pct", "%"),
    "wait%": ("cpu.wait_pct", "%"),
    "idle%": ("cpu.idle_pct", "%"),
    "steal%": ("cpu.steal_pct", "%"),
    "busy": ("cpu.busy_pct", "%"),
    "cpus": ("cpu.count", ""),
    # AIX writes the logical CPU count under this name.
    "physicalcpus": ("cpu.count", ""),
}
_CPU_CORE_COLUMNS = {
    "user%": "cpu.core.user_pct",
    "sys%": "cpu.core.sys_pct",
    "wait%": "cpu.core.wait_pct",
    "idle%": "cpu.core.idle_pct",
    "steal%": "cpu.core.steal_pct",
}
_MEM_COLUMNS = {
    # Linux nmon, MB
    "memtotal": ("mem.total_mb", "MB"),
    "memfree": ("mem.free_mb", "MB"),
    "swaptotal": ("mem.swap_total_mb", "MB"),
    "swapfree": ("mem.swap_free_mb", "MB"),
    "cached": ("mem.cached_mb", "MB"),
    "buffers": ("mem.buffers_mb", "MB"),
    "active": ("mem.active_mb", "MB"),
    "inactive": ("mem.inactive_mb", "MB"),
    "memshared": ("mem.shared_mb", "MB"),
    "swapcached": ("mem.swap_cached_mb", "MB"),
    "memavailable": ("mem.available_mb", "MB"),
    # AIX topas_nmon: "Real" is RAM, "Virtual" is paging space.
    "real free %": ("mem.free_pct", "%"),
    "virtual free %": ("mem.swap_free_pct", "%"),
    "real free(mb)": ("mem.free_mb", "MB"),
    "virtual free(mb)": ("mem.swap_free_mb", "MB"),
    "real total(mb)": ("mem.total_mb", "MB"),
    "virtual total(mb)": ("mem.swap_total_mb", "MB"),
}
_PROC_RENAMES = {"runnable": "runqueue", "swap-in": "swapin", "swap_in": "swapin"}
# PROC columns that are counts at the snapshot, not per-second rates.
_PROC_COUNTS = {"runqueue", "blocked", "swapin", "asleep_bufio", "asleep_rawio", "asleep_diocio"}
# Per-interface sections: column suffix -> (series, unit).
_INTERFACE_COLUMNS = {
    "NET": (("-read-KB/s", "net.read_kbs", "KB/s"), ("-write-KB/s", "net.write_kbs", "KB/s")),
    "NETPACKET": (
        ("-read/s", "net.packets_in", "/s"),
        ("-reads/s", "net.packets_in", "/s"),
        ("-write/s", "net.packets_out", "/s"),
        ("-writes/s", "net.packets_out", "/s"),
    ),
    "NETERROR": (
        ("-ierrs", "net.errors_in", "/s"),
        ("-oerrs", "net.errors_out", "/s"),
        ("-collisions", "net.collisions", "/s"),
    ),
}
_DISK_SECTIONS = {
    "DISKBUSY": ("disk.busy_pct", "%"),
    "DISKREAD": ("disk.read_kbs", "KB/s"),
    "DISKWRITE": ("disk.write_kbs", "KB/s"),
    "DISKXFER": ("disk.xfer_per_s", "/s"),
}


def _slug(column: str) -> str:
    return _SLUG_PUNCTUATION.sub("_", column.lower().replace("%", " pct ")).strip("_")


def _unit_of(column: str, description: str) -> str:
    for text in (column, description):
        if "%" in text:
            return "%"
        if "KB/s" in text:
            return "KB/s"
        if "MB" in text:
            return "MB"
        if "/s" in text or "per second" in text:
            return "/s"
    return ""


def _per_cpu_number(section: str, prefix: str) -> str | None:
    digits = section[len(prefix) :]
    if section.startswith(prefix) and digits.isdigit():
        return str(int(digits))
    return None


def _column_specs(section: str, description: str, columns: list[str]) -> list[_Column]:
    """One spec per column position: the series name, labels and unit its values go to."""
    specs: list[_Column] = []
    used_names: set[str] = set()
    core = _per_cpu_number(section, "CPU")
    lpar_cpu = _per_cpu_number(section, "PCPU") or _per_cpu_number(section, "SCPU")
    for position, raw in enumerate(columns, 1):
        column = raw.strip()
        key = column.lower()
        spec: _Column | None = None
        if section == "CPU_ALL" and key in _CPU_ALL_COLUMNS:
            name, unit = _CPU_ALL_COLUMNS[key]
            spec = _Column(name, {}, unit)
        elif core is not None and key in _CPU_CORE_COLUMNS:
            spec = _Column(_CPU_CORE_COLUMNS[key], {"cpu": core}, "%")
        elif lpar_cpu is not None:
            spec = _Column(f"nmon.{section[:4]}.{_slug(column) or position}", {"cpu": lpar_cpu}, "")
        elif section == "MEM" and key in _MEM_COLUMNS:
            name, unit = _MEM_COLUMNS[key]
            spec = _Column(name, {}, unit)
        elif section == "PROC" and column:
            slug = _PROC_RENAMES.get(key, _slug(column))
            spec = _Column(f"proc.{slug}", {}, "" if slug in _PROC_COUNTS else "/s")
        elif section in _DISK_SECTIONS and column:
            name, unit = _DISK_SECTIONS[section]
            spec = _Column(name, {"disk": column}, unit)
        elif section in _INTERFACE_COLUMNS:
            for suffix, name, unit in _INTERFACE_COLUMNS[section]:
                if column.endswith(suffix) and len(column) > len(suffix):
                    spec = _Column(name, {"if": column[: -len(suffix)]}, unit)
                    break
        if spec is None:
            slug = _slug(column) or ("root" if column == "/" else f"col{position}")
            name = f"nmon.{section}.{slug}"
            if name in used_names:  # "/" and "/root" both slug to root; keep both
                name = f"{name}_{position}"
            spec = _Column(name, {}, _unit_of(column, description))
        used_names.add(spec.name)
        specs.append(spec)
    return specs


# --------------------------------------------------------------------------- reading


@dataclass(slots=True)
class _Section:
    """One section's header and the raw data lines of the current run (converted when it ends)."""

    name: str
    description: str = ""
    columns: list[str] | None = None
    lines: list[str] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Process:
    times_ms: array[int] = field(default_factory=lambda: array("q"))
    cpu_pct: array[float] = field(default_factory=lambda: array("d"))
    res_times_ms: array[int] = field(default_factory=lambda: array("q"))
    res_kb: array[float] = field(default_factory=lambda: array("d"))

    def extend(
        self, times: np.ndarray, cpu: np.ndarray, resident: np.ndarray | None, picked: np.ndarray
    ) -> None:
        """Append the TOP rows ``picked`` (indexes into the columns); a NaN resident size
        (an empty field) is no point."""
        row_times = times[picked]
        self.times_ms.frombytes(row_times.tobytes())
        self.cpu_pct.frombytes(cpu[picked].tobytes())
        if resident is not None:
            row_resident = resident[picked]
            known = row_resident == row_resident
            self.res_times_ms.frombytes(row_times[known].tobytes())
            self.res_kb.frombytes(row_resident[known].tobytes())


_Appenders = tuple[Callable[[str], None], Callable[[int], None]]


class _Reader:
    """Reads one file; an ``AAA,progname`` line or a repeated snapshot tag starts a new run."""

    def __init__(self, context: ParseContext) -> None:
        self.context = context
        self.result = ParseResult(kind=KIND)
        self.sections: dict[str, _Section] = {}
        # Section name -> (lines.append, line_numbers.append): the whole per-line work.
        self.appenders: dict[str, _Appenders] = {}
        self.series: dict[tuple[str, tuple[tuple[str, str], ...]], SeriesData] = {}
        self.specs_cache: dict[tuple[str, tuple[str, ...]], list[_Column]] = {}
        # ids of the times arrays many series share (each held by its series, so no id reuse)
        self.shared_times: set[int] = set()
        self.aaa: dict[str, list[str]] = {}
        self.facts: dict[str, Fact] = {}
        self.top = _Section("TOP")
        self.appenders["TOP"] = (self.top.lines.append, self.top.line_numbers.append)
        self.top_columns = _LINUX_TOP_COLUMNS
        self.uarg_columns = _LINUX_UARG_COLUMNS
        # Current run
        self.snapshot_ms: dict[str, int] = {}
        self.uarg_rows: list[tuple[int, list[str]]] = []
        # Whole file
        self.processes: dict[tuple[str, str], _Process] = {}
        self.snapshots_read = 0
        self.runs = 0
        self.last_snapshot: tuple[str, int] | None = None
        self.hour_start_ms: dict[tuple[str, str], int | None] = {}
        # ZZZZ lines without a date (AIX): days added to AAA,date, the previous snapshot time.
        self.dateless_days = 0
        self.dateless_previous_ms: int | None = None
        # Text -> number for every distinct value text seen; NaN for the unreadable ones.
        self.float_of: dict[str, float] = {}
        self.nan_texts: set[str] = set()

    # ---- the per-line loop

    def read(self, text: str) -> ParseResult:
        # Lines end at "\n" only (a CR before it dropped), read a block of about
        # _LINE_BLOCK characters at a time: a list of all of a file's lines cost 1.7x the file.
        whole_end = text.rfind("\n") + 1  # the lines before this are complete
        last_line = text[whole_end:].removesuffix("\r")  # "" when the text ends with a newline
        line_count = 0
        start = 0
        while start < whole_end:
            stop = text.find("\n", start + _LINE_BLOCK)
            stop = whole_end if stop < 0 else stop + 1
            block = text[start:stop]
            start = stop
            lines = block.split("\n")
            lines.pop()  # the block ends with "\n"
            if "\r" in block:
                lines = [line.removesuffix("\r") for line in lines]
            del block
            self._read_block(lines, line_count + 1)
            line_count += len(lines)
        cut_line = 0
        if last_line:
            line_number = line_count + 1
            if self._is_whole(last_line):
                self._read_line(line_number, last_line)
            else:
                cut_line = line_number
        self._end_run()
        self._finish(line_count + (1 if last_line else 0), cut_line)
        return self.result

    def _read_block(self, lines: list[str], first_number: int) -> None:
        """Data lines of known sections appended per section in bulk, the rest one by one.

        Only lines that end a run (``AAA,progname``, a snapshot tag seen before) or open a
        section need the data lines around them in file order; a block holding one is read
        line by line.
        """
        appenders = self.appenders
        # line[: line.find(",")], as _read_line takes it, for every line at C speed.
        names = list(map(str.__getitem__, lines, map(slice, map(str.find, lines, repeat(",")))))
        codes = {name: code for code, name in enumerate(appenders)}
        known = np.fromiter(map(codes.get, names, repeat(-1)), dtype=np.int64, count=len(lines))
        slow_rows = np.flatnonzero(known < 0).tolist()
        if not self._bulk_safe(lines, names, slow_rows):
            slow_line = self._slow_line
            for line_number, line in enumerate(lines, first_number):
                append = appenders.get(line[: line.find(",")])
                if append is not None:
                    append[0](line)
                    append[1](line_number)
                elif line:
                    slow_line(line_number, line)
            return
        order = np.argsort(known, kind="stable")
        bounds = np.searchsorted(known[order], np.arange(len(codes) + 1))
        for code, name in enumerate(appenders):
            rows = order[bounds[code] : bounds[code + 1]]
            if len(rows):
                section = self.top if name == "TOP" else self.sections[name]
                section.lines.extend(map(lines.__getitem__, rows.tolist()))
                section.line_numbers.extend((rows + first_number).tolist())
        for row in slow_rows:
            line = lines[row]
            if line:
                self._slow_line(row + first_number, line)

    def _bulk_safe(self, lines: list[str], names: list[str], slow_rows: list[int]) -> bool:
        """Whether none of the ``slow_rows`` ends a run or opens a section (see _read_block)."""
        tags: set[str] = set()
        for row in slow_rows:
            name = names[row]
            if name == "ZZZZ":
                tag = lines[row].split(",", 2)[1].strip()
                if tag in self.snapshot_ms or tag in tags:
                    return False
                tags.add(tag)
            elif name == "AAA":
                if "progname" in lines[row]:
                    return False
            elif name.startswith(("BBB", "UARG")) or not _SECTION_NAME.match(name):
                continue
            else:
                return False
        return True

    def _is_whole(self, line: str) -> bool:
        """A last line without a newline is whole when its row is as wide as its header."""
        name = line.partition(",")[0]
        if name in ("TOP", "UARG"):
            return False  # a command name may be cut: nothing tells
        section = self.sections.get(name)
        if section is None or section.columns is None:
            return True  # ZZZZ, AAA ... diagnose themselves if cut
        return line.count(",") - 1 >= len(section.columns)

    def _read_line(self, line_number: int, line: str) -> None:
        append = self.appenders.get(line[: line.find(",")])
        if append is not None:
            append[0](line)
            append[1](line_number)
        else:
            self._slow_line(line_number, line)

    def _slow_line(self, line_number: int, line: str) -> None:
        first, _, rest = line.partition(",")
        if first == "AAA":
            self._aaa(line)
        elif first.startswith("BBB"):
            self._bbb(line)
        elif first == "ZZZZ":
            self._zzzz(line_number, line)
        elif first == "UARG":
            self._uarg(line_number, line)
        elif rest and _SECTION_NAME.match(first):
            second, _, columns = rest.partition(",")
            if _SNAPSHOT_TAG.match(second):
                # Data before (or without) its header: kept; named by a later header or col<N>.
                self._add_section(first).lines.append(line)
                self.sections[first].line_numbers.append(line_number)
            elif columns.strip(", "):
                names = [c.strip() for c in columns.split(",")]
                while names and not names[-1]:
                    names.pop()
                section = self._add_section(first)
                section.description, section.columns = second, names
            elif second.strip() and not _looks_like_number(second):
                # ``NET,Network I/O host`` with no column after it (nmon 14 writes such headers
                # for sections it has nothing to list in): a known no-op; the description stays.
                self._add_section(first).description = second
            else:
                self.result.diagnose(line_number, f"{first} line with neither columns nor values")
        elif line.strip():
            self.result.diagnose(line_number, f"not an nmon line: {line[:80]!r}")

    def _add_section(self, name: str) -> _Section:
        section = self.sections.get(name)
        if section is None:
            section = self.sections[name] = _Section(name)
            self.appenders[name] = (section.lines.append, section.line_numbers.append)
        return section

    # ---- slow-path handlers

    def _aaa(self, line: str) -> None:
        fields = [f.strip() for f in line.split(",")]
        # Only progname opens a run; Linux nmon also writes AAA,steal,1 mid-run.
        if len(fields) >= 2 and fields[1] == "progname" and self._run_has_data():
            self._end_run()
        if len(fields) >= 3 and fields[1] == "x86":  # AAA,x86,ModelName,Intel(R) Xeon(R) ...
            self.aaa.setdefault(f"x86.{fields[2]}", fields[3:])
        elif len(fields) >= 2:
            self.aaa.setdefault(fields[1], fields[2:])

    def _bbb(self, line: str) -> None:
        # BBBP,001,/etc/release,"PRETTY_NAME=QRed Hat Enterprise Linux Server 7.2 (Maipo)Q":
        # nmon writes the double quotes of the command's output as Q.
        if ",/etc/release," in line and "PRETTY_NAME=" in line:
            value = line.split("PRETTY_NAME=", 1)[1].strip().rstrip('"')
            if len(value) > 1 and value.startswith("Q") and value.endswith("Q"):
                value = value[1:-1]
            self._fact("nmon.os_release", value.strip('"'))

    def _zzzz(self, line_number: int, line: str) -> None:
        fields = [f.strip() for f in line.split(",")]
        while len(fields) > 3 and not fields[-1]:
            fields.pop()
        if len(fields) == 3 and _SNAPSHOT_TAG.match(fields[1]):
            self._dateless_zzzz(line_number, fields)
            return
        if len(fields) < 4 or not _SNAPSHOT_TAG.match(fields[1]):
            self.result.diagnose(
                line_number, f"ZZZZ line without a snapshot tag, time and date: {line[:80]!r}"
            )
            return
        moment = self._clock_ms(fields[2], fields[3])
        self._add_snapshot(line_number, fields, moment)

    def _dateless_zzzz(self, line_number: int, fields: list[str]) -> None:
        """``ZZZZ,T0001,00:20:22`` (AIX nmon without the date): the day is ``AAA,date``, and
        a clock that goes back means midnight passed."""
        date = (self.aaa.get("date") or [""])[0]
        moment = self._clock_ms(fields[2], date) if date else None
        if moment is None:
            self.result.diagnose(
                line_number,
                f"ZZZZ line without a date and no readable AAA,date ({date!r}) to take it from",
            )
            return
        moment += self.dateless_days * _DAY_MS
        if self.dateless_previous_ms is not None and moment < self.dateless_previous_ms:
            self.dateless_days += 1
            moment += _DAY_MS
        self.dateless_previous_ms = moment
        self._add_snapshot(line_number, fields, moment)

    def _add_snapshot(self, line_number: int, fields: list[str], moment: int | None) -> None:
        if moment is None:
            self.result.diagnose(
                line_number, f"unreadable snapshot time {fields[2]!r} {fields[3]!r}"
            )
            return
        tag = fields[1]
        if tag in self.snapshot_ms:
            # T0001 again: a second run appended to the first (cat a.nmon b.nmon).
            self._end_run()
        self.snapshot_ms[tag] = moment
        self.snapshots_read += 1
        self.last_snapshot = (tag, line_number)

    def _clock_ms(self, clock: str, date: str) -> int | None:
        """``HH:MM:SS[.fff]`` on ``DD-MON-YYYY`` in the context's zone, as epoch ms."""
        hours, _, minutes_seconds = clock.partition(":")
        key = (date, hours)
        hour_start = self.hour_start_ms.get(key, -1)
        if hour_start == -1:
            # One datetime per (day, hour): zone offsets change on hour boundaries.
            hour_start = self.hour_start_ms[key] = self._hour_start_ms(date, hours)
        minutes, _, seconds = minutes_seconds.partition(":")
        if hour_start is None or not minutes.isdigit() or int(minutes) > 59:
            return None
        try:
            second_count = float(seconds)
        except ValueError:
            return None
        if not 0 <= second_count < 61:
            return None
        return hour_start + int(minutes) * 60_000 + round(second_count * 1000)

    def _hour_start_ms(self, date: str, hours: str) -> int | None:
        day, _, month_year = date.partition("-")
        month, _, year = month_year.partition("-")
        try:
            moment = dt.datetime(
                int(year),
                _MONTHS[month.upper()],
                int(day),
                int(hours),
                tzinfo=self.context.timezone,
            )
        except (ValueError, KeyError, OverflowError):
            return None
        return to_ms(moment)

    def _uarg(self, line_number: int, line: str) -> None:
        fields = line.split(",")
        if len(fields) > 1 and fields[1].strip().startswith("+Time"):
            self.uarg_columns = [f.strip() for f in fields[1:]]
        elif len(fields) >= 4:
            self.uarg_rows.append((line_number, fields[1:]))
        else:
            self.result.diagnose(line_number, "UARG line with too few fields")

    # ---- end of a run: convert the collected lines

    def _run_has_data(self) -> bool:
        return bool(
            self.snapshot_ms or self.top.lines or any(s.lines for s in self.sections.values())
        )

    def _end_run(self) -> None:
        if self._run_has_data():
            self.runs += 1
        self._check_last_snapshot()
        for section in self.sections.values():
            if section.lines:
                self._flush_section(section)
        self._flush_top()
        self._flush_uarg()
        self.snapshot_ms = {}
        self.last_snapshot = None
        self.dateless_days = 0
        self.dateless_previous_ms = None

    def _check_last_snapshot(self) -> None:
        """Sections present in every earlier snapshot but missing from the last: a cut file."""
        if self.last_snapshot is None or len(self.snapshot_ms) < 3:
            return
        last_tag, _ = self.last_snapshot
        regular = [s for s in self.sections.values() if len(s.lines) >= len(self.snapshot_ms) - 1]
        missing = [s.name for s in regular if s.lines[-1].split(",", 2)[1:2] != [last_tag]]
        if missing:
            last_line = max(
                [
                    self.last_snapshot[1],
                    *(s.line_numbers[-1] for s in self.sections.values() if s.line_numbers),
                ]
            )
            self.result.diagnose(
                last_line,
                f"snapshot {last_tag} is incomplete (file cut mid-snapshot?): "
                f"no {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''} rows",
            )

    def _flush_section(self, section: _Section) -> None:
        lines, line_numbers = section.lines, section.line_numbers
        commas = list(map(str.count, lines, repeat(",")))
        most = max(commas)
        uniform = min(commas) == most
        if uniform and self._flush_uniform(section, most + 1):
            del section.lines[:]
            del section.line_numbers[:]
            return
        if not uniform:
            self._diagnose_widths(section, commas, line_numbers)
            lines = [line + "," * (most - count) for line, count in zip(lines, commas, strict=True)]
        stride = most + 1  # fields per line: name, tag, values
        fields = ",".join(lines).split(",")
        tags = fields[1::stride]
        times = list(map(self.snapshot_ms.get, tags))
        if None in times:
            for columns, seg_fields, seg_times, seg_lines in self._segments(
                section, fields, stride, times
            ):
                self._emit(section, columns, seg_fields, stride, seg_times, seg_lines, uniform)
        else:
            self._emit(
                section,
                section.columns,
                fields,
                stride,
                cast("list[int]", times),
                line_numbers,
                uniform,
            )
        # Cleared in place: the bound appenders keep pointing at these lists.
        del section.lines[:]
        del section.line_numbers[:]

    def _flush_uniform(self, section: _Section, stride: int) -> bool:
        """The usual case at C speed: rows of one width under a known header, every one in a
        timed snapshot, every value a number or empty. All values are converted by one
        ``numpy.loadtxt`` call; False (nothing done) sends the rows to the general path,
        which diagnoses whatever broke the rule."""
        lines, columns = section.lines, section.columns
        width = stride - 2
        if columns is None or not 0 < width <= len(columns):
            return False
        skip = len(section.name) + 1
        tags = [line[skip : line.find(",", skip)] for line in lines]
        times = list(map(self.snapshot_ms.get, tags))
        if None in times:
            # Only repeats of the header itself (nmon rewrites some every so often) are passed over.
            repeats = [row for row, moment in enumerate(times) if moment is None]
            for row in repeats:
                names = [c.strip() for c in lines[row].split(",")[2:]]
                while names and not names[-1]:
                    names.pop()
                if names != columns or _SNAPSHOT_TAG.match(tags[row]):
                    return False
                section.description = tags[row]
            dropped = set(repeats)
            lines = [line for row, line in enumerate(lines) if row not in dropped]
            times = [moment for moment in times if moment is not None]
            if not lines:
                return False
        body = "\n".join(lines)
        if "\r" in body or '"' in body:
            return False  # a bare CR would split a row; quotes are no numbers
        # An empty value is a gap (NaN), as in the general path; runs of them need two passes.
        body = body.replace(",,", ",nan,").replace(",,", ",nan,").replace(",\n", ",nan\n")
        if body.endswith(","):
            body += "nan"
        try:
            matrix = np.loadtxt(
                io.StringIO(body),
                delimiter=",",
                comments=None,
                usecols=range(2, stride),
                dtype=np.float64,
                ndmin=2,
            )
        except ValueError:
            return False
        if matrix.shape != (len(lines), width):
            return False
        values = [np.ascontiguousarray(matrix[:, i]) for i in range(matrix.shape[1])]
        del matrix
        self._emit_matrix(section, columns, values, np.array(times, dtype=np.int64))
        return True

    def _emit_matrix(
        self, section: _Section, columns: list[str], values: list[np.ndarray], times_ms: np.ndarray
    ) -> None:
        """One spec per column of ``values`` (each one value per row), as :meth:`_emit` does.

        Columns without gaps share one times array (the store reads each shared array once):
        a 100 MB capture's 9 M points held 75 MB of equal times before."""
        name = section.name
        key = (name, tuple(columns))
        specs = self.specs_cache.get(key)
        if specs is None:
            specs = self.specs_cache[key] = _column_specs(name, section.description, columns)
        shared: list[array[int]] = []
        core = _per_cpu_number(name, "CPU")
        user: np.ndarray | None = None
        system: np.ndarray | None = None
        for position, column in enumerate(values):
            spec = specs[position]
            self._add_numpy(spec, times_ms, column, shared)
            if core is not None:
                if spec.name == "cpu.core.user_pct":
                    user = column
                elif spec.name == "cpu.core.sys_pct":
                    system = column
        if core is not None and user is not None and system is not None:
            self._add_numpy(
                _Column("cpu.core.busy_pct", {"cpu": core}, "%"), times_ms, user + system, shared
            )

    def _add_numpy(
        self,
        spec: _Column,
        times_ms: np.ndarray,
        values: np.ndarray,
        shared: list[array[int]] | None = None,
    ) -> None:
        """:meth:`_add` for numpy columns; NaN values (gaps) are dropped. A new series whose
        values have no gap takes the times array in ``shared`` (made on first use)."""
        kept = values == values  # NaN != NaN
        whole = bool(kept.all())
        if not whole:
            times_ms, values = times_ms[kept], values[kept]
            if not len(values):
                return
        key = (spec.name, tuple(sorted(spec.labels.items())))
        series = self.series.get(key)
        if series is None:
            if whole and shared is not None:
                if not shared:
                    shared.append(array("q", times_ms.tobytes()))
                    self.shared_times.add(id(shared[0]))
                times = shared[0]
            else:
                times = array("q", times_ms.tobytes())
            self.series[key] = SeriesData(
                spec.name, dict(spec.labels), spec.unit, times, array("d", values.tobytes())
            )
        else:
            self._own_times(series)
            series.times_ms.frombytes(times_ms.tobytes())
            series.values.frombytes(values.tobytes())

    def _add_whole(self, spec: _Column, times_ms: array[int], values: array[float]) -> None:
        """:meth:`_add` for a column without gaps whose arrays the series may keep as they are
        (``times_ms`` is in :attr:`shared_times`; ``values`` is this column's own)."""
        key = (spec.name, tuple(sorted(spec.labels.items())))
        series = self.series.get(key)
        if series is None:
            self.series[key] = SeriesData(spec.name, dict(spec.labels), spec.unit, times_ms, values)
        else:
            self._own_times(series)
            series.times_ms.extend(times_ms)
            series.values.extend(values)

    def _own_times(self, series: SeriesData) -> None:
        """A series about to grow gets its own copy of a shared times array."""
        if id(series.times_ms) in self.shared_times:
            series.times_ms = array("q", series.times_ms)

    def _segments(
        self, section: _Section, fields: list[str], stride: int, times: list[int | None]
    ) -> list[tuple[list[str] | None, list[str], list[int], list[int]]]:
        """Rows split where a header line repeats with other columns; untimed snapshots placed."""
        segments: list[tuple[list[str] | None, list[str], list[int], list[int]]] = []
        columns = section.columns
        seg_fields: list[str] = []
        seg_times: list[int] = []
        seg_lines: list[int] = []
        untimed: list[int] = []
        for row, (moment, line_number) in enumerate(zip(times, section.line_numbers, strict=True)):
            row_fields = fields[row * stride : (row + 1) * stride]
            tag = row_fields[1]
            if moment is None:
                if _SNAPSHOT_TAG.match(tag) and (moment := self._estimate_time(tag)) is not None:
                    untimed.append(line_number)
                elif _looks_like_header(row_fields[2:]):
                    new_columns = [c.strip() for c in row_fields[2:]]
                    while new_columns and not new_columns[-1]:
                        new_columns.pop()
                    section.description = tag
                    if columns is None:  # rows came before their header: it names them too
                        columns = new_columns
                    elif new_columns != columns:
                        if seg_times:
                            segments.append((columns, seg_fields, seg_times, seg_lines))
                            seg_fields, seg_times, seg_lines = [], [], []
                        columns = new_columns
                    continue
                else:
                    self.result.diagnose(
                        line_number, f"{section.name} row with a bad snapshot tag {tag[:20]!r}"
                    )
                    continue
            seg_fields.extend(row_fields)
            seg_times.append(moment)
            seg_lines.append(line_number)
        if seg_times:
            segments.append((columns, seg_fields, seg_times, seg_lines))
        section.columns = columns
        if untimed:
            self.result.diagnose(
                untimed[0],
                f"{len(untimed)} {section.name} rows belong to snapshots without a ZZZZ time line; "
                f"placed {self._interval_ms() / 1000:g} s apart",
            )
        return segments

    def _emit(
        self,
        section: _Section,
        columns: list[str] | None,
        fields: list[str],
        stride: int,
        times: list[int],
        line_numbers: list[int],
        uniform: bool,
    ) -> None:
        width = stride - 2  # values per row
        name = section.name
        if columns is None:
            self.result.diagnose(
                line_numbers[0], f"{name} rows have no header line; columns named col1..col{width}"
            )
            columns = []
        elif width > len(columns) and uniform and not _only_empty(fields, stride, len(columns)):
            # (older nmon ends rows with a comma: an empty last value is no extra column)
            self.result.diagnose(
                line_numbers[0],
                f"{name} rows have {width} values but the header names {len(columns)}; "
                f"the extra ones kept as col{len(columns) + 1}..col{width}",
            )
        if width > len(columns):
            columns = [*columns, *(f"col{i}" for i in range(len(columns) + 1, width + 1))]
        key = (name, tuple(columns))
        specs = self.specs_cache.get(key)
        if specs is None:
            specs = self.specs_cache[key] = _column_specs(name, section.description, columns)
        times_ms = array("q", times)
        core = _per_cpu_number(name, "CPU")
        user: array[float] | None = None
        system: array[float] | None = None
        for position in range(width):
            spec = specs[position]
            values, gaps = self._to_floats(name, fields[position + 2 :: stride], line_numbers)
            self._add(spec, times_ms, values, gaps)
            if core is not None:
                if spec.name == "cpu.core.user_pct":
                    user = values
                elif spec.name == "cpu.core.sys_pct":
                    system = values
        if core is not None and user is not None and system is not None:
            busy = array("d", map(add, user, system))
            self._add(_Column("cpu.core.busy_pct", {"cpu": core}, "%"), times_ms, busy, True)

    def _diagnose_widths(
        self, section: _Section, commas: list[int], line_numbers: list[int]
    ) -> None:
        expected = len(section.columns) if section.columns else max(commas) - 1
        reported: set[int] = set()
        for count, line_number in zip(commas, line_numbers, strict=True):
            values = count - 1
            if values != expected and values not in reported:
                reported.add(values)
                self.result.diagnose(
                    line_number,
                    f"{section.name} row has {values} values, the header names {expected}; read by position",
                )

    def _to_floats(
        self, name: str, texts: list[str], line_numbers: list[int]
    ) -> tuple[array[float], bool]:
        """One column's values at once; empty or bad ones become NaN (and are skipped later).

        nmon repeats itself (0.0, the same totals every snapshot: about 6 % of the values are
        distinct), so each distinct text is converted once and the rest are dict lookups.
        """
        float_of = self.float_of
        if len(float_of) > _FLOAT_CACHE_LIMIT:
            float_of.clear()
        for text in set(texts).difference(float_of):
            try:
                float_of[text] = float(text)
            except ValueError:
                float_of[text] = math.nan
                self.nan_texts.add(text)
        values = array("d", map(float_of.__getitem__, texts))
        if self.nan_texts.isdisjoint(texts):
            return values, False
        for row, text in enumerate(texts):
            if text in self.nan_texts and text.strip():
                self.result.diagnose(line_numbers[row], f"{name}: not a number {text[:20]!r}")
        return values, True

    def _add(self, spec: _Column, times_ms: array[int], values: array[float], gaps: bool) -> None:
        if gaps:
            kept = [i for i, v in enumerate(values) if v == v]  # NaN != NaN
            if len(kept) != len(values):
                times_ms = array("q", [times_ms[i] for i in kept])
                values = array("d", [values[i] for i in kept])
            if not values:
                return
        key = (spec.name, tuple(sorted(spec.labels.items())))
        series = self.series.get(key)
        if series is None:
            self.series[key] = SeriesData(
                spec.name, dict(spec.labels), spec.unit, array("q", times_ms), values
            )
        else:
            self._own_times(series)
            series.times_ms.extend(times_ms)
            series.values.extend(values)

    def _flush_top(self) -> None:
        """TOP rows grouped per (pid, command); the common row width is sliced in bulk.

        ``TOP,<pid>,T<n>,<%CPU>,...``: field i of a row is column i - 1 of the header.
        """
        top = self.top
        if not top.lines:
            return
        commas = list(map(str.count, top.lines, repeat(",")))
        widths = np.array(commas, dtype=np.int64)
        usual = int(np.bincount(widths).argmax())
        titles = map(str.startswith, top.lines, repeat(("TOP,+PID", "TOP,%CPU")))
        odd = (widths != usual) | np.fromiter(titles, dtype=bool, count=len(commas))
        if odd.any():
            for row in np.flatnonzero(odd).tolist():
                self._top_odd_row(top.line_numbers[row], top.lines[row])
            kept = (~odd).tolist()
            rows = list(compress(top.lines, kept))
            row_lines = list(compress(top.line_numbers, kept))
        else:
            rows, row_lines = top.lines[:], top.line_numbers[:]
        del top.lines[:]
        del top.line_numbers[:]
        layout = self._top_layout()
        if not rows or layout is None or max(layout[0], layout[1], *layout[2]) > usual:
            for line, line_number in zip(rows, row_lines, strict=True):
                self._top_odd_row(line_number, line)
            return
        for start in range(0, len(rows), _TOP_CHUNK_ROWS):
            end = start + _TOP_CHUNK_ROWS
            self._top_rows(rows[start:end], row_lines[start:end], usual + 1, layout)

    def _top_rows(
        self,
        rows: list[str],
        row_lines: list[int],
        stride: int,
        layout: tuple[int, int, list[int]],
    ) -> None:
        """TOP rows of one width (``stride`` fields) into their processes, in bulk."""
        cpu_at, command_at, resident_at = layout
        fields = ",".join(rows).split(",")
        tags = fields[2::stride]
        times = list(map(self.snapshot_ms.get, tags))
        if None in times:
            times = [
                self._estimate_time(tag) if moment is None and _SNAPSHOT_TAG.match(tag) else moment
                for tag, moment in zip(tags, times, strict=True)
            ]
        cpu, _ = self._to_floats("TOP", fields[cpu_at::stride], row_lines)
        resident: array[float] | None = None
        if resident_at:
            resident, _ = self._to_floats("TOP", fields[resident_at[0] :: stride], row_lines)
            for more_at in resident_at[1:]:
                more, _ = self._to_floats("TOP", fields[more_at::stride], row_lines)
                resident = array("d", map(add, resident, more))
        cpu_np = np.frombuffer(cpu, dtype=np.float64)
        good = cpu_np == cpu_np  # NaN != NaN
        if None in times:
            for row in [row for row, moment in enumerate(times) if moment is None]:
                good[row] = False
                times[row] = 0
        for row in np.flatnonzero(~good).tolist():
            self.result.diagnose(row_lines[row], "unreadable TOP row: bad snapshot tag or %CPU")
        # Rows grouped per process by numpy: one code per (pid, command), then a stable sort.
        ids: defaultdict[tuple[str, str], int] = defaultdict(itertools.count().__next__)
        codes = np.fromiter(
            map(ids.__getitem__, zip(fields[1::stride], fields[command_at::stride], strict=True)),
            dtype=np.int64,
            count=len(times),
        )
        del fields
        times_np = np.array(times, dtype=np.int64)
        resident_np = None if resident is None else np.frombuffer(resident, dtype=np.float64)
        order = np.argsort(codes, kind="stable")
        order = order[good[order]]
        bounds = np.searchsorted(codes[order], np.arange(len(ids) + 1))
        processes = self.processes
        for key, code in ids.items():
            picked = order[bounds[code] : bounds[code + 1]]
            if not len(picked):
                continue
            process = processes.get(key)
            if process is None:
                process = processes[key] = _Process()
            process.extend(times_np, cpu_np, resident_np, picked)

    def _top_layout(self) -> tuple[int, int, list[int]] | None:
        """Field positions of %CPU, Command and the resident-size columns in a TOP row."""
        positions = {c.lower(): i + 1 for i, c in enumerate(self.top_columns)}
        if "%cpu" not in positions or "command" not in positions:
            return None
        if "resset" in positions:  # Linux
            resident = [positions["resset"]]
        else:  # AIX: resident text + data
            resident = [positions[c] for c in ("restext", "resdata") if c in positions]
        return positions["%cpu"], positions["command"], resident

    def _top_odd_row(self, line_number: int, line: str) -> None:
        """A header, a title, or a row of unusual width (a command with a comma)."""
        fields = line.split(",")
        second = fields[1].strip() if len(fields) > 1 else ""
        if second.startswith("+PID"):
            self.top_columns = [c.strip() for c in fields[1:]]
            return
        if second.startswith("%CPU") and len(fields) == 2:
            return  # "TOP,%CPU Utilisation": a title
        layout = self._top_layout()
        extra = len(fields) - 1 - len(self.top_columns)
        try:
            if layout is None:
                raise ValueError("no TOP header with %CPU and Command columns")
            cpu_at, command_at, resident_at = layout
            moment = self.snapshot_ms.get(fields[2])
            if moment is None:
                if _SNAPSHOT_TAG.match(fields[2]):
                    moment = self._estimate_time(fields[2])
                if moment is None:
                    raise ValueError(f"bad snapshot tag {fields[2][:20]!r}")
            cpu = float(fields[cpu_at])
            # A comma inside the command shifts the columns after it.
            command = ",".join(fields[command_at : command_at + 1 + max(extra, 0)])
            after_command = extra if extra > 0 else 0
            resident = sum(
                float(fields[i + (after_command if i > command_at else 0)]) for i in resident_at
            )
        except (ValueError, IndexError) as exc:
            self.result.diagnose(line_number, f"unreadable TOP row: {exc}")
            return
        process = self.processes.get((second, command))
        if process is None:
            process = self.processes[(second, command)] = _Process()
        process.times_ms.append(moment)
        process.cpu_pct.append(cpu)
        if resident_at:
            process.res_times_ms.append(moment)
            process.res_kb.append(resident)

    def _flush_uarg(self) -> None:
        # AIX: +Time,PID,PPID,COMM,THCOUNT,USER,GROUP,FullCommand; Linux: +Time,PID,ProgName,FullCommand.
        columns = [c.lower() for c in self.uarg_columns]
        pid_at = columns.index("pid") if "pid" in columns else 1
        command_at = columns.index("fullcommand") if "fullcommand" in columns else len(columns) - 1
        for line_number, fields in self.uarg_rows:
            if len(fields) <= max(command_at, pid_at):
                self.result.diagnose(line_number, "UARG row without a command line")
                continue
            pid = fields[pid_at].strip().lstrip("0") or "0"
            command = ",".join(fields[command_at:]).strip()
            self._fact(f"nmon.uarg.{pid}", command, self.snapshot_ms.get(fields[0].strip()))
        self.uarg_rows = []

    # ---- helpers

    def _fact(self, key: str, value: str, time_ms: int | None = None) -> None:
        if key not in self.facts and value:
            self.facts[key] = Fact(key, value, time_ms)

    def _interval_ms(self) -> int:
        try:
            seconds = float((self.aaa.get("interval") or [""])[0])
        except ValueError:
            return _DEFAULT_INTERVAL_MS
        return int(seconds * 1000) if 0 < seconds < 1e7 else _DEFAULT_INTERVAL_MS

    def _estimate_time(self, tag: str) -> int | None:
        """A snapshot without a ZZZZ line: from the nearest timed one, the AAA start, or the
        upload. None when that lies past what a time can be (a tag of 20 digits, say)."""
        number = int(tag[1:])
        interval = self._interval_ms()
        if self.snapshot_ms:
            base_tag = min(self.snapshot_ms, key=lambda t: abs(int(t[1:]) - number))
            estimate = self.snapshot_ms[base_tag] + (number - int(base_tag[1:])) * interval
        else:
            start = self._aaa_start_ms()
            if start is not None:
                estimate = start + number * interval
            else:
                estimate = self.context.default_time_ms + (number - 1) * interval
        return estimate if _INT64_MIN <= estimate <= _INT64_MAX else None

    def _aaa_start_ms(self) -> int | None:
        # AAA,time,16:52.29 (nmon writes a dot before the seconds)
        clock = (self.aaa.get("time") or [""])[0].replace(".", ":")
        date = (self.aaa.get("date") or [""])[0]
        return self._clock_ms(clock, date) if clock and date else None

    # ---- end of file

    def _finish(self, line_count: int, cut_line: int) -> None:
        result = self.result
        self._aaa_facts()
        self._top_series()
        result.series = list(self.series.values())
        result.facts = list(self.facts.values())
        if cut_line:
            result.diagnose(
                cut_line, "file ends mid-line (cut while nmon was writing); last line dropped"
            )
        if not self.aaa and (result.series or result.facts):
            result.diagnose(
                0,
                "no AAA header block (a fragment of an nmon file): interval, OS and planned snapshot "
                "count unknown"
                + (f"; host {result.host!r} taken from the section headers" if result.host else ""),
            )
        if not self.snapshots_read and result.series:
            result.diagnose(0, "no ZZZZ snapshot time lines: snapshots placed by the interval")
        planned = (self.aaa.get("snapshots") or [""])[0]
        if planned.isdigit() and self.runs == 1 and 0 < self.snapshots_read < int(planned):
            result.diagnose(
                line_count,
                f"capture holds {self.snapshots_read} of the {planned} snapshots planned "
                "(run stopped early or file cut)",
            )
        if self.runs > 1:
            result.diagnose(
                0, f"file holds {self.runs} nmon runs one after the other; all were read"
            )
        if not (result.series or result.facts or result.diagnostics):
            result.diagnose(0, "no nmon sections, snapshots or header lines found")

    def _aaa_facts(self) -> None:
        aaa = self.aaa
        host = (aaa.get("host") or [""])[0]
        cpu_all = self.sections.get("CPU_ALL")
        if host:
            self.result.host = host
        elif cpu_all and cpu_all.description.startswith("CPU Total "):
            self.result.host = cpu_all.description[len("CPU Total ") :].strip() or None
        for fact_key, aaa_key in (
            ("nmon.host", "host"),
            ("nmon.version", "version"),
            ("nmon.progname", "progname"),
            ("nmon.command", "command"),
            ("nmon.interval_s", "interval"),
            ("nmon.snapshots", "snapshots"),
            ("nmon.hardware", "hardware"),
            ("nmon.boottime", "boottime"),
            ("nmon.cpu_model", "x86.ModelName"),
        ):
            if aaa.get(aaa_key):
                self._fact(fact_key, ",".join(aaa[aaa_key]).strip(", "))
        if aaa.get("OS"):  # Linux,3.10.0-327.el7.s390x,#1 SMP Sat Jan 23 ...,s390x
            os_fields = aaa["OS"]
            self._fact("nmon.os", " ".join([*os_fields[:2], *os_fields[3:4]]))
        elif aaa.get("AIX"):
            self._fact("nmon.os", f"AIX {aaa['AIX'][0]}")
        cpus = [c for c in aaa.get("cpus", []) if c]
        if cpus:
            self._fact("nmon.cpus", cpus[-1])  # AIX: cpus,<max>,<in use>
            if len(cpus) > 1:
                self._fact("nmon.cpus_max", cpus[0])
        if aaa.get("MachineType"):
            self._fact("nmon.machine_type", " ".join(aaa["MachineType"]))
        if self.snapshots_read:
            self._fact("nmon.snapshots_read", str(self.snapshots_read))

    def _top_series(self) -> None:
        if not self.processes:
            return
        peaks = {key: max(p.cpu_pct) for key, p in self.processes.items()}
        ranked = sorted(peaks, key=peaks.__getitem__, reverse=True)
        kept = [
            key
            for rank, key in enumerate(ranked)
            if rank < TOP_ALWAYS_KEPT or peaks[key] > TOP_MIN_PEAK_CPU_PCT
        ][:TOP_MAX_PROCESSES]
        for pid, command in kept:
            process = self.processes[(pid, command)]
            # Linux nmon zero-pads the pid (0003878); commands may carry spaces (AIX "oracle ").
            labels = {"pid": pid.strip().lstrip("0") or "0", "command": command.strip()}
            self._add(_Column("top.cpu_pct", labels, "%"), process.times_ms, process.cpu_pct, False)
            if process.res_kb:
                self._add(
                    _Column("top.res_size_kb", labels, "KB"),
                    process.res_times_ms,
                    process.res_kb,
                    False,
                )
        self._fact("nmon.top.processes_seen", str(len(self.processes)))
        self._fact("nmon.top.processes_kept", str(len(kept)))


# --------------------------------------------------------------------------- columnar fast path


try:  # the compiled inner loop, where the package was built with it (see setup.py)
    from rootline.parsers import _nmon_fast as _fast
except ImportError:  # pragma: no cover - a machine without a C compiler at install
    _fast = None  # type: ignore[assignment]


class _Bail(Exception):
    """Something the columnar path does not read exactly as the line path: the file is read
    again by the line path (which diagnoses it)."""


# pyarrow (about 45 ms to import) is loaded by the columnar path when it first runs, not
# with this module: every process imports the parsers, few read an nmon file.
pa: Any = None
pc: Any = None
pa_csv: Any = None
_ARROW_CSV_PARSE: Any = None


def _load_arrow() -> None:
    global pa, pc, pa_csv, _ARROW_CSV_PARSE
    if _ARROW_CSV_PARSE is not None:
        return
    import pyarrow
    import pyarrow.compute
    import pyarrow.csv

    pa, pc, pa_csv = pyarrow, pyarrow.compute, pyarrow.csv
    # pyarrow's default pool (mimalloc) keeps what a block's tables freed: 0.2x to 0.3x a
    # 100 MB capture more at the peak than jemalloc, which returns it (a pyarrow built
    # without jemalloc keeps its default). The ss parser names its own pool (malloc's).
    with contextlib.suppress(NotImplementedError):
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    _ARROW_CSV_PARSE = pa_csv.ParseOptions(
        delimiter=",",
        quote_char=False,
        escape_char=False,
        newlines_in_values=False,
        ignore_empty_lines=False,
    )


# A line's section name is the text before its first comma; names are looked for this far.
_NAME_SPAN = 24
# Masks keeping a little-endian word's first 0..8 bytes.
_BYTE_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
_ZZZZ_CLOCK = r"^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$"
# Digits of a snapshot tag the columnar path reads (more would not fit an int64).
_TAG_MAX_DIGITS = 18


@dataclass(slots=True)
class _Rows:
    """One section's rows of the run so far: their times and each column's values (NaN for
    an empty value), a chunk per block, joined into the arrays the series take at the run's
    end (see :func:`_joined_array`)."""

    times_ms: list[np.ndarray] = field(default_factory=list)
    columns: list[list[np.ndarray]] = field(default_factory=list)
    gaps: list[bool] = field(default_factory=list)  # per column: any NaN
    count: int = 0  # rows, header repeats included (as the line path's section.lines)
    stride: int = 0  # fields per row
    last_line: str = ""


class _Columnar:
    """The whole file at C speed with pyarrow, for the usual shape: one run, every line of a
    section as wide as the others, snapshot times ``HH:MM:SS`` with a date, every value a
    number or empty, no CR. Lines are cut at ``\\n`` by numpy, grouped per section by their
    first field, and each section's rows of a block read by one ``pyarrow.csv`` call; each
    row's time is looked up by its tag's number among the ZZZZ lines read so far (a row
    before its ZZZZ line goes to the line path). A section's times and its columns are grown
    a block at a time into the arrays its series keep. Header, AAA, BBB and UARG lines (a few) go
    through the line path's own handlers, in file order. Anything else raises :class:`_Bail`
    and the file is read by the line path, so diagnostics, odd rows and cut files read as
    they always did."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.rows: dict[str, _Rows] = {}
        self.zzzz_tags: list[Any] = []
        self.zzzz_ms_all = np.empty(0, dtype=np.int64)  # the ZZZZ lines' times so far
        self.zzzz_digits = np.empty(0, dtype=np.int64)  # and their tags' digit counts
        # and their tags' text after the "T" (digits and comma) as little-endian words, each
        # to be compared under its mask; a tag too long for a word is a word no row matches
        self.zzzz_words = np.empty(0, dtype=np.uint64)
        self.zzzz_masks = np.empty(0, dtype=np.uint64)
        self.top_rows = 0  # TOP data rows read
        self.top_widths: list[int] = []
        self.top_stride = 0
        self.top_layout: tuple[int, int, list[int]] | None = None
        self.has_data = False
        self.last_zzzz: tuple[str, int] | None = None
        # Snapshot tag number -> position in the ZZZZ lines (-1: none), their tags and times.
        self.snapshot_at = np.empty(0, dtype=np.int64)
        # (section, header line repeated among its rows) -> its description, once checked
        self.header_repeats: dict[tuple[str, str], str] = {}
        # Block-sized buffers used again at every block (see _scratch).
        self.scratch: dict[str, np.ndarray] = {}

    def read(self, text: str) -> ParseResult:
        return self.read_pieces(_blocks_of(text))

    def read_pieces(self, pieces: Iterator[str] | Iterator[str | bytes]) -> ParseResult:
        """The text's pieces cut again into blocks of _COLUMNAR_BLOCK characters and a line
        or so, where a whole text would be cut: the same blocks however it came. A block is
        read from its parts, never joined into one string (see :meth:`_block`). A piece may
        be ASCII text's bytes (see ``TextPieces.ascii_as_bytes``): as many as its characters."""
        reader = self.reader
        first_number = 1
        parts: list[str | bytes] = []  # the next block so far
        size = 0  # its characters
        ends_line = False
        piece: Any
        newline: Any
        odd: Any
        for piece in pieces:
            if isinstance(piece, bytes):
                newline, odd = b"\n", (b"\r", b"\0")
            else:
                newline, odd = "\n", ("\r", "\0")
            if odd[0] in piece or odd[1] in piece:
                raise _Bail
            if not piece:
                continue
            _load_arrow()
            ends_line = piece.endswith(newline)
            while (stop := piece.find(newline, max(0, _COLUMNAR_BLOCK - size))) >= 0:
                parts.append(piece[: stop + 1])
                piece = piece[stop + 1 :]
                first_number += self._block_or_bail(parts, first_number)
                size = 0
            if piece:
                parts.append(piece)
                size += len(piece)
            del piece
        if not ends_line:
            raise _Bail  # no text, or its last line cut: diagnosed by the line path
        if parts:
            first_number += self._block_or_bail(parts, first_number)
        self.scratch.clear()  # before the run's arrays are joined, the peak
        try:
            self._end_run()
        except pa.ArrowException as exc:
            raise _Bail from exc
        reader._finish(first_number - 1, 0)
        return reader.result

    def _block_or_bail(self, parts: list[str | bytes], first_number: int) -> int:
        try:
            return self._block(parts, first_number)
        except pa.ArrowException as exc:
            raise _Bail from exc

    # ---- one block of whole lines

    def _block(self, parts: list[str | bytes], first_number: int) -> int:
        """Read the whole lines in ``parts`` (emptied: each part dropped once copied)."""
        # Each part encoded and copied in turn, so the block is never text and bytes at once
        # (ASCII text, the usual, is as many bytes as characters; else encoded first). A
        # bytes part is ASCII text's (see read_pieces).
        raw: list[str | bytes] = list(parts)
        parts.clear()
        if not all(isinstance(part, bytes) or part.isascii() for part in raw):
            raw = [part.encode() if isinstance(part, str) else part for part in raw]
        size = sum(map(len, raw))
        # The block's bytes go into the same buffer each time (see _scratch); only the padding
        # for the key reads is zeroed.
        data = self._scratch("data", size + 2 * _NAME_SPAN + 8, np.uint8)
        data[size:] = 0
        at = 0
        while raw:
            part = raw.pop(0)
            encoded = part.encode() if isinstance(part, str) else part
            del part
            data[at : at + len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
            at += len(encoded)
            del encoded
        # Where each line lies, its section name and its tag: by the compiled loop, or numpy.
        index = None if _fast is None else _fast.index_lines(data, size, _NAME_SPAN)
        if index is None:
            index = self._index(data, size)
        offsets, keys, order, bounds, tag_at, tagged, tag_words, top_at, top_tagged = index
        del index
        count = len(offsets) - 1
        # Each string is a line with its "\n": a taken run of them is CSV text as it is.
        lines = pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(data))
        names = [key.decode() for key in keys]
        slow: list[int] = []  # rows read by the line path's handlers, in file order
        bulk: list[tuple[str, np.ndarray]] = []
        sections = self.reader.sections
        for code, name in enumerate(names):
            rows = order[bounds[code] : bounds[code + 1]]
            if name == "\n":
                continue  # empty lines
            if "\n" in name or len(name) >= _NAME_SPAN or not name:
                raise _Bail  # a line without a comma, or no name
            if name == "AAA" or name == "UARG" or name.startswith("BBB"):
                slow.extend(rows.tolist())
            elif name in ("ZZZZ", "TOP") or name in sections:
                bulk.append((name, rows))
            else:  # its first line opens the section (a header); the rest are its rows
                slow.append(int(rows[0]))
                if len(rows) > 1:
                    bulk.append((name, rows[1:]))
        first_bulk = min((int(rows[0]) for _, rows in bulk), default=count)
        for row in sorted(slow):
            line = lines[row].as_py()[:-1]
            progname = line.startswith("AAA,") and line.split(",", 2)[1].strip() == "progname"
            if progname and (self.has_data or row > first_bulk):
                raise _Bail  # a second run
            self.reader._slow_line(row + first_number, line)
        if any(section.lines for section in sections.values()):
            raise _Bail  # a row before its section's header
        bulk.sort(key=lambda named: named[0] != "ZZZZ")  # times first: rows look them up
        zzzz_rows = np.empty(0, dtype=np.int64)
        latest: np.ndarray | None = None  # each line's latest ZZZZ line (see _times)
        for name, rows in bulk:
            self.has_data = True
            if name == "ZZZZ":
                zzzz_rows = rows
                self._zzzz(lines.take(rows), rows, first_number, _words_at(data, tag_at[rows] + 1))
                continue
            if latest is None:  # once, after the block's ZZZZ lines
                latest = self._latest_snapshots(count, zzzz_rows)
            if name == "TOP":
                self._top(
                    lines, rows, top_tagged[rows], data, top_at[rows], latest[rows], first_number
                )
            else:
                self._section(
                    name,
                    lines,
                    rows,
                    tagged[rows],
                    data,
                    tag_at[rows],
                    tag_words[rows],
                    latest[rows],
                    first_number,
                )
        return count

    def _index(self, data: np.ndarray, size: int) -> tuple[Any, ...]:
        """What ``_nmon_fast.index_lines`` returns, by numpy (where the compiled loop was not
        built, or left the block): each line's offsets, the names in order of first appearance
        (bytes), the lines of each name (``order``, ``bounds``), its tag's place and whether it
        is one, the tag's 8 bytes, and for TOP lines the tag after the pid."""
        ends = self._newlines(data[:size])
        count = len(ends)
        offsets = np.empty(count + 1, dtype=np.int32)
        offsets[0] = 0
        offsets[1:] = ends + 1
        starts = offsets[:-1]
        # Each line's first _NAME_SPAN bytes, one item of a view whose items overlap (read
        # as three unaligned words instead, numpy copied them one call per word: 4x the
        # time); its name ends at the first comma in them.
        spans = np.ndarray(
            (size + _NAME_SPAN,), dtype=f"V{_NAME_SPAN}", buffer=data.data, strides=(1,)
        )
        span = _NAME_SPAN // 8
        keys = spans[starts].view("<u8").reshape(count, span)
        is_comma = keys.view(np.uint8).reshape(count, _NAME_SPAN) == 44
        name_length = is_comma.argmax(axis=1)
        lengths = ends - starts
        no_comma = ~is_comma[np.arange(count), name_length] | (name_length >= lengths)
        del is_comma
        if no_comma.any():
            if (lengths[no_comma] >= _NAME_SPAN).any():
                raise _Bail  # a name too long for the key, or a long line without a comma
            if (lengths[no_comma] != 0).any():
                raise _Bail  # a line without a comma (the line path cuts its last character)
            name_length[no_comma] = 1  # an empty line: its name is "\n"
        for word in range(span):
            keys[:, word] &= _BYTE_MASKS[np.clip(name_length - 8 * word, 0, 8)]
        encoded = pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(_NAME_SPAN), count, [None, pa.py_buffer(keys)]
        ).dictionary_encode()
        # A data row: "T<digit>" after the name (TOP: after the pid, see _top).
        tag_at = starts + name_length + 1
        tagged = (data[tag_at] == 84) & ((data[tag_at + 1] - 48) < 10)
        # The 8 bytes after each line's "T" (see _times), read here in file order: read per
        # section, a line's in another cache line than the one before, they took 3 times as long.
        tag_words = _words_at(data, tag_at + 1)
        del keys, name_length, lengths, no_comma  # (the peak is a block's temporaries)
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        order = np.argsort(codes.astype(np.uint16), kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(encoded.dictionary) + 1))
        names = [key.rstrip(b"\0") for key in encoded.dictionary.to_pylist()]
        del codes, encoded
        # TOP rows: the second comma within _NAME_SPAN bytes of the first, then "T<digit>".
        top_at = np.zeros(count, dtype=np.int64)
        top_tagged = np.zeros(count, dtype=bool)
        if b"TOP" in names:
            code = names.index(b"TOP")
            rows = order[bounds[code] : bounds[code + 1]]
            after = spans[tag_at[rows]].view(np.uint8).reshape(len(rows), _NAME_SPAN)
            is_comma = after == 44
            pid_length = is_comma.argmax(axis=1)
            top_at[rows] = tag_at[rows] + pid_length + 1
            found = is_comma[np.arange(len(rows)), pid_length] & (top_at[rows] < ends[rows])
            top_tagged[rows] = (
                found & (data[top_at[rows]] == 84) & ((data[top_at[rows] + 1] - 48) < 10)
            )
        return offsets, names, order, bounds, tag_at, tagged, tag_words, top_at, top_tagged

    def _scratch(self, name: str, size: int, dtype: Any) -> np.ndarray:
        """``size`` items of the buffer ``name``, the same memory at every block (grown when
        too small). A new array per block was new memory per block: numpy asks for huge pages
        for arrays of 4 MB or more, and their faults (each page zeroed by the kernel as it is
        first touched) were a tenth of the parse."""
        buffer = self.scratch.get(name)
        if buffer is None or len(buffer) < size:
            buffer = self.scratch[name] = np.empty(size + size // 64, dtype=dtype)
        return buffer[:size]

    def _newlines(self, data: np.ndarray) -> np.ndarray:
        """Where ``data`` holds a ``\\n``, found a slice at a time through one small buffer
        (not a block-sized one, which would be held through the block: the parse's peak)."""
        flags = self._scratch("flags", min(len(data), _NEWLINE_SLICE), bool)
        found = []
        for start in range(0, len(data), _NEWLINE_SLICE):
            part = data[start : start + _NEWLINE_SLICE]
            where = np.flatnonzero(np.equal(part, 10, out=flags[: len(part)]))
            found.append(where + start if start else where)
        return found[0] if len(found) == 1 else np.concatenate([np.empty(0, np.intp), *found])

    def _latest_snapshots(self, count: int, zzzz_rows: np.ndarray) -> np.ndarray:
        """For each of the block's ``count`` lines, the ZZZZ line at or before it in the file:
        its position among the ZZZZ lines read so far (this block's, at ``zzzz_rows``,
        included), -1 for none."""
        latest = np.zeros(count, dtype=np.int64)
        latest[zzzz_rows] = 1
        np.cumsum(latest, out=latest)
        latest += len(self.zzzz_ms_all) - len(zzzz_rows) - 1
        return latest

    def _csv(self, lines: Any, stride: int, types: dict[int, Any]) -> Any:
        """Rows of ``stride`` fields read as CSV; only the ``types`` columns converted."""
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
        first, last = int(offsets[lines.offset]), int(offsets[lines.offset + len(lines)])
        names = [f"f{i}" for i in range(stride)]
        try:
            return pa_csv.read_csv(
                pa.BufferReader(lines.buffers()[2][first:last]),
                read_options=pa_csv.ReadOptions(
                    column_names=names, use_threads=False, block_size=1 << 30
                ),
                parse_options=_ARROW_CSV_PARSE,
                convert_options=pa_csv.ConvertOptions(
                    column_types={names[i]: kind for i, kind in types.items()},
                    include_columns=[names[i] for i in sorted(types)],
                    null_values=[""],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    check_utf8=False,
                ),
            )
        except (pa.ArrowInvalid, ValueError) as exc:
            raise _Bail from exc

    def _section(
        self,
        name: str,
        lines: Any,
        rows: np.ndarray,
        tagged: np.ndarray,
        data: np.ndarray,
        tag_at: np.ndarray,
        tag_words: np.ndarray,
        latest: np.ndarray,
        first_number: int,
    ) -> None:
        section = self.reader.sections.get(name)
        if section is None or section.columns is None:
            raise _Bail  # a line the line path diagnoses, or rows under a header without columns
        held = self.rows.get(name)
        if held is None:
            held = self.rows[name] = _Rows()
        held.count += len(rows)
        held.last_line = lines[int(rows[-1])].as_py()[:-1]
        if not held.stride:
            held.stride = held.last_line.count(",") + 1
        stride = held.stride
        if not tagged.all():
            # Only repeats of the header itself are passed over (as _flush_uniform does).
            # A repeat seen before is not checked again (nmon rewrites VM's 100 columns).
            for row in rows[~tagged].tolist():
                line = lines[row].as_py()[:-1]
                description = self.header_repeats.get((name, line))
                if description is None:
                    fields = line.split(",")
                    names = [c.strip() for c in fields[2:]]
                    while names and not names[-1]:
                        names.pop()
                    if len(fields) != stride or names != section.columns:
                        raise _Bail
                    description = self.header_repeats[(name, line)] = fields[1]
                section.description = description
            rows, tag_at, latest = rows[tagged], tag_at[tagged], latest[tagged]
            tag_words = tag_words[tagged]
            if not len(rows):
                return
        if not 0 < stride - 2 <= len(section.columns):
            raise _Bail
        times, digits = self._times(data, tag_at, latest, tag_words)
        # The name and the tag (read from the block's bytes by _times) are not values.
        cuts = tag_at + digits + 2
        line_ends = np.frombuffer(lines.buffers()[1], dtype=np.int32)[rows + 1]
        if stride > 3 and (cuts >= line_ends - 1).any():
            # A row ending at its tag: whole, too few fields (the line path diagnoses it);
            # cut, an empty line, which the CSV reader reads as a row of nulls at any width.
            raise _Bail
        values, gaps = self._values(lines, rows, data, cuts, line_ends, stride - 2)
        held.times_ms.append(times)
        if not held.columns:
            held.columns = [[] for _ in range(stride - 2)]
            held.gaps = [False] * (stride - 2)
        for position, column in enumerate(held.columns):
            column.append(values[position])
            held.gaps[position] = held.gaps[position] or gaps[position]

    def _values(
        self,
        lines: Any,
        rows: np.ndarray,
        data: np.ndarray,
        cuts: np.ndarray,
        line_ends: np.ndarray,
        width: int,
    ) -> tuple[list[np.ndarray], list[bool]]:
        """The ``width`` values after each row's tag (from ``cuts`` to the end of its line),
        column by column, and whether each column has an empty value (NaN). Read by the
        compiled loop where it was built and every value is a plain decimal number (see
        ``_nmon_fast``), else by ``pyarrow.csv``: the same numbers, bit for bit."""
        if _fast is not None:
            matrix = np.empty((width, len(rows)), dtype=np.float64)
            empty = np.zeros(width, dtype=np.uint8)
            stops = line_ends.astype(np.int64) - 1  # before the "\n"
            if _fast.section_values(data, cuts.astype(np.int64), stops, matrix, empty) < 0:
                return list(matrix), empty.astype(bool).tolist()
        table = self._csv(
            _slices(lines, cuts, line_ends),  # past the tags: a third less text to split
            width,
            dict.fromkeys(range(width), pa.float64()),
        )
        values: list[np.ndarray] = []
        gaps: list[bool] = []
        for position in range(width):
            column = table.column(position).to_numpy()
            values.append(np.array(column, dtype=np.float64))  # a copy: not arrow's memory
            gaps.append(bool((column != column).any()))
        return values, gaps

    def _top(
        self,
        lines: Any,
        rows: np.ndarray,
        tagged: np.ndarray,
        data: np.ndarray,
        tag_at: np.ndarray,
        latest: np.ndarray,
        first_number: int,
    ) -> None:
        reader = self.reader
        if not tagged.all():
            for row in rows[~tagged].tolist():
                line = lines[row].as_py()[:-1]
                if self.top_rows or not line.startswith(("TOP,+PID", "TOP,%CPU")):
                    raise _Bail  # a header after rows, or an odd row
                if line.startswith("TOP,%CPU") and line.count(",") != 1:
                    raise _Bail
                reader._top_odd_row(row + first_number, line)
                self.top_widths.append(line.count(","))
            rows, tag_at, latest = rows[tagged], tag_at[tagged], latest[tagged]
            if not len(rows):
                return
        if not self.top_rows:
            self.top_stride = lines[int(rows[0])].as_py().count(",") + 1
            self.top_layout = reader._top_layout()
            if self.top_layout is None:
                raise _Bail
            cpu_at, command_at, resident_at = self.top_layout
            used = [1, 2, cpu_at, command_at, *resident_at]
            if len(set(used)) != len(used) or max(used) >= self.top_stride:
                raise _Bail
        assert self.top_layout is not None
        cpu_at, command_at, resident_at = self.top_layout
        self.top_rows += len(rows)
        # The tags (field 2) are read from the block's bytes by _times, not converted here;
        # pids and commands as dictionaries, which group the rows per process (_group_top).
        read = self._top_fast(lines, rows, data)
        if read is None:
            text = pa.dictionary(pa.int32(), pa.string())
            types = {1: text, cpu_at: pa.float64(), command_at: text}
            types.update(dict.fromkeys(resident_at, pa.float64()))
            table = self._csv(lines.take(rows), self.top_stride, types)
            pids, commands = table.column("f1"), table.column(f"f{command_at}")
            if pids.num_chunks != 1 or commands.num_chunks != 1:
                raise _Bail  # (one CSV block: never)
            cpu = table.column(f"f{cpu_at}").to_numpy()
            resident = None
            for at in resident_at:
                more = table.column(f"f{at}").to_numpy()
                resident = more if resident is None else resident + more
            read = pids.chunk(0), commands.chunk(0), cpu, resident
        pids, commands, cpu, resident = read
        if np.isnan(cpu).any():
            raise _Bail  # an empty or NaN %CPU: diagnosed by the line path
        times = self._times(data, tag_at, latest)[0]
        self._group_top(pids, commands, times, cpu, resident)

    def _top_fast(
        self, lines: Any, rows: np.ndarray, data: np.ndarray
    ) -> tuple[Any, Any, np.ndarray, np.ndarray | None] | None:
        """What :meth:`_top` reads of the TOP ``rows`` (pids and commands as dictionary
        arrays, %CPU, the resident size), by the compiled loop (see ``_nmon_fast``), or None
        where it was not built or a row is not plain (pyarrow.csv reads it then)."""
        assert self.top_layout is not None
        cpu_at, command_at, resident_at = self.top_layout
        if _fast is None or len(resident_at) > 2:  # (a sum of two is the same either way)
            return None
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
        starts = offsets[rows].astype(np.int64)
        stops = offsets[rows + 1].astype(np.int64) - 1  # before the "\n"
        cpu = np.empty(len(rows), dtype=np.float64)
        resident = np.empty(len(rows), dtype=np.float64)
        bounds = np.empty(4 * len(rows), dtype=np.int32)
        refused = _fast.top_values(
            data,
            starts,
            stops,
            self.top_stride,
            cpu_at,
            command_at,
            np.array(sorted(resident_at), dtype=np.int64),
            cpu,
            resident,
            bounds,
        )
        if refused >= 0:
            return None
        pairs = bounds.reshape(len(rows), 4)
        pids = _slices(lines, pairs[:, 0], pairs[:, 1]).dictionary_encode()
        commands = _slices(lines, pairs[:, 2], pairs[:, 3]).dictionary_encode()
        return pids, commands, cpu, resident if resident_at else None

    def _zzzz(self, lines: Any, rows: np.ndarray, first_number: int, words: np.ndarray) -> None:
        """The ZZZZ lines ``lines`` (at ``rows`` of the block); ``words``: the 8 bytes after
        each one's "T", as little-endian words (see _times)."""
        table = self._csv(lines, 4, dict.fromkeys(range(1, 4), pa.string()))
        tags, clocks, dates = (table.column(i).combine_chunks() for i in range(3))
        if not (
            pc.all(pc.match_substring_regex(tags, r"^T[0-9]+$")).as_py()
            and pc.all(pc.match_substring_regex(clocks, _ZZZZ_CLOCK)).as_py()
        ):
            raise _Bail
        digits = np.frombuffer(clocks.buffers()[2], dtype=np.uint8)
        start = int(np.frombuffer(clocks.buffers()[1], dtype=np.int32)[clocks.offset])
        digits = (digits[start : start + 8 * len(clocks)].reshape(-1, 8) - 48).astype(np.int64)
        hours = digits[:, 0] * 10 + digits[:, 1]
        minutes = digits[:, 3] * 10 + digits[:, 4]
        seconds = digits[:, 6] * 10 + digits[:, 7]
        if (minutes > 59).any() or (seconds > 60).any() or (hours > 23).any():
            raise _Bail
        encoded = dates.dictionary_encode()
        date_hours = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64) * 24 + hours
        # One datetime per (day, hour) present, as _clock_ms does.
        pairs, where = np.unique(date_hours, return_inverse=True)
        days = encoded.dictionary.to_pylist()
        hour_starts = np.empty(len(pairs), dtype=np.int64)
        for place, pair in enumerate(pairs.tolist()):
            date = days[pair // 24]
            start_ms = self.reader._hour_start_ms(date, f"{pair % 24:02d}")
            if start_ms is None or date != date.strip():
                raise _Bail
            hour_starts[place] = start_ms
        moments = hour_starts[where] + minutes * 60_000 + seconds * 1000
        numbers = pc.cast(pc.utf8_slice_codeunits(tags, 1, 64), pa.int64()).to_numpy()
        base = len(self.zzzz_ms_all)
        top_number = int(numbers.max())
        if top_number > 100 * (base + len(numbers)) + 100_000:
            raise _Bail  # tags too sparse for a lookup table
        if top_number >= len(self.snapshot_at):
            grown = np.full(top_number + 1, -1, dtype=np.int64)
            grown[: len(self.snapshot_at)] = self.snapshot_at
            self.snapshot_at = grown
        at = self.snapshot_at
        if (at[numbers] >= 0).any() or len(np.unique(numbers)) != len(numbers):
            raise _Bail  # a snapshot tag again: runs one after the other
        at[numbers] = np.arange(base, base + len(numbers))
        self.zzzz_tags.append(tags)
        self.zzzz_ms_all = np.concatenate([self.zzzz_ms_all, moments])
        digits = pc.binary_length(tags).to_numpy(zero_copy_only=False) - 1
        self.zzzz_digits = np.concatenate([self.zzzz_digits, digits.astype(np.int64)])
        # A tag's digits and the comma after them; a longer tag than a word holds gets a
        # word that no masked word equals (its low byte kept, nonzero under a zero mask).
        fits = digits < 8
        masks = np.where(fits, _BYTE_MASKS[np.minimum(digits + 1, 8)], np.uint64(0))
        words = np.where(fits, words & masks, np.uint64(1))
        self.zzzz_words = np.concatenate([self.zzzz_words, words])
        self.zzzz_masks = np.concatenate([self.zzzz_masks, masks])
        self.last_zzzz = (tags[-1].as_py(), int(rows[-1]) + first_number)

    # ---- end of the run

    def _end_run(self) -> None:
        reader = self.reader
        if self.has_data or any(r.count for r in self.rows.values()):
            reader.runs += 1
        if self.zzzz_tags:
            tags = pa.chunked_array(self.zzzz_tags, pa.string()).to_pylist()
            reader.snapshot_ms = dict(zip(tags, self.zzzz_ms_all.tolist(), strict=True))
            reader.snapshots_read = len(tags)
            reader.last_snapshot = self.last_zzzz
        self._check_last_snapshot()
        for name, section in reader.sections.items():
            held = self.rows.pop(name, None)
            if held is not None and held.times_ms:
                self._emit(section, held)
        self._end_top()
        reader._flush_uarg()

    def _times(
        self,
        data: np.ndarray,
        tag_at: np.ndarray,
        latest: np.ndarray,
        tag_words: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each row's snapshot time and its tag's count of digits: its tag (``T<digits>,`` at
        ``tag_at`` in the block's bytes) looked up by its number among the ZZZZ lines read so
        far. The tag text equals its ZZZZ line's (``T[0-9]+``) when the number and the count
        of digits are the same.

        nmon writes a snapshot's rows after its ZZZZ line: when every row's tag is the text
        of the latest ZZZZ line before it (``latest``; ZZZZ tags are unique, so that is the
        snapshot the lookup finds), compared as one masked word per row, that line's time
        is the row's, with no digit read. Else :meth:`_times_by_number`. Either way each row's
        tag is ``T``, digits and a comma. ``tag_words``: ``_words_at(data, tag_at + 1)``, if read."""
        if len(latest) and int(latest.min()) >= 0:
            masks = self.zzzz_masks[latest]
            if tag_words is None:
                tag_words = _words_at(data, tag_at + 1)
            if ((tag_words & masks) == self.zzzz_words[latest]).all():
                return self.zzzz_ms_all[latest], self.zzzz_digits[latest]
        return self._times_by_number(data, tag_at)

    def _times_by_number(
        self, data: np.ndarray, tag_at: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`_times`, each row's tag read as a number and looked up.

        Read from the bytes a digit position at a time over all rows (the usual tag has four
        or five digits): converted as text by pyarrow, sliced, cast and compared, the tags
        cost a tenth of the parse."""
        numbers = np.zeros(len(tag_at), dtype=np.int64)
        digits = np.zeros(len(tag_at), dtype=np.int64)
        going = np.ones(len(tag_at), dtype=bool)  # rows whose tag has not ended yet
        for place in range(1, _TAG_MAX_DIGITS + 2):
            byte = data[tag_at + place]
            digit = byte - 48  # uint8: a byte below "0" wraps past 9
            is_digit = digit < 10
            if (byte[going & ~is_digit] != 44).any():
                raise _Bail  # a tag ended by something else than a comma
            going &= is_digit
            if not going.any():
                break
            numbers = np.where(going, numbers * 10 + digit, numbers)
            digits += going
        else:
            raise _Bail  # a tag too long for the lookup (the line path reads it)
        at = self.snapshot_at
        if len(numbers) and numbers.max() >= len(at):
            raise _Bail  # a row before its ZZZZ line, or a snapshot without one
        where = at[numbers]
        if (where < 0).any() or (self.zzzz_digits[where] != digits).any():
            raise _Bail
        return self.zzzz_ms_all[where], digits

    def _emit(self, section: _Section, held: _Rows) -> None:
        """A section's columns as series, as _emit_matrix does; a column without gaps keeps
        its array and shares the section's times array (no copy)."""
        reader = self.reader
        columns = cast("list[str]", section.columns)
        key = (section.name, tuple(columns))
        specs = reader.specs_cache.get(key)
        if specs is None:
            specs = reader.specs_cache[key] = _column_specs(
                section.name, section.description, columns
            )
        times_ms = _joined_array("q", held.times_ms)
        reader.shared_times.add(id(times_ms))
        times_np = np.frombuffer(times_ms, dtype=np.int64)
        core = _per_cpu_number(section.name, "CPU")
        user: np.ndarray | None = None
        system: np.ndarray | None = None
        for position, chunks in enumerate(held.columns):
            spec = specs[position]
            values = _joined_array("d", chunks)
            values_np = np.frombuffer(values, dtype=np.float64)
            if held.gaps[position]:
                reader._add_numpy(spec, times_np, values_np)
            else:
                reader._add_whole(spec, times_ms, values)
            if core is not None:
                if spec.name == "cpu.core.user_pct":
                    user = values_np
                elif spec.name == "cpu.core.sys_pct":
                    system = values_np
        if core is not None and user is not None and system is not None:
            reader._add_numpy(
                _Column("cpu.core.busy_pct", {"cpu": core}, "%"),
                times_np,
                user + system,
                [times_ms],
            )

    def _check_last_snapshot(self) -> None:
        reader = self.reader
        if reader.last_snapshot is None or len(reader.snapshot_ms) < 3:
            return
        last_tag = reader.last_snapshot[0]
        for held in self.rows.values():
            regular = held.count >= len(reader.snapshot_ms) - 1
            if regular and held.last_line.split(",", 2)[1:2] != [last_tag]:
                raise _Bail  # an incomplete last snapshot: diagnosed by the line path

    def _end_top(self) -> None:
        """The usual TOP row width must be the data rows' one, as _flush_top takes it."""
        if not self.top_rows:
            return
        widths = np.bincount(np.array([*self.top_widths, self.top_stride - 1]))
        widths[self.top_stride - 1] += self.top_rows - 1
        if int(widths.argmax()) != self.top_stride - 1:
            raise _Bail

    def _group_top(
        self, pids: Any, commands: Any, times: np.ndarray, cpu: np.ndarray, resident: Any
    ) -> None:
        """A block's TOP rows appended to their processes (first seen first), in file order.

        ``pids`` and ``commands`` are dictionary arrays: a process is a pair of their codes
        (joining the texts and hashing the joined ones cost three times as much)."""
        pid_codes = pids.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        command_codes = commands.indices.to_numpy(zero_copy_only=False)
        command_count = len(commands.dictionary)
        encoded = pa.array(pid_codes * command_count + command_codes).dictionary_encode()
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        # Stable, so the same order whatever the sort: 16-bit codes (a block's processes
        # are a few hundred) are radix-sorted, the int32 ones were merge-sorted.
        keys = codes.astype(np.uint16) if len(encoded.dictionary) <= 1 << 16 else codes
        order = np.argsort(keys, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(encoded.dictionary) + 1))
        pid_texts = pids.dictionary.to_pylist()
        command_texts = commands.dictionary.to_pylist()
        processes = self.reader.processes
        for code, pair in enumerate(encoded.dictionary.to_pylist()):
            pid, command = pid_texts[pair // command_count], command_texts[pair % command_count]
            picked = order[bounds[code] : bounds[code + 1]]
            process = processes.get((pid, command))
            if process is None:
                process = processes[(pid, command)] = _Process()
            process.extend(times, cpu, resident, picked)


def _slices(lines: Any, starts: np.ndarray, stops: np.ndarray) -> Any:
    """The texts ``[starts[i]:stops[i])`` of the block ``lines`` point into (rising, apart), as
    one string array: taken from an array whose strings alternate between those texts and
    what lies between them, so one ``take`` of every other string copies them out."""
    count = len(starts)
    bounds = np.empty(2 * count, dtype=np.int32)
    bounds[0::2] = starts
    bounds[1::2] = stops
    parts = pa.StringArray.from_buffers(2 * count - 1, pa.py_buffer(bounds), lines.buffers()[2])
    return parts.take(np.arange(0, 2 * count, 2))


def _words_at(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes of ``data`` from each of ``at`` as a little-endian word (``data`` holds
    8 bytes of padding past the last place read)."""
    words = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data.data, strides=(1,))
    return cast("np.ndarray", words[at])


def _blocks_of(text: str) -> Iterator[str]:
    """``text`` cut as :meth:`_Columnar.read_pieces` cuts it, each block a copy of its part
    only (read as one piece, the rest of the text would be copied at every block)."""
    start = 0
    while start < len(text):
        stop = text.find("\n", start + _COLUMNAR_BLOCK)
        stop = len(text) if stop < 0 else stop + 1
        yield text[start:stop]
        start = stop


def _joined_array(typecode: str, chunks: list[np.ndarray]) -> array[Any]:
    """The chunks in one array allocated at its size. Grown a block at a time instead, a
    run's columns each moved as they outgrew their place, leaving holes the C allocator
    kept: about the result's size again at the peak."""
    joined = array(typecode, [0]) * sum(map(len, chunks))
    # A view, not kept: an array is not resized while a buffer of it is held.
    np.concatenate(chunks, out=np.frombuffer(joined, dtype=chunks[0].dtype))
    chunks.clear()
    return joined


_LINUX_TOP_COLUMNS = [
    "+PID", "Time", "%CPU", "%Usr", "%Sys", "Size", "ResSet", "ResText", "ResData",
    "ShdLib", "MinorFault", "MajorFault", "Command",
]  # fmt: skip
_LINUX_UARG_COLUMNS = ["+Time", "PID", "ProgName", "FullCommand"]


def _only_empty(fields: list[str], stride: int, named: int) -> bool:
    """Whether every value past the ``named`` columns of every row is empty."""
    return all(
        not value.strip()
        for position in range(named + 2, stride)
        for value in fields[position::stride]
    )


def _looks_like_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _looks_like_header(fields: list[str]) -> bool:
    """A repeated header line holds column names, not numbers."""
    for text in fields:
        try:
            float(text)
        except ValueError:
            continue
        return False
    return True
