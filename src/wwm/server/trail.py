"""The credit trail of section 7.2: the servers this server calls, and the servers and clients
that call it (learnt from the "client URL" every query carries), published at its URL.

While a query is being answered, :data:`current_server` names the server answering it; the
client layer reads it to fill in "client URL" on the queries that server makes in turn and to
record them as callees here.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Link:
    url: str
    first_seen: float
    last_seen: float
    queries: int = 0


@dataclass
class CreditTrail:
    url: str
    callers: dict[str, Link] = field(default_factory=dict)
    callees: dict[str, Link] = field(default_factory=dict)
    limit: int = 1000  # links kept per side; the least recently seen go first

    def called_by(self, url: str) -> None:
        self._touch(self.callers, url)

    def calls(self, url: str) -> None:
        self._touch(self.callees, url)

    def _touch(self, links: dict[str, Link], url: str) -> None:
        now = time.time()
        link = links.get(url)
        if link is None:
            if len(links) >= self.limit:
                del links[min(links.values(), key=lambda link: link.last_seen).url]
            link = links[url] = Link(url, now, now)
        link.last_seen = now
        link.queries += 1

    def as_dict(self) -> dict[str, Any]:
        def side(links: dict[str, Link]) -> list[dict[str, Any]]:
            return [{"url": link.url, "first_seen": link.first_seen, "last_seen": link.last_seen,
                     "queries": link.queries} for link in sorted(links.values(), key=lambda link: link.url)]
        return {"url": self.url, "calls": side(self.callees), "called_by": side(self.callers)}


current_server: ContextVar[CreditTrail | None] = ContextVar("wwm_current_server", default=None)
