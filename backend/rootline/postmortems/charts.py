"""Evidence charts for the postmortem: a finding's series over its time range, as static SVG.

Pure: series in, SVG text out (no database, no browser), so the page, the HTML and PDF
exports and the Markdown zip all show the same picture. It draws lanes as the web app's
timeline does (``frontend/src/timeline``): one lane per series on a shared time axis with
ticks at round times of the incident's zone, the lane's title and unit in its header, the
same palette in the same order, values written as the timeline writes them (KiB, Mbit/s,
ms ...), and the evidence's time range shaded.

>>> lane = ChartLane("Send-Q", "bytes", [ChartLine("a", [0, 1000], [0.0, 2048.0])])
>>> svg = evidence_chart([lane], domain=(0, 1000), bands=[(0, 500)], timezone="UTC")
>>> svg.startswith("<svg") and "2 KiB" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from xml.sax.saxutils import escape, quoteattr
from zoneinfo import ZoneInfo

# The timeline's palette (frontend/src/timeline/Lane.tsx COLORS), in the same order.
COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#393b79", "#637939",
)  # fmt: skip

# Lane titles of the timeline's lane table (frontend/src/timeline/lanes.ts LANES) for the
# series evidence names, with the short names its legends use. A series not named here
# is titled by its own name, as the timeline titles a lane added with the picker.
LANE_TITLES: dict[str, tuple[str, str]] = {
    "tcp.connections.sendq.bytes": ("Send-Q / Recv-Q", "Send-Q (sum over connections)"),
    "tcp.connections.recvq.bytes": ("Send-Q / Recv-Q", "Recv-Q (sum over connections)"),
    # The same totals as stored before their rename (artifacts not re-parsed since).
    "tcp.sendq.bytes": ("Send-Q / Recv-Q", "Send-Q (sum over connections)"),
    "tcp.recvq.bytes": ("Send-Q / Recv-Q", "Recv-Q (sum over connections)"),
    "tcp.conn.sendq.bytes": ("Send-Q / Recv-Q", "Send-Q"),
    "tcp.conn.recvq.bytes": ("Send-Q / Recv-Q", "Recv-Q"),
    "tcp.conn.cwnd": ("cwnd (top connections)", "cwnd"),
    "tcp.conn.rtt_ms": ("RTT (top connections)", "RTT"),
    "tcp.conn.delivery_rate_bps": ("Delivery rate (top connections)", "delivery rate"),
    "tcp.listen.recvq": ("Listen queues", "accept queue"),
    "tcp.listen.backlog": ("Listen queues", "backlog"),
    "cpu.user_pct": ("CPU", "user"),
    "cpu.sys_pct": ("CPU", "sys"),
    "cpu.wait_pct": ("CPU", "iowait"),
    "cpu.steal_pct": ("CPU", "steal"),
    "cpu.busy_pct": ("CPU", "busy"),
    "proc.runqueue": ("Run queue", "runnable"),
    "proc.blocked": ("Run queue", "blocked"),
    "net.read_kbs": ("Network interface rates", "read"),
    "net.write_kbs": ("Network interface rates", "write"),
    "mem.free_mb": ("Memory", "free"),
    "mem.available_mb": ("Memory", "available"),
    "threadpool.active": ("Thread pools", "active"),
    "threadpool.max": ("Thread pools", "max"),
    "threadpool.queue": ("Thread pools", "queue"),
    "threadpool.rejected_per_s": ("Rejections", "rejected"),
    "threadpool.rejected_events": ("Rejections", "EXHAUSTED log lines"),
    "gc.pause_ms": ("GC pauses", "pause"),
    "gc.heap_after_mb": ("Heap", "after GC"),
    "gc.heap_before_mb": ("Heap", "before GC"),
    "jvm.threads": ("JVM threads (thread dumps)", "threads"),
}
LANE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("tcp.state.", "TCP states"),
    ("netstat.TcpExt", "Listen overflows / retransmissions"),
    ("netstat.Tcp", "Retransmissions"),
)


def lane_title(name: str) -> tuple[str, str]:
    """The timeline's lane title for a series name, and its short name in that lane."""
    if name in LANE_TITLES:
        return LANE_TITLES[name]
    for prefix, title in LANE_PREFIXES:
        if name.startswith(prefix):
            return title, name[len(prefix) :]
    return name, name


# --- Values and units, written as the timeline writes them (frontend/src/timeline/format.ts)


def display_unit(unit: str) -> str:
    return {"per_s": "/s", "per_min": "/min", "percent": "%", "bool": "", "code": ""}.get(
        unit, unit
    )


def _trim(value: float, digits: int = 3) -> str:
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{round(value):,}"
    text = f"{value:.{digits}g}"
    return str(float(text)).removesuffix(".0") if "e" not in text else text


def _compact(value: float) -> str:
    size = abs(value)
    if size >= 1e9:
        return f"{_trim(value / 1e9)}G"
    if size >= 1e6:
        return f"{_trim(value / 1e6)}M"
    if size >= 1e4:
        return f"{_trim(value / 1e3)}k"
    return _trim(value)


def _scaled(value: float, base: float, suffixes: Sequence[str]) -> str:
    index = 0
    while abs(value) >= base and index < len(suffixes) - 1:
        value /= base
        index += 1
    return f"{_trim(value)} {suffixes[index]}"


def format_value(value: float | None, unit: str) -> str:
    """A value with its unit: "21.2 KiB", "1.05 Mbit/s", "224 ms", "12.5 %", "3.1k /s"."""
    if value is None or math.isnan(value):
        return "\u2013"
    if unit == "bytes":
        return _scaled(value, 1024, ("B", "KiB", "MiB", "GiB", "TiB"))
    if unit == "bits/s":
        return _scaled(value, 1000, ("bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"))
    if unit == "ms":
        return f"{_trim(value / 1000)} s" if abs(value) >= 10000 else f"{_trim(value)} ms"
    if unit in {"%", "percent"}:
        return f"{_trim(value)} %"
    if unit == "bool":
        return "yes" if value else "no"
    if unit == "MB":
        return f"{_trim(value / 1024)} GB" if abs(value) >= 10240 else f"{_trim(value)} MB"
    shown = display_unit(unit)
    number = _compact(value)
    if not shown:
        return number
    if shown.startswith("/"):
        return f"{number}{shown}"
    return f"{number} {singular_unit(shown) if number == '1' else shown}"


_UNIT_PREPOSITIONS = {"in", "per", "of", "at"}


def singular_unit(unit: str) -> str:
    """A unit counting things, for one of them (as the timeline's ``singularUnit``).

    >>> singular_unit("lines"), singular_unit("snapshots in a row"), singular_unit("families")
    ('line', 'snapshot in a row', 'family')
    >>> singular_unit("connections/s"), singular_unit("MB"), singular_unit("status")
    ('connections/s', 'MB', 'status')
    """
    if "/" in unit:
        return unit
    words = unit.split(" ")
    preposition = next(
        (i for i, word in enumerate(words) if i > 0 and word in _UNIT_PREPOSITIONS), None
    )
    head = preposition - 1 if preposition is not None else len(words) - 1
    word = words[head]
    if len(word) < 3 or not all(c.islower() or c == "-" for c in word):
        return unit
    if word.endswith(("ss", "us", "is", "series")):
        return unit
    if word.endswith("ies"):
        words[head] = word[:-3] + "y"
    elif word.endswith("s"):
        words[head] = word[:-1]
    return " ".join(words)


def format_axis_value(value: float, unit: str) -> str:
    if unit == "bytes":  # IEC, unit written, as the timeline's ticks (never "97.7K", "0B")
        return _scaled(value, 1024, ("B", "KiB", "MiB", "GiB", "TiB"))
    if unit == "bits/s":
        return _scaled(value, 1000, ("", "k", "M", "G", "T")).replace(" ", "")
    return _compact(value)


def zone_of(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def format_time(ms: int, timezone: str, *, date: bool = True) -> str:
    """An instant in the incident's zone: "2026-11-24 05:55:58" (or "05:55:58")."""
    local = datetime.fromtimestamp(ms / 1000, UTC).astimezone(zone_of(timezone))
    return local.strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")


# --- Axes -----------------------------------------------------------------------------------

_SECOND = 1000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
_TICK_STEPS = (
    _SECOND, 2 * _SECOND, 5 * _SECOND, 10 * _SECOND, 15 * _SECOND, 30 * _SECOND,
    _MINUTE, 2 * _MINUTE, 5 * _MINUTE, 10 * _MINUTE, 15 * _MINUTE, 30 * _MINUTE,
    _HOUR, 2 * _HOUR, 3 * _HOUR, 6 * _HOUR, 12 * _HOUR, _DAY, 2 * _DAY, 7 * _DAY,
)  # fmt: skip


def time_ticks(start: int, end: int, timezone: str, max_ticks: int) -> tuple[list[int], int]:
    """Instants at round local times of the zone over [start, end], and the step (ms)."""
    if end <= start:
        return [], _SECOND
    wanted = (end - start) / max(1, max_ticks)
    step = next((s for s in _TICK_STEPS if s >= wanted), math.ceil(wanted / _DAY) * _DAY)
    zone = zone_of(timezone)

    def offset(ms: int) -> int:
        delta = datetime.fromtimestamp(ms / 1000, UTC).astimezone(zone).utcoffset()
        return int(delta.total_seconds() * 1000) if delta else 0

    ticks = []
    local = math.ceil((start + offset(start)) / step) * step
    for _ in range(1000):
        instant = local - offset(local - offset(start))
        if instant > end:
            break
        if instant >= start:
            ticks.append(instant)
        local += step
    return ticks, step


def _tick_label(ms: int, timezone: str, step: int) -> str:
    local = datetime.fromtimestamp(ms / 1000, UTC).astimezone(zone_of(timezone))
    if step >= _DAY:
        return local.strftime("%m-%d")
    clock = local.strftime("%H:%M:%S" if step < _MINUTE else "%H:%M")
    if local.hour == local.minute == local.second == 0:
        return f"{local.strftime('%m-%d')} {clock}"
    return clock


def _nice_step(raw: float) -> float:
    if not raw > 0 or not math.isfinite(raw):
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    step: float = next(
        (m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * 0.999), 10 * power
    )
    return step


def y_scale(values: Sequence[float], count: int = 3) -> tuple[float, float, list[float]]:
    """From 0 (or the lowest value when negative) to a round value above the highest."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0, [0.0, 1.0]
    low, high = min(finite), max(finite)
    lo = 0.0 if low >= 0 else low
    hi = high if high > lo else lo + (abs(lo) or 1.0)
    step = _nice_step((hi - lo) / count)
    lo = 0.0 if low >= 0 else math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    ticks = []
    tick = lo
    while tick <= hi + step / 1e6:
        ticks.append(float(f"{tick:.12g}"))
        tick += step
    return lo, hi, ticks


# --- The chart --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChartLine:
    label: str
    times_ms: Sequence[int]
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class ChartLane:
    title: str
    unit: str
    lines: list[ChartLine] = field(default_factory=list)


WIDTH = 720
PLOT_LEFT = 64
PLOT_RIGHT = 16
LANE_HEADER = 34  # the title's line and the legend's
PLOT_HEIGHT = 96
AXIS_SPACE = 18
LANE_GAP = 10
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
# A gap in a line: no point for this many times the series' typical interval.
GAP_FACTOR = 5


def _points_in(line: ChartLine, start: int, end: int) -> list[tuple[int, float]]:
    return [
        (t, v)
        for t, v in zip(line.times_ms, line.values, strict=False)
        if start <= t <= end and math.isfinite(v)
    ]


def _path(points: list[tuple[int, float]], sx: Sequence[float], sy: Sequence[float]) -> str:
    """An SVG path through the points, broken where the series has a gap."""
    if not points:
        return ""
    steps = sorted(b[0] - a[0] for a, b in pairwise(points))
    gap = steps[len(steps) // 2] * GAP_FACTOR if steps else math.inf
    parts = []
    for index, (x, y) in enumerate(zip(sx, sy, strict=True)):
        jump = index == 0 or points[index][0] - points[index - 1][0] > gap
        parts.append(f"{'M' if jump else 'L'}{x:.1f},{y:.1f}")
    return "".join(parts)


def evidence_chart(
    lanes: Sequence[ChartLane],
    *,
    domain: tuple[int, int],
    bands: Sequence[tuple[int, int]] = (),
    timezone: str = "UTC",
    title: str = "",
    width: int = WIDTH,
) -> str:
    """The lanes over ``domain`` (UTC epoch ms) as one standalone SVG document.

    ``bands`` are the evidence's time ranges, shaded in every lane (unless one covers
    nearly all of it); ``title`` is the chart's accessible name (the page and the exports
    write the caption under it).
    """
    start, end = domain
    if end <= start:
        end = start + _SECOND
    plot_width = width - PLOT_LEFT - PLOT_RIGHT
    top = 4
    lane_height = LANE_HEADER + PLOT_HEIGHT + AXIS_SPACE
    height = top + max(1, len(lanes)) * (lane_height + LANE_GAP)
    ticks, step = time_ticks(start, end, timezone, max(2, plot_width // 90))

    def x_of(ms: float) -> float:
        return PLOT_LEFT + (ms - start) / (end - start) * plot_width

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title or "chart")}'
        f' font-family="{FONT}">',
        f"<title>{escape(title)}</title>" if title else "",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for lane_index, lane in enumerate(lanes):
        y0 = top + lane_index * (lane_height + LANE_GAP)
        plot_top = y0 + LANE_HEADER
        bottom = plot_top + PLOT_HEIGHT
        unit = display_unit(lane.unit)
        out.append(
            f'<text x="{PLOT_LEFT}" y="{y0 + 13}" font-size="12" font-weight="600" fill="#1d2329">'
            f"{escape(lane.title)}"
            + (f' <tspan font-weight="400" fill="#5f6b7a">({escape(unit)})</tspan>' if unit else "")
            + "</text>"
        )
        values = [v for line in lane.lines for _, v in _points_in(line, start, end)]
        lo, hi, y_ticks = y_scale(values)

        def y_of(value: float, lo: float = lo, hi: float = hi, plot_top: float = plot_top) -> float:
            return plot_top + PLOT_HEIGHT * (1 - (value - lo) / ((hi - lo) or 1))

        for band_start, band_end in bands:
            left, right = x_of(max(start, band_start)), x_of(min(end, band_end))
            # A band over (nearly) the whole chart says nothing: left out.
            if right >= left and right - left < 0.8 * plot_width:
                out.append(
                    f'<rect x="{left:.1f}" y="{plot_top}" width="{max(right - left, 2):.1f}"'
                    f' height="{PLOT_HEIGHT}" fill="#f9a825" fill-opacity="0.18"/>'
                )
        out.append('<g stroke="#e6e8eb">')
        out.extend(
            f'<line x1="{PLOT_LEFT}" x2="{PLOT_LEFT + plot_width}" y1="{y_of(v):.1f}" y2="{y_of(v):.1f}"/>'
            for v in y_ticks
        )
        out.extend(
            f'<line x1="{x_of(t):.1f}" x2="{x_of(t):.1f}" y1="{plot_top}" y2="{bottom}"/>'
            for t in ticks
        )
        out.append("</g>")
        out.append(
            f'<g stroke="#666"><line x1="{PLOT_LEFT}" x2="{PLOT_LEFT + plot_width}" y1="{bottom}"'
            f' y2="{bottom}"/><line x1="{PLOT_LEFT}" x2="{PLOT_LEFT}" y1="{plot_top}" y2="{bottom}"/>'
            "</g>"
        )
        out.append('<g font-size="10" fill="#555">')
        out.extend(
            f'<text x="{x_of(t):.1f}" y="{bottom + 13}" text-anchor="middle">'
            f"{escape(_tick_label(t, timezone, step))}</text>"
            for t in ticks
        )
        out.extend(
            f'<text x="{PLOT_LEFT - 8}" y="{y_of(v) + 3:.1f}" text-anchor="end">'
            f"{escape(format_axis_value(v, lane.unit))}</text>"
            for v in y_ticks
        )
        out.append("</g>")
        legend_x = float(PLOT_LEFT)
        # Colours by the line's place in its lane, as the timeline picks them.
        for line_index, line in enumerate(lane.lines):
            stroke = COLORS[line_index % len(COLORS)]
            points = _points_in(line, start, end)
            xs = [x_of(t) for t, _ in points]
            ys = [y_of(v) for _, v in points]
            if points:
                out.append(
                    f'<path d="{_path(points, xs, ys)}" fill="none" stroke="{stroke}"'
                    ' stroke-width="1.5" stroke-linejoin="round"/>'
                )
                if len(points) < 8:
                    out.extend(
                        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{stroke}"/>'
                        for x, y in zip(xs, ys, strict=True)
                    )
            peak = max((v for _, v in points), default=None)
            legend = f"{line.label} · peak {format_value(peak, lane.unit)}"
            out.append(
                f'<rect x="{legend_x:.1f}" y="{y0 + 23}" width="10" height="3" fill="{stroke}"/>'
                f'<text x="{legend_x + 14:.1f}" y="{y0 + 28}" font-size="10" fill="#333">'
                f"{escape(legend)}</text>"
            )
            legend_x += 14 + 5.6 * len(legend) + 12
    out.append("</svg>")
    return "".join(part for part in out if part)
