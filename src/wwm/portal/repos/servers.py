"""The servers registered on the portal (table ``servers``): registration with the card they
published, the listings by role, search and World, and what each health check found.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.exc import IntegrityError

from ..models import Combination, CombinationServer, Server, now
from .base import Conflict, Sessions, get_or_404


class Servers:
    """Registered servers."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def add_server(self, url: str, card: dict[str, Any], *, added_by: int | None = None,
                   latency_ms: float | None = None) -> Server:
        """Register the server at ``url`` with the card it published (role and name from it)."""
        at = now()
        server = Server(url=url, role=str(card.get("role", "")), name=str(card.get("name") or url)[:200],
                        summary=str(card.get("summary") or ""), card=card, added_at=at, added_by=added_by,
                        last_checked=at, up=True, latency_ms=latency_ms, last_error=None)
        try:
            with self._session() as s:
                s.add(server)
        except IntegrityError:
            raise Conflict(f"{url} is registered already") from None
        return server

    def server(self, server_id: int) -> Server:
        with self._session() as s:
            return get_or_404(s, Server, server_id, f"there is no server {server_id} on this portal")

    def server_by_url(self, url: str) -> Server | None:
        with self._session() as s:
            return s.scalar(select(Server).where(Server.url == url))

    def servers(self, *, role: str | None = None, search: str | None = None,
                world: str | None = None) -> list[Server]:
        """The servers, by name: of one role, matching a search (name, URL, summary, any
        case), and with ``world`` a World's URL, that World and every server that took part in a
        combination with it."""
        query: Select[Server] = select(Server).order_by(func.lower(Server.name), Server.id)
        if role:
            query = query.where(Server.role == role)
        if search:
            pattern = "%" + search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            query = query.where(or_(*(func.lower(column).like(pattern, escape="\\")
                                      for column in (Server.name, Server.url, Server.summary))))
        if world:
            partners = (select(CombinationServer.url).join(Combination)
                        .where(Combination.world_url == world))
            query = query.where(or_(Server.url == world, Server.url.in_(partners)))
        with self._session() as s:
            return list(s.scalars(query))

    def worlds(self) -> list[Server]:
        return self.servers(role="world")

    def record_check(self, server_id: int, *, up: bool, latency_ms: float | None = None,
                     error: str | None = None, card: dict[str, Any] | None = None) -> None:
        """What a check of the server found; a new card (if it answered) replaces the old."""
        with self._session() as s:
            server = get_or_404(s, Server, server_id, f"there is no server {server_id} on this portal")
            server.last_checked, server.up, server.latency_ms = now(), up, latency_ms
            server.last_error = error
            if card is not None:
                server.card = card
                server.name = str(card.get("name") or server.url)[:200]
                server.summary = str(card.get("summary") or "")
