"""action items; share links that carry their view and may be redacted

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "action_items",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("ticket_url", sa.String(length=2000), nullable=True),
        sa.Column("external_id", sa.String(length=200), nullable=True),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("finding_id", sa.String(length=64), nullable=True),
        sa.Column("remedy_index", sa.Integer(), nullable=True),
        sa.Column("remedy", sa.Text(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("verified_incident_id", sa.Uuid(), nullable=True),
        sa.Column("verified_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("verified_by", sa.String(length=255), nullable=True),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["incidents.id"],
            name=op.f("fk_action_items_incident_id_incidents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["verified_incident_id"],
            ["incidents.id"],
            name=op.f("fk_action_items_verified_incident_id_incidents"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_action_items")),
        sa.UniqueConstraint("external_id", name=op.f("uq_action_items_external_id")),
    )
    op.create_index("ix_action_items_incident", "action_items", ["incident_id", "id"])
    op.create_index("ix_action_items_owner_due", "action_items", ["owner", "due_date"])
    with op.batch_alter_table("shares") as batch:
        batch.add_column(sa.Column("view", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("redacted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("pseudonyms", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("shares") as batch:
        batch.drop_column("pseudonyms")
        batch.drop_column("redacted")
        batch.drop_column("view")
    op.drop_index("ix_action_items_owner_due", table_name="action_items")
    op.drop_index("ix_action_items_incident", table_name="action_items")
    op.drop_table("action_items")
