"""The directory (FIPA's yellow pages): agents found by capability, built from the
description cards WWM servers already publish (GET on a server URL returns its JSON card:
its query sets, and the ``name`` and ``services`` arguments it runs with).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..client.remote import _fetch_card
from ..protocol.errors import Refusal
from . import envelope
from .message import AID, AclError


@dataclass(frozen=True, slots=True)
class Listing:
    name: str
    url: str
    services: tuple[str, ...]
    summary: str = ""

    @property
    def aid(self) -> AID:
        return AID(self.name, (self.url,))


def listing_from_card(card: dict[str, Any], url: str | None = None) -> Listing:
    """Read an agent's listing from a server card; refuse a server that does not talk ACL."""
    where = url or card.get("url", "?")
    if card.get("role") != "mind" or envelope.QUERY_SET not in card.get("query_sets", []):
        raise AclError(f"{where} is not an ACL agent (its card lists query sets "
                       f"{card.get('query_sets', [])}, without {envelope.QUERY_SET})")
    props = (card.get("arguments") or {}).get("properties", {})
    defaults = card.get("defaults") or {}

    def arg(name: str, fallback: str) -> str:
        value = defaults.get(name, props.get(name, {}).get("default", fallback))
        return str(value) if value is not None else fallback

    services = tuple(s.strip() for s in arg("services", "").replace(";", ",").split(",") if s.strip())
    return Listing(arg("name", card.get("name", "agent")), card.get("url") or where, services,
                   card.get("summary", ""))


class Directory:
    """Agents registered by URL; found by name or by a service they offer."""

    def __init__(self) -> None:
        self.listings: dict[str, Listing] = {}

    async def register(self, url: str) -> Listing:
        try:
            card = await _fetch_card(url)
        except Refusal as refusal:
            raise AclError(f"cannot register {url}: {refusal.text}") from None
        listing = listing_from_card(card, url)
        self.listings[listing.name] = listing
        return listing

    def add(self, listing: Listing) -> None:
        self.listings[listing.name] = listing

    def remove(self, name: str) -> None:
        self.listings.pop(name, None)

    def find(self, service: str | None = None) -> list[AID]:
        """Agents offering ``service`` (all agents when None), in name order."""
        return [l.aid for l in sorted(self.listings.values(), key=lambda l: l.name)
                if service is None or service in l.services]

    def aid(self, name: str) -> AID:
        try:
            return self.listings[name].aid
        except KeyError:
            raise AclError(f"no agent named {name!r} is registered (known: {', '.join(sorted(self.listings)) or 'none'})") from None
