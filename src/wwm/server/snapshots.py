"""Snapshots of own-copy runs on disk, so a server killed and restarted resumes every run at
the step it had reached (the client keeps its run ID and carries on); and the server's credit
trail (section 7.2), so a restarted server publishes who called it and whom it called before.

One SQLite file (stdlib ``sqlite3``: a key-value table needs no ORM) holding each run's
pickled object, written after every query that may have changed it, and one row per link of
the trail (plain columns, no pickle). Pickle is read only from the server's own file, never
from the network.

The trail is kept here, in the file the operator names with ``--state``, rather than in the
run records of :mod:`wwm.store`: it belongs to one server (whatever its URL), as its runs do,
and that store records what clients ran, in a database of the user running them.
"""

from __future__ import annotations

import logging
import pickle
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .trail import CreditTrail, Link

log = logging.getLogger("wwm.server")


class SnapshotFile:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, "
                        "client_url TEXT, display_token TEXT, saved REAL, object BLOB)")
        if "answers" not in {row[1] for row in self.db.execute("PRAGMA table_info(runs)")}:
            # (a file written before sequence numbers: its runs have kept no answers)
            self.db.execute("ALTER TABLE runs ADD COLUMN answers TEXT")
        self.db.execute("CREATE TABLE IF NOT EXISTS trail (side TEXT, url TEXT, first_seen REAL, "
                        "last_seen REAL, queries INTEGER, PRIMARY KEY (side, url))")
        self.db.execute("CREATE TABLE IF NOT EXISTS trail_unlisted (side TEXT PRIMARY KEY, queries INTEGER)")
        self.trail: CreditTrail | None = None

    def save(self, run_id: str, client_url: str | None, display_token: str, obj: Any,
             answers: str | None = None) -> None:
        """The run's object and its kept answers (:mod:`.once`), in one row: one statement,
        so a server killed at any moment keeps both or neither."""
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.db.execute("INSERT OR REPLACE INTO runs (run_id, client_url, display_token, saved, object, answers) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (run_id, client_url, display_token, time.time(), blob, answers))

    def drop(self, run_id: str) -> None:
        self.db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))

    def load(self) -> list[tuple[str, str | None, str, Any]]:
        """Each run saved: its ID, client URL, display token and object."""
        return [(run_id, client_url, token, obj) for run_id, client_url, token, obj, _ in self.load_runs()]

    def load_runs(self) -> list[tuple[str, str | None, str, Any, str | None]]:
        """:meth:`load`, with each run's kept answers (:mod:`.once`; None for none)."""
        rows = self.db.execute("SELECT run_id, client_url, display_token, object, answers FROM runs").fetchall()
        out = []
        for run_id, client_url, token, blob, answers in rows:
            try:
                out.append((run_id, client_url, token, pickle.loads(blob), answers))
            except Exception as exc:  # a class that changed shape since: drop the run, keep serving
                log.warning("run %s saved in %s cannot be taken back (%s): dropped, its client is told "
                            "the run is unknown", run_id, self.path, exc)
                self.drop(run_id)
        return out

    # ---- the credit trail -----------------------------------------------------------------
    def keep(self, trail: CreditTrail) -> None:
        """Keep ``trail`` in this file: what was kept before a restart is taken back into it
        now, and from now on it writes here (and is flushed when the file is closed)."""
        links = [(side, Link(url, first, last, queries)) for side, url, first, last, queries in
                 self.db.execute("SELECT side, url, first_seen, last_seen, queries FROM trail")]
        unlisted = dict(self.db.execute("SELECT side, queries FROM trail_unlisted").fetchall())
        trail.restore(links, unlisted)
        trail.keeper = self
        self.trail = trail

    def save_links(self, links: Iterable[tuple[str, Link]], unlisted: dict[str, int]) -> None:
        with self.db:  # one transaction
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO trail VALUES (?, ?, ?, ?, ?)",
                                [(side, link.url, link.first_seen, link.last_seen, link.queries)
                                 for side, link in links])
            self.db.executemany("INSERT OR REPLACE INTO trail_unlisted VALUES (?, ?)",
                                [(side, n) for side, n in unlisted.items() if n])

    def close(self) -> None:
        if self.trail is not None:
            self.trail.flush()
            self.trail.keeper = None  # (a query answered after this is kept in memory only)
        self.db.close()
