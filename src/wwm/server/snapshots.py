"""Snapshots of own-copy runs on disk, so a server killed and restarted resumes every run at
the step it had reached (the client keeps its run ID and carries on).

One SQLite file (stdlib ``sqlite3``: a key-value table needs no ORM) holding each run's
pickled object, written after every query that may have changed it. Pickle is read only
from the server's own file, never from the network.
"""

from __future__ import annotations

import pickle
import sqlite3
import time
from pathlib import Path
from typing import Any


class SnapshotFile:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, "
                        "client_url TEXT, display_token TEXT, saved REAL, object BLOB)")

    def save(self, run_id: str, client_url: str | None, display_token: str, obj: Any) -> None:
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)",
                        (run_id, client_url, display_token, time.time(), blob))

    def drop(self, run_id: str) -> None:
        self.db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))

    def load(self) -> list[tuple[str, str | None, str, Any]]:
        rows = self.db.execute("SELECT run_id, client_url, display_token, object FROM runs").fetchall()
        out = []
        for run_id, client_url, token, blob in rows:
            try:
                out.append((run_id, client_url, token, pickle.loads(blob)))
            except Exception:  # a class that changed shape since: drop the run, keep serving
                self.drop(run_id)
        return out

    def close(self) -> None:
        self.db.close()
