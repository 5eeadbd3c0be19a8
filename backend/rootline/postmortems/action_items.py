"""The postmortem's action items section: the incident's items (`rootline.actions`) as a table.

While the incident has none, `markdown` answers None and the draft proposes the confirmed
causes' remedies instead, each a "Create action item" away.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.actions import service as actions_service
from rootline.actions.schemas import ActionItemRead
from rootline.incidents.models import Incident
from rootline.postmortems.draft import escape


def _url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def table(items: Sequence[ActionItemRead]) -> str:
    """Action items as a Markdown table (title, owner, due, status, ticket).

    >>> import uuid
    >>> item = ActionItemRead(id=1, incident_id=uuid.UUID(int=1), title="Raise SO_SNDBUF",
    ...     owner="li.wei", due_date=None, status="open", ticket_url=None, external_id=None,
    ...     notes="", finding_id=None, remedy_index=None, remedy="", command="",
    ...     verified_incident_id=None, verified_at_ms=None, verified_by=None, created_by="li.wei",
    ...     created_at_ms=0, updated_at_ms=0)
    >>> print(table([item]))
    | Action | Owner | Due | Status | Ticket |
    | --- | --- | --- | --- | --- |
    | Raise SO_SNDBUF | li.wei |  | open |  |
    """
    lines = ["| Action | Owner | Due | Status | Ticket |", "| --- | --- | --- | --- | --- |"]
    for item in items:
        ticket = item.ticket_url or ""
        link = f"[{escape(ticket)}]({_url(ticket)})" if ticket.startswith("http") else ""
        due = item.due_date.isoformat() if item.due_date else ""
        lines.append(
            f"| {escape(item.title)} | {escape(item.owner)} | {due} | {item.status} | {link} |"
        )
    return "\n".join(lines)


def markdown(session: Session, *, incident: Incident) -> str | None:
    """The incident's action items as Markdown, or None while it has none."""
    items = actions_service.list_for_incident(session, incident=incident)
    return table(items) if items else None
