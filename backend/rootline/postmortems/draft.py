"""The first draft of a postmortem, from what Rootline knows: pure, plain data in, Markdown out.

Each section is Markdown the team then edits. What the checklist computed goes in with its
numbers: confirmed findings become root causes (mechanism, evidence, an evidence chart
referenced as ``![caption](chart:<checklist id>)``, remedies), likely ones contributing
factors, ruled-out ones what was ruled out and why; the timeline of key moments is drafted
from the findings' time ranges, their peaks and the team's annotations. Text read from
artifacts (host names, addresses) is escaped so that it shows as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rootline.checklist.schemas import EvidenceRead, FindingRead
from rootline.postmortems.charts import format_time, format_value, lane_title


@dataclass(frozen=True, slots=True)
class Peak:
    """Where a cause's main series peaked inside its range."""

    time_ms: int
    value: float
    unit: str
    label: str


@dataclass(frozen=True, slots=True)
class AppSeriesSummary:
    """An application series (``app.<file>.<column>``): the user-facing symptom."""

    name: str
    unit: str
    host: str | None
    first_ms: int
    last_ms: int
    median: float
    peak: float
    peak_ms: int
    count: int


@dataclass(frozen=True, slots=True)
class Moment:
    time_ms: int
    text: str


@dataclass(slots=True)
class DraftInput:
    title: str
    summary: str
    timezone: str
    window: tuple[int | None, int | None]
    hosts: Sequence[str]
    artifact_count: int
    findings: Sequence[FindingRead]
    annotations: Sequence[tuple[int, int | None, str, str]] = ()
    peaks: dict[str, Peak] = field(default_factory=dict)
    app_series: Sequence[AppSeriesSummary] = ()
    # The checklist's symptom window (rootline.detectors.symptom): (start, end, sentence).
    symptom: tuple[int, int, str] | None = None
    action_items: str | None = None


@dataclass(frozen=True, slots=True)
class Upstream:
    """Mechanisms upstream of a cause that can produce its signature, and what decides."""

    ids: tuple[str, ...]
    name: str
    why: str
    captures: str


# Confirmed causes that the domain reads as often a symptom of a mechanism upstream
# (DOMAIN.md, report A: an idle pool behind a full socket is the single-connection
# signature). When nothing upstream was confirmed or likely and some of it could not be
# judged for lack of data, the draft says the cause may be a symptom and what would decide.
POSSIBLE_SYMPTOM_OF: dict[str, Upstream] = {
    "threadpool_exhaustion": Upstream(
        ids=("single_connection_bottleneck", "small_send_buffer", "receiver_not_reading"),
        name="the network path",
        why="A full pool is often a symptom of the network path in front of it: in field"
        " report A the pool was not full during the jam and filled only after the traffic"
        " was cut.",
        captures="`ss -tinm` on both sides during the jam (Send-Q, Recv-Q against `rb`,"
        " `sndbuf_limited`, `rwnd_limited`) and `nstat` (zero windows)",
    ),
}


# Markdown's punctuation that would change what a data text shows inside a line: emphasis,
# links, table cells; `_` only at a word's edge (inside a word, as in rwnd_limited,
# CommonMark never reads it as emphasis). Raw HTML needs none: every renderer shows it as
# text. Backticks are kept: the rules' texts quote settings as `code`.
_SPECIAL = re.compile(r"([\\*\[\]|]|(?<!\w)_|_(?!\w))")


def escape(text: str) -> str:
    """``text`` as Markdown that shows it literally (on one line)."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


NONE = "\u2013"  # what the timeline shows for no value


def _count(number: int, singular: str) -> str:
    """``1 artifact``, ``3 artifacts``."""
    return f"{number} {singular if number == 1 else singular + 's'}"


def _time(ms: int | None, draft: DraftInput) -> str:
    return NONE if ms is None else format_time(ms, draft.timezone)


def _span(start: int | None, end: int | None, draft: DraftInput) -> str:
    """``from <start> to <end>``; ``at one instant, <time>`` when they are the same (a single
    thread dump or snapshot: never "from 11:28:04 to 11:28:04")."""
    if start is not None and (end is None or end == start):
        return f"at one instant, {_time(start, draft)}"
    return f"from {_time(start, draft)} to {_time(end, draft)}"


def _by_verdict(draft: DraftInput, verdict: str) -> list[FindingRead]:
    return [f for f in draft.findings if f.effective_verdict == verdict]


def _met(finding: FindingRead) -> list[EvidenceRead]:
    return [e for e in finding.evidence if e.met is True]


def cause_range(finding: FindingRead) -> tuple[int | None, int | None]:
    """The finding's time range: over its evidence past threshold, else over all of it."""
    items = _met(finding) or finding.evidence
    starts = [e.from_ms for e in items if e.from_ms is not None]
    ends = [e.to_ms if e.to_ms is not None else e.from_ms for e in items if e.from_ms is not None]
    return (min(starts), max(e for e in ends if e is not None)) if starts else (None, None)


def chart_evidence(finding: FindingRead, limit: int = 3) -> list[EvidenceRead]:
    """The evidence a finding's chart draws: distinct series, those past threshold first."""
    chosen: list[EvidenceRead] = []
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    # Past threshold first, and among them the series the timeline has a lane for.
    ranked = sorted(
        finding.evidence,
        key=lambda e: (e.met is not True, lane_title(e.series or "")[0] == e.series),
    )
    for item in ranked:
        if item.series is None or item.from_ms is None or item.series.endswith("*"):
            continue
        key = (item.series, tuple(sorted(item.labels.items())))
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    return chosen[:limit]


def chart_caption(finding: FindingRead) -> str:
    return f"{finding.title}: evidence on {finding.entity}" if finding.entity else finding.title


def draft_sections(draft: DraftInput) -> dict[str, str]:
    """Every section's first draft, by section key."""
    return {
        "summary": _summary(draft),
        "impact": _impact(draft),
        "timeline": _timeline(draft),
        "root_causes": _root_causes(draft),
        "contributing_factors": _contributing(draft),
        "ruled_out": _ruled_out(draft),
        "action_items": _action_items(draft),
        "lessons": "_What went well, what went wrong, where we got lucky, and what we learned"
        " about our systems._",
    }


def _undecided_upstream(
    draft: DraftInput, finding: FindingRead
) -> tuple[Upstream | None, list[str]]:
    """The mechanisms upstream of ``finding`` and the titles of those not judged for lack of
    data, when none was found at work (no title otherwise): see :data:`POSSIBLE_SYMPTOM_OF`."""
    upstream = POSSIBLE_SYMPTOM_OF.get(finding.id)
    if upstream is None:
        return None, []
    items = [f for f in draft.findings if f.id in upstream.ids]
    if any(f.effective_verdict in ("confirmed", "likely") for f in items):
        return upstream, []
    return upstream, [f.title for f in items if f.effective_verdict == "insufficient_data"]


def _symptom_note(draft: DraftInput, finding: FindingRead) -> str:
    """ ", possibly a symptom of ..." for the summary's root-cause line, or nothing."""
    upstream, undecided = _undecided_upstream(draft, finding)
    if upstream is None or not undecided:
        return ""
    return f", possibly a symptom of {upstream.name}, which could not be judged"


def _symptom_hedge(draft: DraftInput, finding: FindingRead) -> str | None:
    """The root cause's paragraph saying it may be a symptom, and which captures decide."""
    upstream, undecided = _undecided_upstream(draft, finding)
    if upstream is None or not undecided:
        return None
    return (
        f"**Possibly a symptom.** {upstream.why} Not judged for lack of data:"
        f" {', '.join(escape(t) for t in undecided)}."
        f" {upstream.captures[:1].upper()}{upstream.captures[1:]} would decide."
    )


def _summary(draft: DraftInput) -> str:
    start, end = draft.window
    hosts = ", ".join(escape(h) for h in draft.hosts)
    lines = [
        f"**{escape(draft.title)}**: {_span(start, end, draft)}"
        f" ({escape(draft.timezone)}), read from {_count(draft.artifact_count, 'artifact')}"
        + (f" of {hosts}." if hosts else " (no host named at upload).")
    ]
    if draft.summary.strip():
        lines.append(draft.summary.strip())
    confirmed = _by_verdict(draft, "confirmed")
    likely = _by_verdict(draft, "likely")
    ruled_out = _by_verdict(draft, "ruled_out")
    if confirmed:
        causes = "; ".join(
            f"**{escape(f.title)}** ({escape(f.entity)}){_symptom_note(draft, f)}"
            for f in confirmed
        )
        lines.append(f"Root cause: {causes}.")
    else:
        lines.append("No cause is confirmed by the data.")
    if likely:
        lines.append("Contributing: " + "; ".join(escape(f.title) for f in likely) + ".")
    if ruled_out:
        lines.append(
            f"{_count(len(ruled_out), 'other cause')}"
            f" {'was' if len(ruled_out) == 1 else 'were'} ruled out with numbers (see below)."
        )
    return "\n\n".join(lines)


def _impact(draft: DraftInput) -> str:
    if not draft.app_series:
        return (
            "_Who was affected, how and for how long, with numbers (error rate, latency,"
            " throughput). No application series (`app.*`: latency, throughput or errors from"
            " the service's own CSV or JSON lines) was uploaded, so this is for the team to"
            " write._"
        )
    rows = [
        "| Symptom | Host | Peak | at | Median | Over |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for series in draft.app_series:
        host = escape(series.host) if series.host else NONE
        rows.append(
            f"| `{series.name}` | {host}"
            f" | **{format_value(series.peak, series.unit)}**"
            f" | {_time(series.peak_ms, draft)} | {format_value(series.median, series.unit)}"
            f" | {_time(series.first_ms, draft)} to {_time(series.last_ms, draft)}"
            f" ({series.count} points) |"
        )
    window = ""
    if draft.symptom is not None:
        window = f"{escape(draft.symptom[2])}.\n\n"
    return (
        window
        + "The user-facing symptom, from the application's own series:\n\n"
        + "\n".join(rows)
        + "\n\n_Say who was affected and how, in the users' words._"
    )


def key_moments(draft: DraftInput) -> list[Moment]:
    """First anomaly, each confirmed cause's start and peak, annotations, capture edges."""
    moments: list[Moment] = []
    start, end = draft.window
    if start is not None and end == start:
        moments.append(
            Moment(start, "Capture: one instant (the uploaded artifacts hold no other time)")
        )
    elif start is not None:
        moments.append(Moment(start, "Capture starts (first sample of the uploaded artifacts)"))
    flagged = _by_verdict(draft, "confirmed") + _by_verdict(draft, "likely")
    anomalies = [(e.from_ms, f, e) for f in flagged for e in _met(f) if e.from_ms is not None]
    first: tuple[int, str] | None = None
    if anomalies:
        time_ms, finding, item = min(anomalies, key=lambda a: a[0])
        cause_start, _ = cause_range(finding)
        if finding.effective_verdict == "confirmed" and cause_start == time_ms:
            # The cause starts with the first anomaly: one row says both.
            first = (time_ms, finding.id)
            text = (
                f"First anomaly: **{escape(finding.title)}** starts on {escape(finding.entity)}:"
                f" {escape(item.summary)}"
            )
        else:
            # An evidence line leaves the entity to its finding's summary: the row names it.
            where = f", {escape(finding.entity)}" if finding.entity else ""
            text = f"First anomaly: {escape(item.summary)} ({escape(finding.title)}{where})"
        moments.append(Moment(time_ms, text))
    for finding in _by_verdict(draft, "confirmed"):
        cause_start, _ = cause_range(finding)
        if cause_start is not None and (cause_start, finding.id) != first:
            moments.append(
                Moment(
                    cause_start,
                    f"**{escape(finding.title)}** starts on {escape(finding.entity)}",
                )
            )
        peak = draft.peaks.get(finding.id)
        if peak is not None:
            moments.append(
                Moment(
                    peak.time_ms,
                    f"{escape(finding.title)} peaks: {escape(peak.label)}"
                    f" at **{format_value(peak.value, peak.unit)}**",
                )
            )
    if draft.symptom is not None:
        moments.append(Moment(draft.symptom[0], f"Users feel it: {escape(draft.symptom[2])}"))
        moments.append(Moment(draft.symptom[1], "The application's symptom settles"))
    for from_ms, to_ms, text, author in draft.annotations:
        until = f" (until {_time(to_ms, draft)})" if to_ms is not None and to_ms != from_ms else ""
        by = f" ({escape(author)})" if author else ""
        moments.append(Moment(from_ms, f"Note{by}: {escape(text)}{until}"))
    if end is not None and end != start:
        moments.append(Moment(end, "Capture ends (last sample)"))
    return sorted(moments, key=lambda m: m.time_ms)


def _timeline(draft: DraftInput) -> str:
    moments = key_moments(draft)
    if not moments:
        return "_No artifact with timestamps yet: the key moments come from the uploaded data._"
    rows = [f"| Time ({escape(draft.timezone)}) | What happened |", "| --- | --- |"]
    rows.extend(f"| {_time(m.time_ms, draft)} | {m.text} |" for m in moments)
    return "\n".join(rows)


def _lead(finding: FindingRead) -> str:
    """The finding's summary without the observations it quotes (``{met_evidence}``, after a
    colon) when the evidence list below states them: each said once in a section."""
    met = "; ".join(e.summary for e in _met(finding))
    if not met or f": {met}" not in finding.summary:
        return finding.summary
    return finding.summary.replace(f": {met}", "", 1)


def _evidence_lines(finding: FindingRead, *, only_met: bool) -> list[str]:
    lines = []
    for item in finding.evidence:
        if only_met and item.met is not True:
            continue
        mark = (
            ""
            if item.met is None
            else "**past threshold:** "
            if item.met
            else "**below threshold:** "
        )
        lines.append(f"- {mark}{escape(item.summary)}")
    return lines


def _root_causes(draft: DraftInput) -> str:
    confirmed = _by_verdict(draft, "confirmed")
    if not confirmed:
        return (
            "_No cause is confirmed by the data. When the team settles on one, describe its"
            " mechanism and the numbers that show it here._"
        )
    parts = []
    for finding in confirmed:
        start, end = cause_range(finding)
        block = [f"### {escape(finding.title)}", escape(_lead(finding))]
        if finding.entity or start is not None:
            where = f"**Where:** {escape(finding.entity)}" if finding.entity else "**When:**"
            if start is not None:
                where += f", {_span(start, end, draft)}"
            block.append(where)
        hedge = _symptom_hedge(draft, finding)
        if hedge is not None:
            block.append(hedge)
        if finding.explanation:
            block.append(f"**Mechanism.** {escape(finding.explanation)}")
        evidence = _evidence_lines(finding, only_met=False)
        if evidence:
            block.append("**Evidence**\n\n" + "\n".join(evidence))
        if chart_evidence(finding):
            block.append(f"![{escape(chart_caption(finding))}](chart:{finding.id})")
        if finding.remedies:
            block.append("**Remedies**\n\n" + "\n".join(f"- {escape(r)}" for r in finding.remedies))
        if finding.review and finding.review.note:
            block.append(
                f"**Team note** ({escape(finding.review.author)}): {escape(finding.review.note)}"
            )
        parts.append("\n\n".join(block))
    return "\n\n".join(parts)


def _contributing(draft: DraftInput) -> str:
    likely = _by_verdict(draft, "likely")
    if not likely:
        return "_None: the checklist flagged no other cause as likely._"
    parts = []
    for finding in likely:
        evidence = _evidence_lines(finding, only_met=True)
        summary = _lead(finding) if evidence else finding.summary
        block = [f"### {escape(finding.title)}", escape(summary)]
        if evidence:
            block.append("\n".join(evidence))
        parts.append("\n\n".join(block))
    return "\n\n".join(parts)


def _ruled_out(draft: DraftInput) -> str:
    titles = {f.id: f.title for f in draft.findings}
    lines = []
    for finding in _by_verdict(draft, "ruled_out"):
        explained = [titles.get(i, i) for i in finding.explained_by]
        # The checklist's summary of an explained finding opens with its causes' titles.
        said = finding.summary.startswith("Explained by ")
        why = (
            f" Explained by {', '.join(escape(t) for t in explained)}."
            if explained and not said
            else ""
        )
        lines.append(f"- **{escape(finding.title)}**: {escape(finding.summary)}{why}")
    missing = _by_verdict(draft, "insufficient_data")
    text = "\n".join(lines) if lines else "_Nothing was ruled out by the data._"
    if missing:
        text += "\n\n**Not judged for lack of data**\n\n" + "\n".join(
            f"- {escape(f.title)}: {escape(f.summary)}" for f in missing
        )
    return text


def _action_items(draft: DraftInput) -> str:
    if draft.action_items is not None:
        return draft.action_items
    # The checklist keeps only the remedies whose condition held on what was measured (a
    # deadlock's remedy, not a hot lock's, when the dump shows a deadlock and no queue).
    remedies = [
        (finding, remedy, "" if verdict == "confirmed" else ", contributing")
        for verdict in ("confirmed", "likely")
        for finding in _by_verdict(draft, verdict)
        for remedy in finding.remedies
    ]
    if not remedies:
        return "_What we will change, who owns it, and by when._"
    which = (
        "confirmed and likely causes"
        if any(extra for _, _, extra in remedies)
        else "confirmed causes"
    )
    return f"Proposed from the remedies of the {which} (owner, due date, ticket):\n\n" + "\n".join(
        f"- [ ] {escape(remedy)} _(from {escape(finding.title)}{extra})_"
        for finding, remedy, extra in remedies
    )
