"""FastAPI dependencies shared by the routers: the request's session and the artifact store.

Who may call a route is decided in `rootline.auth`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from rootline.db import session_scope
from rootline.settings import Settings
from rootline.storage import ArtifactStore

# Methods that change nothing: they run in a reading transaction and need no CSRF proof.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def get_session(request: Request) -> Iterator[Session]:
    """One transaction per request, committed when the route returns without error.

    Used with ``scope="function"``: the commit comes before the response is sent (a client
    told 201 finds its write), and before the response's background tasks run.
    """
    reads_only = request.method in SAFE_METHODS
    factory = (
        request.app.state.sessionmaker if reads_only else request.app.state.writer_sessionmaker
    )
    yield from session_scope(factory)


def get_writer_session(request: Request) -> Iterator[Session]:
    """A writing transaction even for a GET (e.g. following a one-time sign-in link)."""
    yield from session_scope(request.app.state.writer_sessionmaker)


def get_store(request: Request) -> ArtifactStore:
    store: ArtifactStore = request.app.state.store
    return store


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
WriterSessionDep = Annotated[Session, Depends(get_writer_session, scope="function")]
StoreDep = Annotated[ArtifactStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
