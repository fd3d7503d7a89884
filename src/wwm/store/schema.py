"""The tables of the run store (SQLAlchemy Core): ``wwm_runs`` (one row per run),
``wwm_steps`` (one row per client step), ``wwm_events`` (time-outs, retries, outages) and
``wwm_meta`` (the schema version). Prefixed names let them share a PostgreSQL database.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

VERSION = 1  # of the tables below; a database made by a newer wwm is refused, not misread

metadata = MetaData()

meta = Table(
    "wwm_meta", metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

runs = Table(
    "wwm_runs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False, default=""),
    Column("status", String(40), nullable=False),          # "running" until finish_run
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("heartbeat_at", DateTime(timezone=True), nullable=False),
    Column("mind_url", Text, nullable=False),
    Column("world_url", Text, nullable=False),
    Column("society", JSON, nullable=False),
    Column("settings", JSON, nullable=False),
    Column("steps", Integer),                              # set by finish_run
    Column("total_score", Float),                          # set by finish_run
    Column("world_score", Float),
    Column("mind_score", Float),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    # What a client needs to re-attach to the servers' runs and carry the run on (the run IDs
    # the World and the Mind gave, their URLs and bindings, the steps asked): set by a client
    # that can resume (the portal), None otherwise. Added after version 1's first tables: a
    # database without it gets it when opened (ADD COLUMN), and an older wwm ignores it.
    Column("resume", JSON),
)

steps = Table(
    "wwm_steps", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("wwm_runs.id", ondelete="CASCADE"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("state", Text, nullable=False),
    Column("action", Text),                                # None: "Cannot suggest action"
    Column("new_state", Text, nullable=False),
    Column("score", Float),
    Column("mind_q", Float),
    Column("seconds_get_state", Float, nullable=False),
    Column("seconds_get_action", Float, nullable=False),
    Column("seconds_execute", Float, nullable=False),
    Column("seconds_inform", Float, nullable=False),
    Column("note", Text),
    Index("wwm_steps_run_step", "run_id", "step"),
)

events = Table(
    "wwm_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("wwm_runs.id", ondelete="CASCADE"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("kind", String(60), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("wwm_events_run", "run_id", "id"),
)
