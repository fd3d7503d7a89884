"""The WWM portal of section 12.2.1 (``WWM.COM``): a web application where anyone registers
servers by URL and browses them (by role, by world, with search), composes societies of them,
links to them, runs them and watches the runs live, with an anonymous identity kept in a cookie
or an account.

``store`` keeps users, servers, combinations and portal runs (SQLAlchemy, alembic migrations
applied at start: SQLite by default, PostgreSQL by URL); ``fetching`` fetches the URLs users
give, refusing private addresses in public mode; ``runs`` starts, ends and recovers runs and
``live`` pushes their steps to viewers; ``combinations`` composes, links and lists
combinations (and their Top 10s); ``app`` is the Starlette application and ``command`` the
``wwm portal`` command.
"""
