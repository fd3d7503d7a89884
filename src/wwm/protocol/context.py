"""What travels with a query besides its section-9 items, shared by the server that answers it
and the client that sends it: the access-token item (and reading a token file), and which
server is answering now.

:data:`current_server` names the server answering the query in progress (its credit trail,
section 7.2); the client reads it to fill in "client URL" on the queries that server makes in
turn and to record them as callees. The server sets it; a client outside any server sees None.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Protocol

TOKEN_ITEM = "access token"
"""The item a query carries the server's access token in (``wwm serve --token-file``); the
server takes it out before the query is answered."""


def read_token(path: str | Path) -> bytes:
    """The secret in ``path`` (surrounding white space is not part of it)."""
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not text:
        raise ValueError(f"the token file {path} is empty")
    return text.encode()


class ServingTrail(Protocol):
    """The credit trail of the server answering a query (:class:`wwm.server.trail.CreditTrail`):
    its URL, and the record of the servers it calls."""

    @property
    def url(self) -> str: ...

    def calls(self, url: str) -> None:
        """Count a query this server sends to ``url``."""
        ...


current_server: ContextVar[ServingTrail | None] = ContextVar("wwm_current_server", default=None)
