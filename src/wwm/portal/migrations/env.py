"""Alembic's entry for the portal's migrations. The portal runs them itself at start
(``wwm.portal.store.migrate``), handing over its connection in ``config.attributes``; a developer
makes a new one with ``alembic -c <a config naming script_location = wwm.portal:migrations>
revision -m "..."`` and writes it by hand against ``wwm.portal.models``."""

from __future__ import annotations

from alembic import context

from wwm.portal.models import Base

VERSION_TABLE = "portal_alembic_version"

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the portal's migrations run from wwm.portal.store.migrate(), which passes "
                       "its database connection")
context.configure(connection=connection, target_metadata=Base.metadata, version_table=VERSION_TABLE,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
