"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from rootline import models
from rootline.db import alembic_config, make_engine


def test_single_head(database_url: str) -> None:
    script = ScriptDirectory.from_config(alembic_config(database_url))
    assert len(script.get_heads()) == 1


def test_models_match_migrations(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, models.Base.metadata)
    engine.dispose()
    assert differences == []


def test_downgrade_to_base_and_back(database_url: str) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "base")
    engine = make_engine(database_url)
    with engine.connect() as connection:
        tables = set(engine.dialect.get_table_names(connection))
    assert tables <= {"alembic_version"}
    command.upgrade(config, "head")
    with engine.connect() as connection:
        tables = set(engine.dialect.get_table_names(connection))
    engine.dispose()
    assert {t.name for t in models.Base.metadata.sorted_tables} <= tables
