"""Engine, sessions, the declarative base and migrations, for SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
import json.encoder as json_encoder
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any, cast

import orjson
from sqlalchemy import (
    JSON,
    BigInteger,
    Integer,
    MetaData,
    Table,
    create_engine,
    event,
    insert,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# BIGINT primary keys do not alias SQLite's rowid, so they would not autoincrement there.
BigIntId = BigInteger().with_variant(Integer(), "sqlite")

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own transaction handling breaks SAVEPOINT; let SQLAlchemy emit BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # Only a new, empty database takes it (before WAL and the first table): point chunks are
    # 128 KiB blobs, written a quarter as many pages at a time as with the default 4 KiB
    # (half the system CPU time of a capture's write and of the checkpoint after it).
    cursor.execute("PRAGMA page_size=16384")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


# Execution option asking SQLite to take the write lock at BEGIN (see `write_session`).
SQLITE_BEGIN_MODE = "sqlite_begin_mode"


def _sqlite_begin(connection: Any) -> None:
    mode = connection.get_execution_options().get(SQLITE_BEGIN_MODE, "")
    connection.exec_driver_sql(f"BEGIN {mode}".strip())


def writer_engine(engine: Engine) -> Engine:
    """The same engine (and pool), for transactions that will write.

    A deferred SQLite transaction that reads first and writes later fails at once with
    "database is locked" when another writer committed in between (its snapshot is stale,
    so waiting cannot help). Taking the write lock at BEGIN makes a second writer wait its
    turn instead (busy_timeout). Other databases ignore the option.
    """
    return engine.execution_options(**{SQLITE_BEGIN_MODE: "IMMEDIATE"})


def make_engine(
    url: str, *, pool_size: int = 8, max_overflow: int = 4, pool_timeout_s: float = 60
) -> Engine:
    """An engine with the per-dialect settings Rootline relies on.

    Every worker process holds its own pool: on PostgreSQL, workers x (pool_size +
    max_overflow) must stay under the server's max_connections (100 by default). A request
    that finds the pool empty waits for a connection (up to ``pool_timeout_s``) instead of
    failing. A request never holds one connection of a pool while it waits for another of
    the same pool: enough requests doing so at once hold every connection and wait for
    each other until the timeout.
    """
    pooling = {"pool_size": pool_size, "max_overflow": max_overflow, "pool_timeout": pool_timeout_s}
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        in_memory = not path or path == ":memory:"
        if not in_memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False}, **({} if in_memory else pooling)
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_pre_ping=True, **pooling)


# The rate limiter's own pool: a worker's connections are db_pool_size + db_max_overflow + 3.
LIMITER_POOL_SIZE, LIMITER_MAX_OVERFLOW = 1, 2


def make_limiter_engine(url: str) -> Engine:
    """A small pool of its own, for the rate limiter's counts (use it with `writer_engine`).

    A request that only reads may have to count a failure (an unknown share token) while it
    holds a connection of the main pool; it takes one of these for one short transaction,
    and nothing holding one of these waits for any other connection, so the two pools can
    never wait on each other. Its timeout is short: a count that cannot be written within
    it is a 503 like any busy database.
    """
    return make_engine(
        url, pool_size=LIMITER_POOL_SIZE, max_overflow=LIMITER_MAX_OVERFLOW, pool_timeout_s=10
    )


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction: committed when the block ends, rolled back on error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def on_commit(session: Session, action: Callable[[], None]) -> None:
    """Run ``action`` once the session's transaction has committed (e.g. deleting files)."""
    event.listen(session, "after_commit", lambda _session: action(), once=True)


@dataclass(frozen=True, slots=True)
class ScratchDatabase:
    """A PostgreSQL database made for one test run or benchmark; ``drop()`` removes it."""

    url: str
    drop: Callable[[], None]


def create_scratch_database(admin_url: str, prefix: str) -> ScratchDatabase | None:
    """A new, empty database on the server of ``admin_url``; None when that server is unreachable."""
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:  # any failure to connect means the server is absent
        admin.dispose()
        return None
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
                {"n": name},
            )
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()

    return ScratchDatabase(admin_url.rsplit("/", 1)[0] + f"/{name}", drop)


def bulk_insert(session: Session, model: type[Base], rows: list[dict[str, Any]]) -> None:
    """Insert many rows of one shape: COPY on PostgreSQL (several times faster than batched
    INSERTs for hundreds of thousands of events), executemany elsewhere.

    Runs on the session's connection, so it belongs to the session's transaction.
    """
    if not rows:
        return
    table = cast(Table, model.__table__)
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        _executemany(connection, table, rows)
        return
    columns = list(rows[0])
    defaults = _python_defaults(table, columns)
    if defaults is None:
        raise ValueError(f"{table.name}: a column left out has a default COPY cannot fill")
    json_columns = {c.name for c in table.columns if isinstance(c.type, JSON)}
    everything = columns + list(defaults)
    binary_types = _binary_copy_types(table, everything, connection)
    if binary_types is not None:
        _copy_binary(connection, table, everything, binary_types, rows, defaults)
        return
    dumps = [(i, _empty_once(json.dumps)) for i, c in enumerate(everything) if c in json_columns]
    pick = itemgetter(*columns)
    makers = list(defaults.values())
    statement = f'COPY "{table.name}" ({", ".join(everything)}) FROM STDIN'
    driver = connection.connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
        for row in rows:
            values = list(pick(row)) if len(columns) > 1 else [row[columns[0]]]
            for make in makers:
                values.append(make())
            for i, dump in dumps:
                values[i] = dump(values[i])
            copy.write_row(values)


# Column types COPY writes in PostgreSQL's binary format (the rows' Python values as they
# are), by the name SQLAlchemy gives them on PostgreSQL.
_BINARY_COPY_TYPES = {
    "BIGINT": "int8",
    "INTEGER": "int4",
    "SMALLINT": "int2",
    "BYTEA": "bytea",
    "DOUBLE PRECISION": "float8",
    "FLOAT": "float8",
}


def _binary_copy_types(
    table: Table, columns: list[str], connection: Connection
) -> list[str] | None:
    """The binary COPY types of ``columns`` when the table stores bytes and every one of
    them is a plain number or bytes; None otherwise (text COPY). In text COPY every byte of
    a ``bytea`` goes as two hex digits: for a capture's point chunks (150 MB) the escaping
    and the doubled bytes cost more CPU than the rest of the write."""
    found = []
    has_bytes = False
    for name in columns:
        kind = _BINARY_COPY_TYPES.get(str(table.c[name].type.compile(dialect=connection.dialect)))
        if kind is None:
            return None
        has_bytes = has_bytes or kind == "bytea"
        found.append(kind)
    return found if has_bytes else None


def _copy_binary(
    connection: Connection,
    table: Table,
    columns: list[str],
    types: list[str],
    rows: list[dict[str, Any]],
    defaults: dict[str, Callable[[], Any]],
) -> None:
    given = [name for name in columns if name not in defaults]
    pick = itemgetter(*given)
    makers = list(defaults.values())
    statement = f'COPY "{table.name}" ({", ".join(columns)}) FROM STDIN (FORMAT BINARY)'
    driver = connection.connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
        copy.set_types(types)
        for row in rows:
            values = list(pick(row)) if len(given) > 1 else [row[given[0]]]
            for make in makers:
                values.append(make())
            copy.write_row(values)


def _python_defaults(table: Table, given: list[str]) -> dict[str, Callable[[], Any]] | None:
    """The Python-side defaults (``default=dict``, ``default=""``) of the columns ``given``
    leaves out, as makers of a value; None if one of them has another kind of default."""
    found: dict[str, Callable[[], Any]] = {}
    for column in table.columns:
        default = column.default
        if column.key in given or default is None:
            continue
        if default.is_callable:
            found[column.key] = partial(default.arg, None)  # type: ignore[attr-defined]
        elif default.is_scalar:
            found[column.key] = partial(_same, default.arg)  # type: ignore[attr-defined]
        else:
            return None
    return found


def _executemany(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """One INSERT compiled once, its parameters bound once per batch: each column's bind
    processor (UUID to text, JSON to a string ...) looked up once, not per row and value as
    ``session.execute(insert(table), rows)`` does (which costs more than SQLite's own work)."""
    dialect = connection.dialect
    columns = list(rows[0])
    compiled = insert(table).compile(dialect=dialect, column_keys=columns)
    if not compiled.positional or compiled.positiontup is None:
        connection.execute(insert(table), rows)
        return
    order = list(compiled.positiontup)
    # Columns with a Python-side default the rows do not give (compile() adds them).
    defaults = _python_defaults(table, columns)
    if defaults is None or not set(order) <= set(columns) | set(defaults):
        connection.execute(insert(table), rows)
        return
    processors: list[tuple[int, Callable[[Any], Any]]] = []
    for i, name in enumerate(order):
        bind = table.c[name].type._cached_bind_processor(dialect)
        if bind is not None:
            processors.append(
                (i, _empty_once(bind) if isinstance(table.c[name].type, JSON) else bind)
            )
    given = [name for name in order if name not in defaults]
    pick = itemgetter(*given)
    width = len(order)
    positions = [order.index(name) for name in given]
    filled = [(order.index(name), make) for name, make in defaults.items() if name in order]
    in_order = not filled and positions == list(range(width))
    last_in: list[object] = [object()] * width
    last_out: list[Any] = [None] * width
    parameters = []
    for row in rows:
        picked = pick(row) if len(given) > 1 else (pick(row),)
        if in_order:
            values = list(picked)
        else:
            values = [None] * width
            for i, value in zip(positions, picked, strict=True):
                values[i] = value
            for i, make in filled:
                values[i] = make()
        for i, processor in processors:
            # A value that is the previous row's (the artifact's and incident's ids) is
            # processed once.
            value = values[i]
            if value is last_in[i]:
                values[i] = last_out[i]
            else:
                last_in[i] = value
                values[i] = last_out[i] = processor(value)
        parameters.append(tuple(values))
    connection.exec_driver_sql(compiled.string, parameters)


def json_bytes_maker() -> Callable[[Any], bytes]:
    """JSON of a value, for many values, as bytes :func:`read_json_bytes` reads back as the
    value ``json.loads(json.dumps(value))`` gives: ``b"o"`` and orjson's text (compact,
    several times faster) wherever the two mean the same, ``b"j"`` and ``json.dumps``'s text
    otherwise. An enum or a UUID, which ``json.dumps`` refuses, is written as its value."""
    plain = _plain_json_dumps_maker()
    orjson_dumps = orjson.dumps
    options = _ORJSON_AS_JSON_DUMPS

    def dumps(value: Any) -> bytes:
        try:
            text = orjson_dumps(value, option=options)
        except TypeError:  # orjson.JSONEncodeError: what json.dumps reads its own way, or raises
            return b"j" + plain(value).encode()
        # orjson writes NaN and the infinities as null (json.dumps: NaN, Infinity): any null
        # sends the value to json.dumps.
        if b"null" in text:
            return b"j" + plain(value).encode()
        return b"o" + text

    return dumps


# Values json.dumps does not take (dataclasses, datetimes) or takes its own way (subclasses of
# int or str) go to orjson's default, which is none: they raise and json.dumps has them.
_ORJSON_AS_JSON_DUMPS = (
    orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def read_json_bytes(data: bytes) -> Any:
    """The value :func:`json_bytes_maker`'s bytes hold: orjson reads what orjson wrote (no
    NaN, no integer past 64 bits: it would read one as a float), ``json`` the rest."""
    if data[:1] == b"o":
        return orjson.loads(memoryview(data)[1:])
    return json.loads(data[1:])


def _plain_json_dumps_maker() -> Callable[[Any], str]:
    """``json.dumps`` with its default arguments, the same text, for many values: its C
    encoder is made once, not once per value as ``json.dumps`` does (a third of its cost on
    the small dicts of events)."""
    make_encoder = getattr(json_encoder, "c_make_encoder", None)  # None without _json
    if make_encoder is None:
        return json.dumps
    markers: dict[int, Any] = {}
    encode = make_encoder(
        markers,
        json.JSONEncoder().default,
        json_encoder.encode_basestring_ascii,
        None,
        ": ",
        ", ",
        False,
        False,
        True,
    )
    encode_str = json_encoder.encode_basestring_ascii

    def dumps(value: Any) -> str:
        if isinstance(value, str):
            return encode_str(value)  # as JSONEncoder.encode does
        try:
            return "".join(encode(value, 0))
        except BaseException:
            markers.clear()  # what a failed value left marked as being encoded
            raise

    return dumps


def _same(value: Any) -> Any:
    return value


def _empty_once(processor: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A JSON column's processor serialising ``{}`` (most rows' labels) once, not per row."""
    empty = processor({})

    def process(value: Any) -> Any:
        return empty if value == {} else processor(value)

    return process


def alembic_config(url: str) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


# Held while migrating on PostgreSQL, so that replicas starting together migrate one at a time.
MIGRATION_LOCK_KEY = 0x726F6F746C696E65  # "rootline"


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest migration, in one transaction.

    On PostgreSQL that transaction first takes an advisory lock, so processes that start at
    the same moment take turns: the first migrates, the others then find the database at
    head. The lock ends with the transaction (commit, rollback or a lost connection), so it
    needs no unlocking. (``rootline serve`` migrates once, before it starts its workers.)
    """
    from alembic import command

    config = alembic_config(url)
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
            config.attributes["connection"] = connection  # migrations/env.py runs on it
            command.upgrade(config, "head")
    finally:
        engine.dispose()
