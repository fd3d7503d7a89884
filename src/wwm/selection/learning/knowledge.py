"""What a learning mind has learnt, stored per client (section 7.3): "the Mind server learns
relative to a particular client only", so a buggy or malicious client changes only its own
copy, and another client gets it only by asking ("give me the Mind you learnt with client c").

One JSON file per (mind identity, client URL) under the server operator's directory
(``$WWM_KNOWLEDGE_DIR``, by default ``$XDG_DATA_HOME/wwm/knowledge``, that is
``~/.local/share/wwm/knowledge``); the directory is never a run argument, so no client can make
the server read or write elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ...protocol.errors import Refusal

ANONYMOUS = "urn:wwm:anonymous-client"


def check_client_url(url: str, what: str = "other client URL") -> str:
    """A client URL as given, or a refusal (9.2.1: "other client URL not valid")."""
    text = url.strip()
    if "://" not in text and not text.startswith("urn:"):
        raise Refusal("client-url-invalid", f"the {what} {text[:60]!r} is not a URL (http://... or urn:...)")
    return text


def default_root() -> Path:
    configured = os.environ.get("WWM_KNOWLEDGE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "wwm" / "knowledge"


class KnowledgeStore:
    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def path(self, identity: str, client: str | None) -> Path:
        key = hashlib.sha256(f"{identity}\0{client or ANONYMOUS}".encode()).hexdigest()[:40]
        return self.root / f"{key}.json"

    def exists(self, identity: str, client: str | None) -> bool:
        return self.path(identity, client).is_file()

    def load(self, identity: str, client: str | None) -> dict[str, Any] | None:
        path = self.path(identity, client)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # a damaged file reads as "nothing saved"
        return data.get("knowledge") if isinstance(data, dict) else None

    def recall(self, identity: str, client: str | None, other_client: str | None = None,
               detail: str = "") -> dict[str, Any] | None:
        """What a mind starting a run knows (7.3): what it learnt with ``other_client`` when one
        is named ("the mind you learnt with client c", which must exist), else what it learnt
        with this ``client`` (None for a client it has never met)."""
        if not other_client:
            return self.load(identity, client)
        other = check_client_url(other_client)
        data = self.load(identity, other)
        if data is None:
            raise Refusal("other-client-unknown", f"this mind has learnt nothing with client {other!r}{detail}")
        return data

    def save(self, identity: str, client: str | None, knowledge: dict[str, Any]) -> Path:
        path = self.path(identity, client)
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"identity": identity, "client": client or ANONYMOUS, "knowledge": knowledge}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(doc, out, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path
