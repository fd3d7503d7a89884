"""Failed sign-ins, counted per username and per client address in the database, so every
process of a portal sees the same counts (``portal_signin_failures``).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "portal_signin_failures",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failure", sa.Float, nullable=False, index=True),
        sa.Column("refused_until", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("portal_signin_failures")
