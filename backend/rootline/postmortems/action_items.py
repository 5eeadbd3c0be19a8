"""The postmortem's action items section, from the ``action_items`` table once it exists.

The table (title, owner, due date, status, ticket link, the remedy it came from) is added on
another branch; `markdown` lists its rows for the incident, and answers None while there is
no such table, so that the draft proposes the confirmed causes' remedies instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.orm import Session

from rootline.incidents.models import Incident
from rootline.postmortems import repository
from rootline.postmortems.draft import escape

_TITLE = ("title", "summary", "text")
_OWNER = ("owner", "assignee")
_DUE = ("due_ms", "due_date", "due")
_STATUS = ("status", "state")
_TICKET = ("ticket_url", "ticket", "link", "url")


def _first(row: Mapping[str, Any], names: Sequence[str]) -> Any:
    return next((row[n] for n in names if row.get(n) not in (None, "")), None)


def _due(value: Any) -> str:
    if isinstance(value, int):
        return datetime.fromtimestamp(value / 1000, UTC).date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return "" if value is None else escape(str(value))


def _url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Action items as a Markdown table (title, owner, due, status, ticket).

    >>> print(table([{"title": "Raise SO_SNDBUF", "owner": "li.wei", "status": "open"}]))
    | Action | Owner | Due | Status | Ticket |
    | --- | --- | --- | --- | --- |
    | Raise SO_SNDBUF | li.wei |  | open |  |
    """
    if not rows:
        return "_No action item yet._"
    lines = ["| Action | Owner | Due | Status | Ticket |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        ticket = _first(row, _TICKET)
        link = f"[{escape(str(ticket))}]({_url(str(ticket))})" if ticket and str(ticket).startswith("http") else ""
        lines.append(
            f"| {escape(str(_first(row, _TITLE) or ''))} | {escape(str(_first(row, _OWNER) or ''))}"
            f" | {_due(_first(row, _DUE))} | {escape(str(_first(row, _STATUS) or ''))} | {link} |"
        )
    return "\n".join(lines)


def markdown(session: Session, *, incident: Incident) -> str | None:
    """The incident's action items as Markdown, or None while it has none (the draft then
    proposes the confirmed causes' remedies, each a "Create action item" away)."""
    rows = repository.action_items(session, incident.id)
    return table(rows) if rows else None
