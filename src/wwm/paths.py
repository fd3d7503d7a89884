"""Where wwm keeps what it makes when the user names no place: one folder, ``$XDG_DATA_HOME/wwm``
(``~/.local/share/wwm`` by default), so no command writes into the current folder unasked and a
repository that runs wwm stays clean."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """``$XDG_DATA_HOME/wwm``, by default ``~/.local/share/wwm`` (not made here)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "wwm"


def results(name: str) -> Path:
    """The default folder for one command's results: ``data_home() / name``."""
    return data_home() / name
