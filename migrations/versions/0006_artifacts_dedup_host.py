"""artifacts: the same bytes from another host are another artifact (dedup per host)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("artifacts") as batch:
        batch.add_column(
            sa.Column("dedup_host", sa.String(length=255), nullable=False, server_default="")
        )
    # Rows so far were unique per (incident, sha256), so any host makes them unique still.
    op.execute("UPDATE artifacts SET dedup_host = host WHERE host IS NOT NULL")
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_constraint("uq_artifacts_incident_sha256", type_="unique")
        batch.create_unique_constraint(
            "uq_artifacts_incident_sha256_dedup_host", ["incident_id", "sha256", "dedup_host"]
        )


def downgrade() -> None:
    # Keeps, for each (incident, bytes), the artifact uploaded first; the others (the same
    # bytes from other hosts) go with their data, as before this revision they could not exist.
    op.execute(
        "DELETE FROM artifacts WHERE EXISTS (SELECT 1 FROM artifacts AS earlier"
        " WHERE earlier.incident_id = artifacts.incident_id AND earlier.sha256 = artifacts.sha256"
        " AND (earlier.uploaded_at_ms < artifacts.uploaded_at_ms"
        " OR (earlier.uploaded_at_ms = artifacts.uploaded_at_ms AND earlier.id < artifacts.id)))"
    )
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_constraint("uq_artifacts_incident_sha256_dedup_host", type_="unique")
        batch.create_unique_constraint("uq_artifacts_incident_sha256", ["incident_id", "sha256"])
        batch.drop_column("dedup_host")
