"""The credit trail of section 7.2: the servers this server calls, and the servers and clients
that call it (learnt from the "client URL" every query carries), published at its URL.

One link per distinct URL and side, with when it was first and last seen and how many
queries it carried, so the trail grows with the number of callers, not of calls. A link is
never dropped: the seed wants these lists "published online" for "long after" their authors
"have gone". Only a flood of invented caller URLs is bounded: past ``limit`` links on a side,
a new URL's queries are counted as unlisted instead of pushing out a listed one. Only a URL
(:func:`is_caller_url`: http(s), ws(s), tcp with a host, urn: or mailto:, at most
:data:`~wwm.protocol.limits.CLIENT_URL` characters, no spaces or control characters) is ever
listed: the trail is published, and a ``javascript:`` link or a megabyte of text is not
something to publish for a stranger; the server records a caller only once its query is
answered (a refused query leaves no trace).

A server started with ``--state FILE`` keeps its trail in that file beside its runs' snapshots
(:meth:`wwm.server.snapshots.SnapshotFile.keep`), so a restarted server publishes the same
trail: a new link is written at once (it survives even a crash), counts at most every
``flush_seconds`` and when the server stops.

While a query is being answered, :data:`wwm.protocol.context.current_server` names the server
answering it (re-exported here); the client layer reads it to fill in "client URL" on the
queries that server makes in turn and to record them as callees here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..protocol import limits
from ..protocol.context import current_server as current_server  # (its home now; kept importable here)
from ..protocol.queries import is_absolute_url

CALLS = "calls"          # the servers this one calls
CALLED_BY = "called_by"  # the servers and clients that call it
SIDES = (CALLS, CALLED_BY)


def is_caller_url(url: str) -> bool:
    """Whether ``url`` may name a caller in a published trail (and on New run)."""
    if not url or len(url) > limits.CLIENT_URL or not url.isprintable() or " " in url:
        return False
    if url.startswith(("urn:", "mailto:")):
        return len(url) > 4 + url.startswith("mailto:") * 3
    if url.startswith("tcp://"):  # (a server's TCP binding, as a caller or callee names it)
        return is_absolute_url("http" + url[3:])
    return is_absolute_url(url)


@dataclass(slots=True)
class Link:
    url: str
    first_seen: float
    last_seen: float
    queries: int = 0


class LinkKeeper(Protocol):
    """Where a trail is kept between runs of its server (the ``--state`` file)."""

    def save_links(self, links: Iterable[tuple[str, Link]], unlisted: dict[str, int]) -> None: ...


@dataclass
class CreditTrail:
    url: str
    callers: dict[str, Link] = field(default_factory=dict)
    callees: dict[str, Link] = field(default_factory=dict)
    limit: int = 10_000  # links listed per side; past it a new URL's queries are counted unlisted
    unlisted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIDES, 0))
    keeper: LinkKeeper | None = None
    flush_seconds: float = 2.0
    _pending: dict[tuple[str, str], Link] = field(default_factory=dict, repr=False)
    _flushed: float = field(default_factory=time.monotonic, repr=False)

    def called_by(self, url: str) -> None:
        self._touch(CALLED_BY, self.callers, url)

    def calls(self, url: str) -> None:
        self._touch(CALLS, self.callees, url)

    def side(self, name: str) -> dict[str, Link]:
        return self.callees if name == CALLS else self.callers

    def _touch(self, side: str, links: dict[str, Link], url: str) -> None:
        now = time.time()
        link = links.get(url)
        new = link is None
        if link is None:
            if not is_caller_url(url):
                return
            if len(links) >= self.limit:
                self.unlisted[side] += 1
                self._changed(False)
                return
            link = links[url] = Link(url, now, now)
        link.last_seen = now
        link.queries += 1
        if self.keeper is not None:
            self._pending[(side, url)] = link
            self._changed(new)

    def _changed(self, new_link: bool) -> None:
        """Write what changed: at once for a new link, else at most every ``flush_seconds``."""
        if self.keeper is not None and (new_link or time.monotonic() - self._flushed >= self.flush_seconds):
            self.flush()

    # ---- keeping ---------------------------------------------------------------------------
    def restore(self, links: Iterable[tuple[str, Link]], unlisted: dict[str, int]) -> None:
        """Take back the links kept before a restart (before any query is answered)."""
        for side, link in links:
            if side in SIDES:
                self.side(side)[link.url] = link
        for side in SIDES:
            self.unlisted[side] += unlisted.get(side, 0)

    def flush(self) -> None:
        """Write the links changed since the last flush to the keeper, if any."""
        self._flushed = time.monotonic()
        if self.keeper is None:
            return
        pending, self._pending = self._pending, {}
        self.keeper.save_links([(side, link) for (side, _), link in pending.items()], self.unlisted)

    # ---- publishing ------------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        def side(links: dict[str, Link]) -> list[dict[str, Any]]:
            return [{"url": link.url, "first_seen": link.first_seen, "last_seen": link.last_seen,
                     "queries": link.queries} for link in sorted(links.values(), key=lambda link: link.url)]
        return {"url": self.url, CALLS: side(self.callees), CALLED_BY: side(self.callers),
                "unlisted": dict(self.unlisted)}


