"""parse queue: artifacts are claimed by parse workers under a lease

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 10:05:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("artifacts") as batch:
        batch.add_column(sa.Column("claim_token", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("claimed_at_ms", sa.BigInteger(), nullable=True))
        batch.add_column(
            sa.Column("parse_attempts", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_index(
        op.f("ix_artifacts_status_uploaded_at_ms"),
        "artifacts",
        ["status", "uploaded_at_ms"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_artifacts_status_uploaded_at_ms"), table_name="artifacts")
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_column("parse_attempts")
        batch.drop_column("claimed_at_ms")
        batch.drop_column("claim_token")
