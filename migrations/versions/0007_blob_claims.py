"""blob claims: an upload claims its blob before writing it, so a delete cannot take it

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blob_claims",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("pending", sa.Integer(), nullable=False),
        sa.Column("claimed_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_blob_claims")),
    )


def downgrade() -> None:
    op.drop_table("blob_claims")
