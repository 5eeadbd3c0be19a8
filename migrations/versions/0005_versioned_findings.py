"""versioned findings: the rules version with every finding, the parser version with every artifact

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 06:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Findings stored before this revision have no version: they count as stale and are
    # recomputed by the parse workers like any other outdated checklist.
    with op.batch_alter_table("findings") as batch:
        batch.add_column(sa.Column("rules_version", sa.String(length=32), nullable=True))
    op.create_index(op.f("ix_findings_rules_version"), "findings", ["rules_version"], unique=False)
    with op.batch_alter_table("artifacts") as batch:
        batch.add_column(sa.Column("parser_version", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_column("parser_version")
    op.drop_index(op.f("ix_findings_rules_version"), table_name="findings")
    with op.batch_alter_table("findings") as batch:
        batch.drop_column("rules_version")
