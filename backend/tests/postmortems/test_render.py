"""The pure parts: the chart, the draft's escaping, the Markdown and HTML renderings."""

from __future__ import annotations

import doctest

import pytest

from rootline.postmortems import action_items, charts, draft, render


@pytest.mark.parametrize("module", [charts, action_items])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


def test_values_are_written_as_the_timeline_writes_them() -> None:
    # The same cases as frontend/src/timeline/format.test.ts.
    assert charts.format_value(21_700, "bytes") == "21.2 KiB"
    assert charts.format_value(1_050_000, "bits/s") == "1.05 Mbit/s"
    assert charts.format_value(224, "ms") == "224 ms"
    assert charts.format_value(12_500, "ms") == "12.5 s"
    assert charts.format_value(12.5, "%") == "12.5 %"
    assert charts.format_value(3_100, "per_s") == "3,100/s"
    assert charts.format_value(31_000, "per_s") == "31k/s"
    assert charts.format_value(None, "bytes") == "\u2013"
    assert charts.format_value(1, "lines") == "1 line"
    assert charts.format_value(2, "lines") == "2 lines"
    assert charts.format_value(1, "runnable threads per core") == "1 runnable thread per core"
    assert charts.format_axis_value(100_000, "bytes") == "97.7 KiB"
    assert charts.format_axis_value(0, "bytes") == "0 B"


def test_time_ticks_fall_on_round_local_times() -> None:
    # 2026-11-24 05:55:56.500 UTC to 05:56:18 UTC, in Kolkata (UTC+05:30).
    start, end = 1_795_499_756_500, 1_795_499_778_000
    ticks, step = charts.time_ticks(start, end, "Asia/Kolkata", 6)
    assert step == 5_000
    assert [charts.format_time(t, "Asia/Kolkata", date=False) for t in ticks] == [
        "11:26:00",
        "11:26:05",
        "11:26:10",
        "11:26:15",
    ]


def test_chart_lanes_bands_and_escaping() -> None:
    lanes = [
        charts.ChartLane(
            "Send-Q / Recv-Q",
            "bytes",
            [charts.ChartLine("Send-Q <b>&", [0, 1000, 2000, 60_000], [0.0, 10.0, 20.0, 5.0])],
        ),
        charts.ChartLane("cwnd", "segments", [charts.ChartLine("cwnd", [0, 60_000], [10, 12])]),
    ]
    svg = charts.evidence_chart(lanes, domain=(0, 60_000), bands=[(1000, 2000)], title="t & t")
    assert svg.count("<path ") == 2
    assert "Send-Q &lt;b&gt;&amp;" in svg and "<b>" not in svg
    assert 'aria-label="t &amp; t"' in svg
    # A gap (no point for 58 s after one a second) breaks the line.
    first_path = svg.split('<path d="', 1)[1].split('"', 1)[0]
    assert first_path.count("M") == 2
    assert 'fill-opacity="0.18"' in svg  # the evidence range, shaded
    whole = charts.evidence_chart(lanes, domain=(0, 60_000), bands=[(0, 60_000)])
    assert 'fill-opacity="0.18"' not in whole


def test_data_text_is_escaped_for_markdown() -> None:
    assert draft.escape("rwnd_limited *x* [a](b) | c") == "rwnd_limited \\*x\\* \\[a\\](b) \\| c"
    assert draft.escape("_emph_ and\nnew line") == "\\_emph\\_ and new line"


def test_html_keeps_markup_as_text_and_draws_charts_inline() -> None:
    document = render.Document(
        title="Postmortem: <x>",
        status="published",
        subtitle="Published",
        sections=[
            render.Section(
                "summary",
                "Summary",
                "<script>alert(1)</script> [ok](https://example.org) [bad](javascript:alert(1))"
                "\n\n![The cause](chart:small_send_buffer) ![gone](chart:gc_pauses)"
                " ![remote](https://example.org/x.png)",
            )
        ],
        charts={"small_send_buffer": "<svg>chart</svg>"},
    )
    html = render.html_document(document)
    assert "<title>Postmortem: &lt;x&gt;</title>" in html
    assert "&lt;script&gt;" in html and "<script" not in html
    assert '<a href="https://example.org">ok</a>' in html and 'href="javascript:' not in html
    assert (
        '<figure class="chart"><svg>chart</svg><figcaption>The cause</figcaption></figure>' in html
    )
    assert "chart chart:gc_pauses has no data" in html
    assert "<img" not in html  # a remote image would be fetched when the file is opened
    assert 'class="badge"' not in html  # published: no status badge
    text = render.markdown_text(document)
    assert "](charts/small_send_buffer.svg)" in text and "**Published**" not in text


def test_slug() -> None:
    assert render.slug("Checkout: slow (EU) / 2026") == "checkout-slow-eu-2026"
    assert render.slug("***") == "postmortem"


def test_connection_queue_totals_get_the_timelines_lane_title() -> None:
    """The totals' names as the parsers write them (and as stored before the rename)."""
    for name in ("tcp.connections.sendq.bytes", "tcp.sendq.bytes"):
        assert charts.lane_title(name) == ("Send-Q / Recv-Q", "Send-Q (sum over connections)")
