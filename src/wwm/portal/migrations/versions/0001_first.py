"""The portal's first schema: settings, users, servers, combinations (and the servers each
names), portal runs.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "portal_settings",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "portal_users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("recovery_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("username", sa.String(40), unique=True),
        sa.Column("password_hash", sa.Text),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "portal_servers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("url", sa.String(2000), nullable=False, unique=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("card", sa.JSON, nullable=False),
        sa.Column("added_at", WHEN, nullable=False),
        sa.Column("added_by", sa.Integer, sa.ForeignKey("portal_users.id")),
        sa.Column("last_checked", WHEN),
        sa.Column("up", sa.Boolean),
        sa.Column("latency_ms", sa.Float),
        sa.Column("last_error", sa.Text),
    )
    op.create_index("ix_portal_servers_role", "portal_servers", ["role"])
    op.create_table(
        "portal_combinations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("portal_users.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("explanation", sa.Text, nullable=False),
        sa.Column("document", sa.JSON, nullable=False),
        sa.Column("world_url", sa.String(2000), nullable=False),
        sa.Column("derived_from", sa.Integer, sa.ForeignKey("portal_combinations.id")),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_portal_combinations_author_id", "portal_combinations", ["author_id"])
    op.create_index("ix_portal_combinations_world_url", "portal_combinations", ["world_url"])
    op.create_table(
        "portal_combination_servers",
        sa.Column("combination_id", sa.Integer, sa.ForeignKey("portal_combinations.id"), primary_key=True),
        sa.Column("url", sa.String(2000), primary_key=True),
    )
    op.create_index("ix_portal_combination_servers_url", "portal_combination_servers", ["url"])
    op.create_table(
        "portal_runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("combination_id", sa.Integer, sa.ForeignKey("portal_combinations.id"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("portal_users.id"), nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("steps_asked", sa.Integer),
        sa.Column("run_store_id", sa.Integer),
        sa.Column("end_secret_hash", sa.String(64), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("ended_at", WHEN),
    )
    op.create_index("ix_portal_runs_combination_id", "portal_runs", ["combination_id"])
    op.create_index("ix_portal_runs_user_id", "portal_runs", ["user_id"])


def downgrade() -> None:
    for table in ("portal_runs", "portal_combination_servers", "portal_combinations", "portal_servers",
                  "portal_users", "portal_settings"):
        op.drop_table(table)
