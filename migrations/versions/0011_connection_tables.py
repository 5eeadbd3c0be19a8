"""connection tables: per-connection series stored by column (issue 16)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 19:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigIntId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target}.id"],
        name=op.f(f"fk_{table}_{column}_{target}"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "conn_tables",
        sa.Column("id", BigIntId, autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("artifact_id", sa.Uuid(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("connection_count", sa.Integer(), nullable=False),
        sa.Column("snapshot_count", sa.Integer(), nullable=False),
        sa.Column("first_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_ms", sa.BigInteger(), nullable=False),
        sa.Column("times", sa.LargeBinary(), nullable=False),
        _fk("conn_tables", "incident_id", "incidents"),
        _fk("conn_tables", "artifact_id", "artifacts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conn_tables")),
    )
    op.create_index("ix_conn_tables_incident_id", "conn_tables", ["incident_id"])
    op.create_index("ix_conn_tables_artifact_id", "conn_tables", ["artifact_id"])
    op.create_table(
        "conn_endpoints",
        sa.Column("table_id", BigIntId, nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("local", sa.String(length=255), nullable=False),
        sa.Column("peer", sa.String(length=255), nullable=False),
        sa.Column("first_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_ms", sa.BigInteger(), nullable=False),
        sa.Column("volume", sa.Float(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        _fk("conn_endpoints", "table_id", "conn_tables"),
        _fk("conn_endpoints", "incident_id", "incidents"),
        sa.PrimaryKeyConstraint("table_id", "idx", name=op.f("pk_conn_endpoints")),
    )
    op.create_index(
        "ix_conn_endpoints_incident_volume", "conn_endpoints", ["incident_id", "volume"]
    )
    op.create_table(
        "conn_fields",
        sa.Column("id", BigIntId, autoincrement=True, nullable=False),
        sa.Column("table_id", BigIntId, nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("unit", sa.String(length=32), nullable=False),
        sa.Column("stats", sa.LargeBinary(), nullable=False),
        _fk("conn_fields", "table_id", "conn_tables"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conn_fields")),
    )
    op.create_index("ix_conn_fields_table_id", "conn_fields", ["table_id"])
    op.create_table(
        "conn_blocks",
        sa.Column("field_id", BigIntId, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("first_snapshot", sa.Integer(), nullable=False),
        sa.Column("snapshot_count", sa.Integer(), nullable=False),
        sa.Column("first_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_ms", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        _fk("conn_blocks", "field_id", "conn_fields"),
        sa.PrimaryKeyConstraint("field_id", "seq", name=op.f("pk_conn_blocks")),
    )


def downgrade() -> None:
    op.drop_table("conn_blocks")
    op.drop_index("ix_conn_fields_table_id", "conn_fields")
    op.drop_table("conn_fields")
    op.drop_index("ix_conn_endpoints_incident_volume", "conn_endpoints")
    op.drop_table("conn_endpoints")
    op.drop_index("ix_conn_tables_artifact_id", "conn_tables")
    op.drop_index("ix_conn_tables_incident_id", "conn_tables")
    op.drop_table("conn_tables")
