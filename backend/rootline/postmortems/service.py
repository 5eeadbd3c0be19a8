"""Rules about postmortems: drafting, saving sections with optimistic concurrency, status, exports."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.annotations import repository as annotations_repository
from rootline.artifacts import repository as artifacts_repository
from rootline.checklist import service as checklist_service
from rootline.checklist.data import DatabaseIncidentData
from rootline.checklist.schemas import EvidenceRead, FindingRead
from rootline.detectors.base import SeriesView
from rootline.errors import Conflict, NotFound
from rootline.incidents import repository as incidents_repository
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.postmortems import action_items, charts, draft, render, repository
from rootline.postmortems.models import Postmortem, PostmortemRevision, PostmortemSection
from rootline.postmortems.schemas import (
    SECTIONS,
    PostmortemRead,
    RevisionRead,
    SectionRead,
    SectionUpdate,
    StatusUpdate,
)
from rootline.timeutil import now_ms

# Saves of one section by one author within this long of the last are one revision.
COALESCE_MS = 10 * 60 * 1000
MAX_APP_SERIES = 8


def _read(
    postmortem: Postmortem, rows: Sequence[PostmortemSection], incident: Incident
) -> PostmortemRead:
    by_key = {row.key: row for row in rows}
    return PostmortemRead(
        incident_id=str(incident.id),
        status=postmortem.status,
        version=postmortem.version,
        created_by=postmortem.created_by,
        created_at_ms=postmortem.created_at_ms,
        status_changed_by=postmortem.status_changed_by,
        status_changed_at_ms=postmortem.status_changed_at_ms,
        published_at_ms=postmortem.published_at_ms,
        sections=[_section(by_key[key]) for key in SECTIONS if key in by_key],
    )


def _section(row: PostmortemSection) -> SectionRead:
    return SectionRead(
        key=row.key,
        title=SECTIONS[row.key],
        text=row.text,
        version=row.version,
        updated_by=row.updated_by,
        updated_at_ms=row.updated_at_ms,
    )


def get(session: Session, *, incident: Incident, published_only: bool = False) -> PostmortemRead:
    """The incident's postmortem (404 when none was drafted, or, if asked, none is published)."""
    postmortem = repository.get(session, incident.id)
    if postmortem is None:
        raise NotFound("postmortem_not_found", "no postmortem has been drafted for this incident")
    if published_only and postmortem.status != "published":
        raise NotFound("postmortem_not_published", "this incident's postmortem is not published")
    return _read(postmortem, repository.sections(session, postmortem.id), incident)


def create(session: Session, *, incident: Incident, author: str) -> PostmortemRead:
    """Draft the postmortem from the incident's data (409 when it exists already)."""
    incidents_repository.lock(session, incident.id)
    if repository.get(session, incident.id) is not None:
        raise Conflict("postmortem_exists", "this incident already has a postmortem")
    now = now_ms()
    postmortem = Postmortem(
        incident_id=incident.id,
        status="draft",
        version=1,
        created_by=author,
        created_at_ms=now,
        status_changed_by=author,
        status_changed_at_ms=now,
    )
    session.add(postmortem)
    session.flush()
    drafted = draft.draft_sections(draft_input(session, incident=incident))
    rows = [
        PostmortemSection(
            postmortem_id=postmortem.id,
            key=key,
            text=drafted[key],
            version=1,
            updated_by="Rootline",
            updated_at_ms=now,
        )
        for key in SECTIONS
    ]
    session.add_all(rows)
    session.flush()
    return _read(postmortem, rows, incident)


def _require(session: Session, incident: Incident, *, for_update: bool = False) -> Postmortem:
    postmortem = repository.get(session, incident.id, for_update=for_update)
    if postmortem is None:
        raise NotFound("postmortem_not_found", "no postmortem has been drafted for this incident")
    return postmortem


def _record(
    session: Session,
    *,
    postmortem: Postmortem,
    section: str,
    author: str,
    version: int,
    previous: str,
    now: int,
) -> None:
    """Add a revision, or extend the last one when the same author saved it just before."""
    last = repository.last_revision(session, postmortem.id, section)
    if last is not None and last.author == author and now - last.changed_at_ms < COALESCE_MS:
        last.changed_at_ms = now
        last.version = version
        return
    session.add(
        PostmortemRevision(
            postmortem_id=postmortem.id,
            section=section,
            author=author,
            changed_at_ms=now,
            version=version,
            previous_text=previous,
        )
    )


def save_section(
    session: Session, *, incident: Incident, key: str, data: SectionUpdate, author: str
) -> SectionRead:
    """Store a section's text edited from ``data.version`` (409 with the stored one if older)."""
    postmortem = _require(session, incident)
    row = repository.section(session, postmortem.id, key, for_update=True)
    if row is None:
        raise NotFound("section_not_found", f"no section {key!r}")
    if row.version != data.version:
        raise Conflict(
            "postmortem_conflict",
            f"{row.updated_by or 'someone'} saved this section since version {data.version}:"
            f" it is at version {row.version}",
            current=_section(row).model_dump(),
        )
    if row.text == data.text:
        return _section(row)
    now = now_ms()
    previous = row.text
    row.text = data.text
    row.version += 1
    row.updated_by = author
    row.updated_at_ms = now
    _record(
        session,
        postmortem=postmortem,
        section=key,
        author=author,
        version=row.version,
        previous=previous,
        now=now,
    )
    session.flush()
    return _section(row)


def set_status(
    session: Session, *, incident: Incident, data: StatusUpdate, author: str
) -> PostmortemRead:
    """Move the postmortem to draft, in review or published (409 if ``data.version`` is old)."""
    postmortem = _require(session, incident, for_update=True)
    if postmortem.version != data.version:
        raise Conflict(
            "postmortem_conflict",
            f"{postmortem.status_changed_by or 'someone'} changed the status since version"
            f" {data.version}: it is {postmortem.status} at version {postmortem.version}",
            status=postmortem.status,
            version=postmortem.version,
        )
    if postmortem.status != data.status:
        now = now_ms()
        previous = postmortem.status
        postmortem.status = data.status
        postmortem.version += 1
        postmortem.status_changed_by = author
        postmortem.status_changed_at_ms = now
        if data.status == "published":
            postmortem.published_at_ms = now
        # The incident reads as published while its postmortem is (its list, its header).
        incident.status = "published" if data.status == "published" else "draft"
        session.add(
            PostmortemRevision(
                postmortem_id=postmortem.id,
                section="status",
                author=author,
                changed_at_ms=now,
                version=postmortem.version,
                previous_text=previous,
            )
        )
        session.flush()
    return _read(postmortem, repository.sections(session, postmortem.id), incident)


def revisions(
    session: Session, *, incident: Incident, section: str | None, limit: int
) -> list[RevisionRead]:
    """Who changed what, newest first."""
    postmortem = _require(session, incident)
    return [
        RevisionRead.model_validate(row)
        for row in repository.revisions(session, postmortem.id, section=section, limit=limit)
    ]


# --- What the draft is made of -----------------------------------------------------------------


def draft_input(session: Session, *, incident: Incident) -> draft.DraftInput:
    """Everything the first draft says, read from the incident."""
    read = incidents_service.to_read(session, incident=incident)
    checklist = checklist_service.get(session, incident=incident)
    findings = checklist.findings
    symptom = checklist.symptom
    data = DatabaseIncidentData(session, incident.id)
    peaks = {}
    for finding in findings:
        if finding.effective_verdict == "confirmed":
            peak = _peak(data, finding)
            if peak is not None:
                peaks[finding.id] = peak
    return draft.DraftInput(
        title=incident.title,
        summary=incident.summary,
        timezone=incident.timezone,
        window=(read.window_start_ms, read.window_end_ms),
        hosts=sorted(artifacts_repository.parsed_kinds_and_hosts(session, incident.id)[1]),
        artifact_count=read.artifact_count,
        findings=findings,
        annotations=[
            (a.from_ms, a.to_ms, a.text, a.author)
            for a in annotations_repository.list_for_incident(session, incident.id)
        ],
        peaks=peaks,
        app_series=_app_series(data),
        symptom=None if symptom is None else (symptom.start_ms, symptom.end_ms, symptom.summary),
        action_items=action_items.markdown(session, incident=incident),
    )


def _matching(data: DatabaseIncidentData, item: EvidenceRead) -> list[SeriesView]:
    """The stored series an evidence item names (its labels a subset of theirs)."""
    assert item.series is not None
    return [
        view
        for view in data.series(item.series, host=item.host)
        if all(view.labels.get(k) == v for k, v in item.labels.items())
    ]


def _line_label(view: SeriesView, short: str) -> str:
    labels = dict(view.labels)
    parts = [short]
    if "local" in labels and "peer" in labels:
        parts.append(f"{labels.pop('local')} → {labels.pop('peer')}")
    host = labels.pop("host", None) or view.host
    parts.extend(f"{k}={v}" for k, v in sorted(labels.items()))
    if host:
        parts.append(f"@{host}")
    return " ".join(parts)


def _peak(data: DatabaseIncidentData, finding: FindingRead) -> draft.Peak | None:
    chosen = draft.chart_evidence(finding, limit=1)
    if not chosen:
        return None
    item = chosen[0]
    start, end = draft.cause_range(finding)
    best: draft.Peak | None = None
    for view in _matching(data, item):
        for time_ms, value in zip(view.times_ms.tolist(), view.values.tolist(), strict=True):
            if start is not None and end is not None and not start <= time_ms <= end:
                continue
            if best is None or value > best.value:
                _, short = charts.lane_title(view.name)
                best = draft.Peak(time_ms, value, view.unit, _line_label(view, short))
    return best


def _app_series(data: DatabaseIncidentData) -> list[draft.AppSeriesSummary]:
    summaries = []
    for view in list(data.series("app.*"))[:MAX_APP_SERIES]:
        if not len(view):
            continue
        values = view.values.tolist()
        peak_index = max(range(len(values)), key=values.__getitem__)
        summaries.append(
            draft.AppSeriesSummary(
                name=view.name,
                unit=view.unit,
                host=view.host,
                first_ms=int(view.times_ms[0]),
                last_ms=int(view.times_ms[-1]),
                median=float(statistics.median(values)),
                peak=float(values[peak_index]),
                peak_ms=int(view.times_ms[peak_index]),
                count=len(values),
            )
        )
    return summaries


# --- Charts and exports ----------------------------------------------------------------------


def chart_for(data: DatabaseIncidentData, finding: FindingRead, *, timezone: str) -> str | None:
    """A finding's evidence chart (SVG), or None when none of its evidence names a series."""
    lanes: list[charts.ChartLane] = []
    bands: list[tuple[int, int]] = []
    for item in draft.chart_evidence(finding):
        views = _matching(data, item)
        if not views:
            continue
        title, short = charts.lane_title(views[0].name)
        lanes.append(
            charts.ChartLane(
                title=title,
                unit=views[0].unit,
                lines=[
                    charts.ChartLine(
                        _line_label(view, short), view.times_ms.tolist(), view.values.tolist()
                    )
                    for view in views[:6]
                ],
            )
        )
        assert item.from_ms is not None
        bands.append((item.from_ms, item.to_ms if item.to_ms is not None else item.from_ms))
    if not lanes:
        return None
    start = min(b[0] for b in bands)
    end = max(b[1] for b in bands)
    times = [t for lane in lanes for line in lane.lines for t in line.times_ms]
    pad = max((end - start) // 10, 5_000)
    domain = (max(start - pad, min(times)), min(end + pad, max(times)))
    return charts.evidence_chart(
        lanes,
        domain=domain if domain[1] > domain[0] else (start - pad, end + pad),
        bands=sorted(set(bands)),
        timezone=timezone,
        title=draft.chart_caption(finding),
    )


def chart(session: Session, *, incident: Incident, finding_id: str) -> str:
    """One finding's evidence chart as SVG (404 when it has none)."""
    findings = checklist_service.get(session, incident=incident).findings
    finding = next((f for f in findings if f.id == finding_id), None)
    svg = None
    if finding is not None:
        svg = chart_for(
            DatabaseIncidentData(session, incident.id), finding, timezone=incident.timezone
        )
    if svg is None:
        raise NotFound("chart_not_found", f"no evidence chart for {finding_id!r}")
    return svg


def document(session: Session, *, incident: Incident) -> render.Document:
    """What the exports render: the stored postmortem, or a fresh draft when none is stored."""
    postmortem = repository.get(session, incident.id)
    if postmortem is None:
        texts = draft.draft_sections(draft_input(session, incident=incident))
        status = "draft"
        note = "Drafted by Rootline from the incident's data, not yet edited"
    else:
        texts = {row.key: row.text for row in repository.sections(session, postmortem.id)}
        status = postmortem.status
        note = (
            f"Published {charts.format_time(postmortem.published_at_ms, incident.timezone)}"
            f" ({incident.timezone})"
            if status == "published" and postmortem.published_at_ms is not None
            else f"{status.replace('_', ' ').capitalize()}, last changed"
            f" {charts.format_time(_last_change(session, postmortem), incident.timezone)}"
            f" ({incident.timezone})"
        )
    sections = [render.Section(key, title, texts.get(key, "")) for key, title in SECTIONS.items()]
    referenced = set(render.CHART_REF.findall("\n".join(s.text for s in sections)))
    svgs: dict[str, str] = {}
    if referenced:
        data = DatabaseIncidentData(session, incident.id)
        for finding in checklist_service.get(session, incident=incident).findings:
            if finding.id in referenced:
                svg = chart_for(data, finding, timezone=incident.timezone)
                if svg is not None:
                    svgs[finding.id] = svg
    return render.Document(
        title=f"Postmortem: {incident.title}",
        status=status,
        subtitle=note,
        sections=sections,
        charts=svgs,
    )


def _last_change(session: Session, postmortem: Postmortem) -> int:
    rows = repository.sections(session, postmortem.id)
    return max([postmortem.status_changed_at_ms, *(row.updated_at_ms for row in rows)])


def export(
    session: Session, *, incident: Incident, format_: str, chromium: str
) -> tuple[bytes, str, str]:
    """The postmortem as ``format_`` (md: a zip, html, pdf): bytes, file name, content type."""
    stem = f"postmortem-{render.slug(incident.title)}"
    content = render.render(
        document(session, incident=incident), format_, stem=stem, chromium=chromium
    )
    return content, f"{stem}.{render.extension(format_)}", render.content_type(format_)
