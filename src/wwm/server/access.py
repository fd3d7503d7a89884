"""Who may use a server (section 4.3, item 2: "The robot owner may want to restrict *who* is
able to run a mind on his machine"): the owner's rules, checked on every query before anything
else is done with it, on every binding (HTTP, WebSocket, TCP) and in either encoding.

- **Clients** are told apart by the ``client URL`` every query may carry (the URL the protocol
  itself names its caller by; an Action Selection server sends its own URL to its minds), not
  by the network address, which a proxy or a shared host hides. ``block`` patterns refuse
  the clients they match; with ``allow`` patterns, only the clients they match are served
  (a query naming no client URL is then refused too). Patterns are shell-style globs
  (``http://10.0.0.*``, ``urn:wwm:client:*``), matched against the whole URL; a block wins.
  Refused with ``client-blocked``. A client URL is what the client says it is: this keeps
  honest clients out (a society document pointed at the wrong robot), not attackers; that is
  what the token is for.
- **A token**: a secret the owner shares with the clients it serves, which each query carries
  as its item ``access token`` (in XML and JSON alike, on every binding). A query without it,
  or with another one, is refused with ``authentication-required``; it is compared in
  constant time and never shown (the card says only that one is needed).

The item is taken out of the query before the query is answered: the World or Mind never sees
it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..protocol.context import TOKEN_ITEM as TOKEN_ITEM  # (its home now; kept importable here)
from ..protocol.context import read_token as read_token
from ..protocol.errors import Refusal


@dataclass(frozen=True, slots=True)
class Access:
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    token: bytes | None = None

    @classmethod
    def from_options(cls, allow: list[str] | None = None, block: list[str] | None = None,
                     token_file: str | Path | None = None) -> Access | None:
        """The rules of ``--allow-clients``/``--block-clients`` (each a comma-separated list,
        given once or more) and ``--token-file``; None when there are none. Raises ValueError
        naming what is wrong (a token file that cannot be read, or is empty)."""
        token = read_token(token_file) if token_file is not None else None
        rules = cls(_patterns(allow), _patterns(block), token)
        return rules if rules.allow or rules.block or rules.token is not None else None

    def admit(self, data: dict[str, Any]) -> dict[str, Any]:
        """The query's items without the token, if this query may be answered; else the
        refusal (``client-blocked`` or ``authentication-required``)."""
        client = data.get("client URL")
        client = client.strip() if isinstance(client, str) else ""
        if client and any(fnmatchcase(client, p) for p in self.block):
            raise Refusal("client-blocked", f"this server does not serve the client {client!r}")
        if self.allow and not (client and any(fnmatchcase(client, p) for p in self.allow)):
            raise Refusal("client-blocked", f"this server does not serve the client {client!r}" if client else
                          'this server serves only the clients it lists: say which you are ("client URL")')
        if self.token is None:
            return data
        given = data.get(TOKEN_ITEM)
        if not isinstance(given, str) or not given.strip():
            raise Refusal("authentication-required",
                          f'this server needs its access token: send it as the item "{TOKEN_ITEM}"')
        if not hmac.compare_digest(given.strip().encode(), self.token):
            raise Refusal("authentication-required", f'the "{TOKEN_ITEM}" sent is not this server\'s')
        return {k: v for k, v in data.items() if k != TOKEN_ITEM}

    def describe(self) -> dict[str, Any]:
        """What the card says of these rules: whether a token is needed (never the token) and
        whether clients are restricted."""
        return {"token_required": self.token is not None, "token_item": TOKEN_ITEM,
                "clients_restricted": bool(self.allow or self.block)}


def _patterns(given: list[str] | None) -> tuple[str, ...]:
    return tuple(p.strip() for text in given or () for p in text.split(",") if p.strip())
