"""End secrets in one table: ``portal_run_secrets`` (the run service's, keyed by the run
store's run ID) replaces ``portal_runs.end_secret_hash``; ``portal_runs.run_store_id`` is
indexed (the run store's tables are in the same database).

A database where an earlier run service made its own ``wwm_portal_run_secrets`` (with
``create_all``) keeps those secrets: they are copied into the new table and the old one goes.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)
OLD = "wwm_portal_run_secrets"
COLUMNS = "run_id, secret_sha256, owner, created_at, end_requested_at"


def upgrade() -> None:
    op.create_table(
        "portal_run_secrets",
        sa.Column("run_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("secret_sha256", sa.String(64), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("end_requested_at", WHEN),
    )
    if OLD in sa.inspect(op.get_bind()).get_table_names():
        op.execute(f"INSERT INTO portal_run_secrets ({COLUMNS}) SELECT {COLUMNS} FROM {OLD}")
        op.drop_table(OLD)
    with op.batch_alter_table("portal_runs") as batch:
        batch.drop_column("end_secret_hash")
        batch.create_index("ix_portal_runs_run_store_id", ["run_store_id"])


def downgrade() -> None:
    with op.batch_alter_table("portal_runs") as batch:
        batch.drop_index("ix_portal_runs_run_store_id")
        batch.add_column(sa.Column("end_secret_hash", sa.String(64), nullable=False, server_default=""))
    op.drop_table("portal_run_secrets")
