"""Artificial selection (issue 15): searches and their trials (each candidate a combination),
and challenges (competitions and the Λ* test as a service) with their entries and every
evaluation the portal ran of them.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "portal_searches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("study", sa.String(200), nullable=False, unique=True),
        sa.Column("sampler", sa.String(20), nullable=False),
        sa.Column("space", sa.JSON, nullable=False),
        sa.Column("start_id", sa.Integer, sa.ForeignKey("portal_combinations.id")),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("portal_users.id"), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "portal_search_trials",
        sa.Column("search_id", sa.Integer, sa.ForeignKey("portal_searches.id"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("combination_id", sa.Integer, sa.ForeignKey("portal_combinations.id"), index=True),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("best_before", sa.Integer, sa.ForeignKey("portal_combinations.id")),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "portal_challenges",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("world_url", sa.String(2000), nullable=False, index=True),
        sa.Column("steps", sa.Integer, nullable=False),
        sa.Column("seeds", sa.JSON, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("deadline", WHEN),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("portal_users.id"), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "portal_entries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("challenge_id", sa.Integer, sa.ForeignKey("portal_challenges.id"), nullable=False, index=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("portal_users.id"), nullable=False),
        sa.Column("combination_id", sa.Integer, sa.ForeignKey("portal_combinations.id")),
        sa.Column("minds", sa.JSON),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("error", sa.Float),
        sa.Column("detail", sa.JSON),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("finished_at", WHEN),
    )
    op.create_table(
        "portal_evaluations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("entry_id", sa.Integer, sa.ForeignKey("portal_entries.id"), nullable=False, index=True),
        sa.Column("seed", sa.Integer),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("run_store_id", sa.Integer),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", WHEN, nullable=False),
    )


def downgrade() -> None:
    for table in ("portal_evaluations", "portal_entries", "portal_challenges", "portal_search_trials",
                  "portal_searches"):
        op.drop_table(table)
