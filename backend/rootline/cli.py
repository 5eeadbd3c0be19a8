"""The ``rootline`` command: serve, worker, parse, ingest, export, demo, db, users, tokens, actions."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from rootline import offline
from rootline.detectors.base import Finding
from rootline.detectors.data import ParsedArtifact, artifact_time
from rootline.parsers.base import (
    PLACED_AT_UPLOAD,
    TIME_ASSUMPTION_FACTS,
    UNANCHORED,
    ParseContext,
    ParseResult,
)
from rootline.timeutil import ms_to_iso, now_ms

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlalchemy.orm import Session

app = typer.Typer(
    help="Rootline: network and JVM incident postmortems.",
    no_args_is_help=True,
    add_completion=False,
)
db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
app.add_typer(db_app, name="db")
users_app = typer.Typer(help="Users who sign in to the web app.", no_args_is_help=True)
app.add_typer(users_app, name="users")
tokens_app = typer.Typer(help="API tokens (for ingest and scripts).", no_args_is_help=True)
app.add_typer(tokens_app, name="tokens")
actions_app = typer.Typer(
    help="Action items (list, create, update: what a ticketing integration syncs).",
    no_args_is_help=True,
)
app.add_typer(actions_app, name="actions")


# Seconds a server worker process may take to answer uvicorn's health check, starting included.
WORKER_HEALTHCHECK_S = 30


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    migrate: Annotated[bool, typer.Option(help="Apply migrations before serving.")] = True,
) -> None:
    """Migrate the database and serve the API and the web app."""
    import uvicorn

    from rootline.accounts import service as accounts_service
    from rootline.server import ReadTimeoutProtocol, log_config
    from rootline.settings import get_settings

    settings = get_settings()
    with _database(migrate=migrate) as session:
        link = accounts_service.ensure_admin(session)
    base = (settings.public_url or f"http://{_link_host(host)}:{port}").rstrip("/")
    typer.echo(
        f"Rootline on http://{host}:{port}/  (database: {_redact(settings.resolved_database_url)})"
    )
    if link is not None:
        typer.echo("Sign in as admin (then set a password) with this one-time link:")
        typer.echo(f"{base}/api/auth/one-time/{link}")
    uvicorn.run(
        "rootline.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        # X-Forwarded-* are believed only when the settings say a proxy sets them.
        proxy_headers=settings.trust_proxy_headers,
        forwarded_allow_ips="*" if settings.trust_proxy_headers else None,
        timeout_keep_alive=settings.keep_alive_s,
        # Header and body read timeouts (uvicorn has none), and share tokens kept out of
        # the access log.
        http=ReadTimeoutProtocol,
        log_config=log_config(),
        # uvicorn kills a worker process that does not answer its health check in time, and
        # its default (5 s) counts the start: on a busy machine a restarted server killed its
        # own new workers one after another (and a worker whose threads all want the CPU can
        # miss it too). A hung worker is still replaced, later.
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
    )


def _link_host(host: str) -> str:
    if host in {"0.0.0.0", ""}:
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


@contextmanager
def _engine(*, migrate: bool = True) -> Iterator[Engine]:
    """An engine on the configured (by default first migrated) database, disposed when the
    block ends; an `ApiError` or a database failure in the block is printed as one line and
    exits with 1."""
    from sqlalchemy.exc import SQLAlchemyError

    from rootline.db import make_engine, upgrade
    from rootline.errors import ApiError
    from rootline.settings import get_settings

    url = get_settings().resolved_database_url
    engine = make_engine(url)
    try:
        if migrate:
            upgrade(url)
        yield engine
    except ApiError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(code=1) from exc
    except SQLAlchemyError as exc:
        typer.echo(f"rootline: database error: {_first_line(exc)}", err=True)
        raise typer.Exit(code=1) from exc
    finally:
        engine.dispose()


def _first_line(exc: Exception) -> str:
    """What the database driver said, without SQLAlchemy's statement and links."""
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    return lines[0] if lines else type(cause).__name__


@contextmanager
def _database(*, migrate: bool = True, write: bool = True) -> Iterator[Session]:
    """A session on the configured database (see `_engine`), committed when the block ends
    without error.

    A writing session takes SQLite's write lock at its start and waits for it (the busy
    timeout) while another process writes, e.g. the server parsing the demo right after
    `make run`: reading first and writing later would fail at once with "database is
    locked" once that writer commits (see `rootline.db.writer_engine`).
    """
    from rootline.db import make_sessionmaker, writer_engine

    with _engine(migrate=migrate) as engine:
        bind = writer_engine(engine) if write else engine
        with make_sessionmaker(bind).begin() as session:
            yield session


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every migration to the configured database."""
    from rootline.db import upgrade
    from rootline.settings import get_settings

    url = get_settings().resolved_database_url
    upgrade(url)
    typer.echo(f"database at head: {_redact(url)}")


_PUBLIC_URL = typer.Option(
    envvar="ROOTLINE_PUBLIC_URL", help="Server address the printed sign-in link starts with."
)


def _print_link(session: Session, user: Any, public_url: str) -> None:
    from rootline.accounts import service as accounts_service

    token = accounts_service.create_link(session, user)
    typer.echo(f"{public_url.rstrip('/')}/api/auth/one-time/{token}")


@users_app.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="User name.")],
    admin: Annotated[bool, typer.Option("--admin", help="May manage users.")] = False,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
    public_url: Annotated[str, _PUBLIC_URL] = "http://127.0.0.1:8000",
) -> None:
    """Add a user; without a password, print a one-time sign-in link for it."""
    from rootline.accounts import service as accounts_service
    from rootline.accounts.schemas import MIN_PASSWORD

    password = sys.stdin.readline().rstrip("\r\n") if password_stdin else None
    if password is not None and len(password) < MIN_PASSWORD:
        typer.echo(f"a password has at least {MIN_PASSWORD} characters", err=True)
        raise typer.Exit(code=2)
    with _database() as session:
        user = accounts_service.create_user(session, name, password=password, is_admin=admin)
        if password is None:
            _print_link(session, user, public_url)
    typer.echo(f"added user {name}" + (" (admin)" if admin else ""), err=True)


@users_app.command("list")
def users_list() -> None:
    """Every user, one a line."""
    from rootline.accounts import repository

    with _database(write=False) as session:
        for user in repository.list_users(session):
            flags = [
                flag
                for flag, on in (
                    ("admin", user.is_admin),
                    ("disabled", user.disabled),
                    ("no-password", user.password_hash is None),
                )
                if on
            ]
            last = ms_to_iso(user.last_login_at_ms) if user.last_login_at_ms else "never"
            typer.echo(f"{user.username}\t{','.join(flags) or '-'}\tlast sign-in {last}")


def _set_disabled(name: str, disabled: bool) -> None:
    from rootline.accounts import service as accounts_service

    with _database() as session:
        accounts_service.set_disabled(
            session, accounts_service.get_user_or_404(session, name), disabled
        )
    typer.echo(f"{name} {'disabled' if disabled else 'enabled'}", err=True)


@users_app.command("disable")
def users_disable(name: Annotated[str, typer.Argument(help="User name.")]) -> None:
    """Disable a user: its sessions end and its API tokens stop working."""
    _set_disabled(name, True)


@users_app.command("enable")
def users_enable(name: Annotated[str, typer.Argument(help="User name.")]) -> None:
    """Enable a disabled user again."""
    _set_disabled(name, False)


@users_app.command("link")
def users_link(
    name: Annotated[str, typer.Argument(help="User name.")],
    public_url: Annotated[str, _PUBLIC_URL] = "http://127.0.0.1:8000",
) -> None:
    """Print a one-time sign-in link for a user (valid 24 hours, single use)."""
    from rootline.accounts import service as accounts_service

    with _database() as session:
        _print_link(session, accounts_service.get_user_or_404(session, name), public_url)


@tokens_app.command("create")
def tokens_create(
    user: Annotated[str, typer.Option("--user", help="The user the token acts for.")],
    scope: Annotated[
        str, typer.Option(help="ingest (upload artifacts only) or read-write.")
    ] = "read-write",
    incident: Annotated[
        str | None, typer.Option(help="Limit the token to this incident id.")
    ] = None,
    name: Annotated[str, typer.Option(help="A name to recognise the token by.")] = "cli",
) -> None:
    """Create an API token and print it (and nothing else) on standard output."""
    from rootline.accounts import service as accounts_service

    try:
        incident_id = uuid.UUID(incident) if incident else None
    except ValueError as exc:
        typer.echo(f"not an incident id: {incident}", err=True)
        raise typer.Exit(code=2) from exc
    with _database() as session:
        created = accounts_service.create_token(
            session,
            accounts_service.get_user_or_404(session, user),
            name=name,
            scope=scope,
            incident_id=incident_id,
        )
    typer.echo(created.token)


@tokens_app.command("list")
def tokens_list(
    user: Annotated[str | None, typer.Option("--user", help="Only this user's tokens.")] = None,
) -> None:
    """API tokens, newest first (never their secrets)."""
    from rootline.accounts import repository
    from rootline.accounts import service as accounts_service

    with _database(write=False) as session:
        owner = accounts_service.get_user_or_404(session, user) if user else None
        names = {u.id: u.username for u in repository.list_users(session)}
        for token in accounts_service.list_tokens(session, user_id=owner.id if owner else None):
            state = "revoked" if token.revoked_at_ms else "active"
            used = ms_to_iso(token.last_used_at_ms) if token.last_used_at_ms else "never"
            typer.echo(
                f"{token.id}\t{token.prefix}...\t{names.get(token.user_id, '?')}\t"
                f"{token.scope}\t{token.incident_id or '*'}\t{token.name}\t{state}\t"
                f"last used {used}"
            )


@tokens_app.command("revoke")
def tokens_revoke(token_id: Annotated[int, typer.Argument(help="Token id (see list).")]) -> None:
    """Revoke an API token."""
    from rootline.accounts import service as accounts_service

    with _database() as session:
        accounts_service.revoke_token(session, token_id, owner_id=None)
    typer.echo(f"token {token_id} revoked", err=True)


@app.command()
def demo() -> None:
    """Load the demo incident into the configured database (again, if asked)."""
    from rootline import demo as demo_module
    from rootline.artifacts import worker as parse_worker
    from rootline.settings import get_settings
    from rootline.storage import make_store

    store = make_store(get_settings())
    with _engine() as engine:
        sessions = parse_worker.sessions_for(engine)
        with sessions.write.begin() as session:
            incident_id = demo_module.load(session, store)
        parse_worker.drain(sessions, store)
    typer.echo(incident_id)


@app.command()
def worker(
    threads: Annotated[int, typer.Option(help="Parse threads in this process.")] = 1,
    once: Annotated[bool, typer.Option(help="Parse what is queued now, then exit.")] = False,
) -> None:
    """Parse uploaded artifacts, as every server process does with ROOTLINE_PARSE_THREADS;
    for parsing on other machines than the API (set ROOTLINE_PARSE_THREADS=0 there)."""
    import signal
    import threading

    from rootline.artifacts import worker as parse_worker
    from rootline.settings import get_settings
    from rootline.storage import make_store

    settings = get_settings()
    store = make_store(settings)
    # Migrating is the servers' job (`serve`, `db upgrade`).
    with _engine(migrate=False) as engine:
        sessions = parse_worker.sessions_for(engine)
        if once:
            typer.echo(f"parsed {parse_worker.drain(sessions, store)} artifacts")
            return
        workers = parse_worker.ParseWorkers(sessions, store, count=threads)
        stopping = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.set())
        workers.start()
        typer.echo(f"parse worker: {threads} threads on {_redact(settings.resolved_database_url)}")
        while not stopping.wait(1.0):
            pass
        workers.stop()


EXPORT_FORMATS = ("md", "html", "pdf")


@app.command()
def export(
    incident: Annotated[str, typer.Argument(help="The incident's id (as in its URL).")],
    format_: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="md (a zip: postmortem.md and its charts as SVG), html or pdf."
        ),
    ] = "md",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="File to write, '-' for standard output; default postmortem-<title>.<zip|html|pdf>.",
        ),
    ] = None,
) -> None:
    """Export an incident's postmortem from the database the server uses (a fresh draft when
    none was written yet)."""
    from rootline.incidents import service as incidents_service
    from rootline.postmortems import service as postmortems_service
    from rootline.settings import get_settings

    if format_ not in EXPORT_FORMATS:
        typer.echo(f"--format is one of {', '.join(EXPORT_FORMATS)}", err=True)
        raise typer.Exit(code=2)
    try:
        incident_id = uuid.UUID(incident)
    except ValueError:
        typer.echo(f"not an incident id: {incident!r}", err=True)
        raise typer.Exit(code=2) from None
    # Reading only: migrating is the servers' job (`serve`, `db upgrade`).
    with _database(migrate=False, write=False) as session:
        found = incidents_service.get_or_404(session, incident_id=incident_id)
        content, filename, _ = postmortems_service.export(
            session, incident=found, format_=format_, chromium=get_settings().chromium
        )
    if output is not None and str(output) == "-":
        sys.stdout.buffer.write(content)
        sys.stdout.buffer.flush()
        return
    target = output or Path(filename)
    target.write_bytes(content)
    typer.echo(f"wrote {target} ({len(content):,} bytes)", err=True)


@app.command()
def openapi() -> None:
    """Print the OpenAPI document (the frontend's types are generated from it)."""
    import tempfile

    from rootline.app import create_app
    from rootline.settings import Settings

    with tempfile.TemporaryDirectory() as scratch:
        application = create_app(Settings(data_dir=Path(scratch), load_demo=False))
        document = application.openapi()
        application.state.engine.dispose()
    typer.echo(json.dumps(document, indent=1, sort_keys=True))


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def parse_summary(path: str, result: ParseResult) -> dict[str, Any]:
    """The ``parse --json`` object for one file (a contract: tools read it)."""
    time_range = result.time_range()
    events: dict[str, dict[str, Any]] = {}
    for event in result.events:
        entry = events.setdefault(
            event.kind,
            {"kind": event.kind, "count": 0, "total_duration_ms": 0.0, "max_duration_ms": None},
        )
        entry["count"] += 1
        if event.duration_ms is not None:
            entry["total_duration_ms"] += event.duration_ms
            longest = entry["max_duration_ms"]
            entry["max_duration_ms"] = (
                event.duration_ms if longest is None else max(longest, event.duration_ms)
            )
    diagnostics = [{"line": d.line, "message": d.message} for d in result.diagnostics]
    if result.diagnostics_dropped:
        diagnostics.append(
            {"line": 0, "message": f"{result.diagnostics_dropped} more diagnostics not listed"}
        )
    return {
        "path": path,
        "kind": result.kind,
        "status": result.status,
        "diagnostics": diagnostics,
        "from": ms_to_iso(time_range[0]) if time_range else None,
        "to": ms_to_iso(time_range[1]) if time_range else None,
        "series": [
            {
                "name": s.name,
                "labels": s.labels,
                "unit": s.unit,
                "points": len(s),
                "min": float(np.min(s.values)) if len(s) else None,
                "max": float(np.max(s.values)) if len(s) else None,
            }
            for s in result.series
        ],
        "events": list(events.values()),
    }


@app.command()
def parse(
    paths: Annotated[list[Path], typer.Argument(exists=True, help="Files, folders or bundles.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    timezone: Annotated[str, typer.Option(help="IANA zone for zone-less timestamps.")] = "UTC",
    kind: Annotated[str | None, typer.Option(help="Read as this kind instead of sniffing.")] = None,
    jvm_start: Annotated[
        str | None, typer.Option(help="JVM start time for uptime-only GC logs.")
    ] = None,
) -> None:
    """Detect each file's kind and show what was extracted."""
    from rootline.timeutil import parse_instant

    context = ParseContext.for_zone(
        timezone,
        default_time_ms=now_ms(),
        jvm_start_ms=parse_instant(jvm_start) if jvm_start else None,
    )
    summaries = [
        parse_summary(parsed.name, parsed.result)
        for path in offline.expand_paths(paths)
        for parsed in offline.parse_path(path, context, kind)
    ]
    if as_json:
        payload: Any = summaries[0] if len(summaries) == 1 else summaries
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    for summary in summaries:
        _print_summary(summary)


def _print_summary(summary: dict[str, Any]) -> None:
    status = summary["status"]
    typer.echo(f"{summary['path']}: {summary['kind']} ({status})")
    if summary["from"]:
        typer.echo(f"  time: {summary['from']} .. {summary['to']}")
    series = summary["series"]
    if series:
        points = sum(s["points"] for s in series)
        names = sorted({s["name"] for s in series})
        typer.echo(f"  series: {len(series)} ({points} points) in {len(names)} names")
        for name in names[:12]:
            group = [s for s in series if s["name"] == name]
            low = min(s["min"] for s in group)
            high = max(s["max"] for s in group)
            typer.echo(f"    {name:<40} x{len(group):<5} {low:g} .. {high:g} {group[0]['unit']}")
        if len(names) > 12:
            typer.echo(f"    ... {len(names) - 12} more names")
    for event in summary["events"]:
        longest = event["max_duration_ms"]
        extra = (
            f", max {longest:g} ms, total {event['total_duration_ms']:g} ms"
            if longest is not None
            else ""
        )
        typer.echo(f"  events: {event['kind']} x{event['count']}{extra}")
    for diagnostic in summary["diagnostics"][:10]:
        typer.echo(f"  line {diagnostic['line']}: {diagnostic['message']}")
    if len(summary["diagnostics"]) > 10:
        typer.echo(f"  ... {len(summary['diagnostics']) - 10} more diagnostics")


@app.command()
def analyze(
    paths: Annotated[list[Path], typer.Argument(exists=True, help="Files, folders or bundles.")],
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"findings": [...]} as JSON.')
    ] = False,
    timezone: Annotated[str, typer.Option(help="IANA zone for zone-less timestamps.")] = "UTC",
    jvm_start: Annotated[
        str | None, typer.Option(help="JVM start time for uptime-only GC logs.")
    ] = None,
) -> None:
    """Run the root-cause checklist offline on files, folders and bundles (no server needed)."""
    from rootline.timeutil import parse_instant

    context = ParseContext.for_zone(
        timezone,
        default_time_ms=now_ms(),
        jvm_start_ms=parse_instant(jvm_start) if jvm_start else None,
    )
    findings, parsed = offline.analyze(paths, context)
    for item in parsed:
        placed = artifact_time(item)
        if placed is None:
            continue
        # What of a file's times was assumed, as the server's artifact listing says it, before
        # anyone reads a time off them (the checklist says it of the verdicts resting on them).
        for what, detail in placed.assumed:
            if what == PLACED_AT_UPLOAD:
                typer.echo(
                    f"warning: {item.name}: no timestamp in the file: its data was placed at"
                    f" the time of this run ({ms_to_iso(placed.start_ms)}); if"
                    " it was captured at another time, re-capture it with a timestamp line"
                    " before each reading (while :; do date -Is; <command>; sleep 5; done)",
                    err=True,
                )
            elif what == UNANCHORED:
                typer.echo(
                    f"warning: {item.name}: GC log with JVM uptime only and no start time: its"
                    " times are relative (counted from the Unix epoch), so they line up with no"
                    " other capture; anchor them with --jvm-start <the JVM's start time, e.g."
                    " 2026-11-21T07:00:00Z> (ps -o lstart= -p <pid>)",
                    err=True,
                )
            else:
                # Lines with a time of day only are put on today's date.
                typer.echo(
                    f"warning: {item.name}: some of its times were assumed ({what} ="
                    f" {detail}: {TIME_ASSUMPTION_FACTS[what]}); if they belong to"
                    " another day, give the file its dates before reading times off it",
                    err=True,
                )
    if as_json:
        json.dump({"findings": [f.to_dict() for f in findings]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_checklist(findings, parsed)
    if all(p.result.status == "failed" for p in parsed):
        typer.echo("nothing could be read from the given paths", err=True)
        raise typer.Exit(code=2)


_VERDICT_LABELS = {
    "confirmed": "CONFIRMED",
    "likely": "LIKELY",
    "insufficient_data": "NO DATA",
    "ruled_out": "ruled out",
}


def _print_checklist(findings: list[Finding], parsed: list[ParsedArtifact]) -> None:
    from rootline.detectors import symptom
    from rootline.detectors.data import MemoryIncidentData

    readable = sum(1 for p in parsed if p.result.status != "failed")
    version = findings[0].rules_version if findings else ""
    typer.echo(f"Read {readable} of {len(parsed)} artifacts; rules version {version}.\n")
    found = symptom.find_symptom(
        MemoryIncidentData(p for p in parsed if p.result.status != "failed")
    )
    if found is not None:
        overlapping = [
            f"{f.id} ({f.verdict})"
            for f in findings
            if symptom.overlap(found, f.verdict, f.to_dict()["evidence"]).overlaps
        ]
        typer.echo(f"Symptom: {found.summary}")
        typer.echo(f"  overlaps: {', '.join(overlapping) or 'no confirmed or likely cause'}\n")
    for finding in findings:
        typer.echo(f"[{_VERDICT_LABELS[finding.verdict]:>9}] {finding.title} ({finding.id})")
        typer.echo(f"            {finding.summary}")
        # Observations past their threshold first: they are what the verdict rests on.
        shown = sorted(finding.evidence, key=lambda item: item.met is not True)[:4]
        for item in shown:
            mark = "+" if item.met is True else "-" if item.met is False else " "
            typer.echo(f"          {mark} {item.summary}")
        for missing in finding.missing[:2]:
            typer.echo(f"            collect {missing.artifact}: {missing.command}")
        typer.echo("")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(exists=True, help="Files, folders or bundles.")],
    server: Annotated[str, typer.Option(help="Rootline URL, e.g. http://127.0.0.1:8000")],
    incident: Annotated[str, typer.Option(help="Incident id.")],
    host: Annotated[str | None, typer.Option(help="Host the files come from.")] = None,
    timezone: Annotated[
        str | None, typer.Option(help="IANA zone for zone-less timestamps.")
    ] = None,
    clock_offset_s: Annotated[
        float | None, typer.Option(help="Seconds to add to the files' times.")
    ] = None,
    kind: Annotated[str | None, typer.Option(help="Read as this kind instead of sniffing.")] = None,
    token: Annotated[
        str | None, typer.Option(envvar="ROOTLINE_TOKEN", help="API token (or ROOTLINE_TOKEN).")
    ] = None,
    wait: Annotated[
        float,
        typer.Option(help="Seconds to wait for each file's parse (0: report it as pending)."),
    ] = 300,
) -> None:
    """Upload files to a Rootline server, one request per file, streamed; report how each
    was parsed."""
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    failures = 0
    timeout = httpx.Timeout(600 + wait, connect=30)
    with httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=timeout) as client:
        for path in offline.expand_paths(paths):
            params = {
                k: v
                for k, v in {
                    "filename": path.name,
                    "host": host,
                    "timezone": timezone,
                    "clock_offset_s": clock_offset_s,
                    "kind": kind,
                    "wait": wait,
                }.items()
                if v is not None
            }
            with path.open("rb") as body:
                response = client.post(
                    f"/api/incidents/{incident}/artifacts",
                    params=params,
                    content=body,
                    headers={"Content-Type": "application/octet-stream"},
                )
            if response.status_code >= 400:
                failures += 1
                typer.echo(f"{path}: HTTP {response.status_code}: {response.text[:300]}", err=True)
                continue
            for artifact, created in zip(
                response.json()["artifacts"], response.json()["created"], strict=True
            ):
                note = "" if created else " (already there)"
                typer.echo(
                    f"{path}: {artifact['filename']} -> {artifact['kind']} {artifact['status']}"
                    f" {artifact['id']}{note}"
                )
    if failures:
        raise typer.Exit(code=1)


# --- Action items ------------------------------------------------------------------------


def _parse_date(value: str | None, option: str) -> Any:
    import datetime as dt

    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        typer.echo(f"{option}: not a date (YYYY-MM-DD): {value}", err=True)
        raise typer.Exit(code=2) from exc


def _parse_incident(value: str, option: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        typer.echo(f"{option}: not an incident id: {value}", err=True)
        raise typer.Exit(code=2) from exc


def _validated(model: Any, fields: dict[str, Any]) -> Any:
    from pydantic import ValidationError

    try:
        return model(**{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            typer.echo(f"{where}: {error['msg']}", err=True)
        raise typer.Exit(code=2) from exc


def _print_items(items: list[Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([item.model_dump(mode="json") for item in items], indent=2))
        return
    for item in items:
        verified = f"verified by {item.verified_incident_id}" if item.verified_incident_id else ""
        typer.echo(
            "\t".join(
                str(part)
                for part in (
                    item.id,
                    item.status,
                    item.owner or "-",
                    item.due_date or "-",
                    item.external_id or "-",
                    item.incident_title,
                    item.title,
                    verified,
                )
            ).rstrip()
        )


_JSON = typer.Option("--json", help="JSON for machines.")
_STATUS_HELP = "open, in_progress, done or wont_do."


@actions_app.command("list")
def actions_list(
    owner: Annotated[str | None, typer.Option(help="Only this owner's.")] = None,
    status: Annotated[
        list[str] | None, typer.Option(help=f"Only these states (repeat): {_STATUS_HELP}")
    ] = None,
    due_before: Annotated[
        str | None, typer.Option(help="Due before this date (YYYY-MM-DD).")
    ] = None,
    incident: Annotated[str | None, typer.Option(help="Only this incident's.")] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Action items across incidents, by owner then due date: id, status, owner, due date,
    external id, incident, title (tab-separated), or --json."""
    from rootline.actions import service as actions_service
    from rootline.actions.schemas import ACTION_STATUSES

    unknown = [s for s in status or [] if s not in ACTION_STATUSES]
    if unknown:
        typer.echo(f"--status: {', '.join(unknown)}: not one of {_STATUS_HELP}", err=True)
        raise typer.Exit(code=2)
    incident_id = _parse_incident(incident, "--incident") if incident else None
    due = _parse_date(due_before, "--due-before")
    with _database(write=False) as session:
        page = actions_service.search(
            session,
            owner=owner,
            statuses=status or [],
            due_before=due,
            incident_id=incident_id,
            limit=100_000,
        )
    _print_items(page.items, as_json)


@actions_app.command("create")
def actions_create(
    incident: Annotated[str, typer.Option(help="Incident id.")],
    title: Annotated[
        str | None, typer.Option(help="Title (from a remedy: its first words).")
    ] = None,
    owner: Annotated[str | None, typer.Option(help="Who does it.")] = None,
    due: Annotated[str | None, typer.Option(help="Due date, YYYY-MM-DD.")] = None,
    status: Annotated[str | None, typer.Option(help=_STATUS_HELP)] = None,
    ticket: Annotated[str | None, typer.Option(help="Ticket link (http or https).")] = None,
    external_id: Annotated[
        str | None,
        typer.Option(help="The ticketing system's id: updates the item that has it, if any."),
    ] = None,
    finding: Annotated[str | None, typer.Option(help="Checklist id it answers.")] = None,
    remedy: Annotated[
        int | None, typer.Option(help="Index of that finding's remedy to copy (from 0).")
    ] = None,
    command: Annotated[str | None, typer.Option(help="Setting or command to apply.")] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Create an action item (or, with --external-id, create or update the item with that
    id: an integration can run it on every sync)."""
    from rootline.actions import service as actions_service
    from rootline.actions.schemas import ActionItemCreate
    from rootline.incidents import service as incidents_service

    data = _validated(
        ActionItemCreate,
        {
            "title": title,
            "owner": owner,
            "due_date": _parse_date(due, "--due"),
            "status": status,
            "ticket_url": ticket,
            "finding_id": finding,
            "remedy_index": remedy,
            "command": command,
        },
    )
    incident_id = _parse_incident(incident, "--incident")
    with _database() as session:
        target = incidents_service.get_or_404(session, incident_id=incident_id)
        if external_id:
            item, created = actions_service.upsert_external(
                session, incident=target, external_id=external_id, data=data, author="cli"
            )
        else:
            item, created = (
                actions_service.create(session, incident=target, data=data, author="cli"),
                True,
            )
    _print_items([item], as_json)
    typer.echo(f"action item {item.id} {'created' if created else 'updated'}", err=True)


@actions_app.command("update")
def actions_update(
    item_id: Annotated[int | None, typer.Argument(help="Item id (or give --external-id).")] = None,
    external_id: Annotated[str | None, typer.Option(help="Find the item by this id.")] = None,
    title: Annotated[str | None, typer.Option()] = None,
    owner: Annotated[str | None, typer.Option()] = None,
    due: Annotated[str | None, typer.Option(help="YYYY-MM-DD; 'none' clears it.")] = None,
    status: Annotated[str | None, typer.Option(help=_STATUS_HELP)] = None,
    ticket: Annotated[str | None, typer.Option(help="Ticket link; 'none' clears it.")] = None,
    verified_by: Annotated[
        str | None,
        typer.Option(
            help="Verified fixed by this after-capture incident (its checklist must rule the"
            " cause out); 'none' clears the mark."
        ),
    ] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Change an action item."""
    from rootline.actions import repository as actions_repository
    from rootline.actions import service as actions_service
    from rootline.actions.models import ActionItem
    from rootline.actions.schemas import ActionItemUpdate

    if (item_id is None) == (external_id is None):
        typer.echo("give an item id or --external-id", err=True)
        raise typer.Exit(code=2)
    fields: dict[str, Any] = {"title": title, "owner": owner, "status": status}
    cleared = []
    for name, value, parse in (
        ("due_date", due, lambda v: _parse_date(v, "--due")),
        ("ticket_url", ticket, lambda v: v),
        ("verified_incident_id", verified_by, lambda v: _parse_incident(v, "--verified-by")),
    ):
        if value is None:
            continue
        if value.lower() == "none":
            cleared.append(name)
        else:
            fields[name] = parse(value)
    data = _validated(ActionItemUpdate, fields)
    data = data.model_copy(update=dict.fromkeys(cleared))
    data.model_fields_set.update(cleared)
    with _database() as session:
        item = (
            session.get(ActionItem, item_id)
            if item_id is not None
            else actions_repository.by_external_id(session, str(external_id))
        )
        if item is None:
            typer.echo(
                f"no action item {item_id if item_id is not None else external_id}", err=True
            )
            raise typer.Exit(code=1)
        updated = actions_service.update(session, item=item, data=data, author="cli")
    _print_items([updated], as_json)


if __name__ == "__main__":
    app()
