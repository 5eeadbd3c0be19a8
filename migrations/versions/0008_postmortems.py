"""postmortems: one per incident, its Markdown sections (each versioned) and their revisions

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "postmortems",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("status_changed_by", sa.String(length=255), nullable=False),
        sa.Column("status_changed_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("published_at_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["incidents.id"],
            name=op.f("fk_postmortems_incident_id_incidents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postmortems")),
        sa.UniqueConstraint("incident_id", name=op.f("uq_postmortems_incident_id")),
    )
    op.create_table(
        "postmortem_sections",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("postmortem_id", BIG_ID, nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["postmortem_id"],
            ["postmortems.id"],
            name=op.f("fk_postmortem_sections_postmortem_id_postmortems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postmortem_sections")),
        sa.UniqueConstraint("postmortem_id", "key", name="uq_postmortem_sections_postmortem_key"),
    )
    op.create_table(
        "postmortem_revisions",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("postmortem_id", BIG_ID, nullable=False),
        sa.Column("section", sa.String(length=32), nullable=False),
        sa.Column("author", sa.String(length=255), nullable=False),
        sa.Column("changed_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("previous_text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["postmortem_id"],
            ["postmortems.id"],
            name=op.f("fk_postmortem_revisions_postmortem_id_postmortems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postmortem_revisions")),
    )
    with op.batch_alter_table("postmortem_revisions") as batch:
        batch.create_index(
            "ix_postmortem_revisions_postmortem_section",
            ["postmortem_id", "section", "id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("postmortem_revisions") as batch:
        batch.drop_index("ix_postmortem_revisions_postmortem_section")
    op.drop_table("postmortem_revisions")
    op.drop_table("postmortem_sections")
    op.drop_table("postmortems")
