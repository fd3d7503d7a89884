"""The directory (FIPA's yellow pages): agents found by capability, built from the
description cards WWM servers already publish (GET on a server URL returns its JSON card:
its query sets, and the ``name`` and ``services`` arguments it runs with).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..client.cards import fetch_card
from ..protocol.errors import Refusal
from . import envelope
from .agent import Agent, Handler
from .message import AID, AclError, ACLMessage
from .network import AgentMind


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
            card = await fetch_card(url)
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
        return [listing.aid for listing in sorted(self.listings.values(), key=lambda listing: listing.name)
                if service is None or service in listing.services]

    def aid(self, name: str) -> AID:
        try:
            return self.listings[name].aid
        except KeyError:
            known = ", ".join(sorted(self.listings)) or "none"
            raise AclError(f"no agent named {name!r} is registered (known: {known})") from None


# ---- the directory as an agent on the network (FIPA's DF) ------------------------------------
def aid_set(aids: list[AID]) -> str:
    """A FIPA ``(set (agent-identifier ...) ...)`` expression."""
    from .fipa import dump_aid

    return "(set" + "".join(" " + dump_aid(a) for a in aids) + ")"


def parse_aid_set(text: str) -> list[AID]:
    from .fipa import _Parser

    parser = _Parser(text)
    aids = parser.sequence("set", parser.aid)
    if parser.peek() != "":
        raise parser.fail("unexpected text after the set of agent identifiers")
    return aids


def _directory_handler(directory: Directory) -> Handler:
    async def handle(agent: Agent, msg: ACLMessage) -> None:
        content = (msg.content or "").strip()
        if msg.performative == "request":
            parts = content.strip("()").split()
            if len(parts) != 2 or parts[0] != "register":
                await agent.reply(msg, "refuse", "(expected (register <server URL>))")
                return
            try:
                listing = await directory.register(parts[1])
            except AclError as exc:
                await agent.reply(msg, "refuse", f"({exc})")
                return
            await agent.reply(msg, "inform", f"(registered {listing.name})")
        elif msg.performative == "query-ref":
            parts = content.strip("()").split()
            if not parts or parts[0] != "search" or len(parts) > 2:
                await agent.reply(msg, "refuse", "(expected (search) or (search <service>))")
                return
            await agent.reply(msg, "inform", aid_set(directory.find(parts[1] if len(parts) == 2 else None)))
    return handle


class DirectoryAgent(AgentMind):
    """The directory as an ACL agent: ``request (register URL)`` lists the agent server at
    URL (read from its card); ``query-ref (search SERVICE)`` answers with the agents that
    offer it, as a FIPA set of agent identifiers."""

    title = "ACL directory"

    def __init__(self, name: str = "directory", services: str = "directory") -> None:
        super().__init__(name, services)

    def make_agent(self, *, address: str | None, name: str, services: str = "", **args: Any) -> Agent:
        return Agent(name, address=address, services=(services,), handler=_directory_handler(Directory()))


async def search(agent: Agent, directory: AID, service: str | None = None, timeout: float = 10.0) -> list[AID]:
    """Ask a directory agent for the agents offering ``service``."""
    conv = await agent.request(directory, f"(search{' ' + service if service else ''})",
                               protocol="fipa-query", performative="query-ref", timeout=timeout)
    answers = [m for m in conv.messages if m.performative == "inform" and m.sender and m.sender.name == directory.name]
    if conv.outcomes.get(directory.name) != "success" or not answers:
        raise AclError(f"the directory {directory.name} did not answer the search ({conv.outcomes})")
    return parse_aid_set(answers[-1].content or "")


async def register_with(agent: Agent, directory: AID, url: str, timeout: float = 10.0) -> None:
    """Ask a directory agent to list the agent server at ``url``."""
    conv = await agent.request(directory, f"(register {url})", timeout=timeout)
    if conv.outcomes.get(directory.name) != "success":
        refusal = next((m.content for m in conv.messages if m.performative == "refuse"), None)
        raise AclError(f"the directory did not register {url}: {refusal or conv.outcomes}")
