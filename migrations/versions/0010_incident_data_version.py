"""incident data version: a counter bumped by every write that changes what an incident page shows

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("incidents") as batch:
        batch.add_column(
            sa.Column("data_version", sa.BigInteger(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("incidents") as batch:
        batch.drop_column("data_version")
