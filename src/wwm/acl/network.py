"""ACL over the World-Wide-Mind network: agents are Mind servers that also answer the
"Mind_ACL" query ``Send message``; this module is both ends of it.

:class:`AgentMind` is the server side: a Mind subclass whose runs are channels into one
agent per server process (``wwm serve wwm.acl.contractnet:Contractor --arg name=b1``).
:class:`HttpTransport` is the sending side: per receiving server it opens one channel with
"New run" and posts each message as ``Send message`` (JSON or the XML of section 11.2.1).
:func:`serve_agent` puts an in-process agent on a loopback HTTP endpoint of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from ..client.remote import RemoteMind
from ..protocol.context import current_server
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from . import envelope
from .agent import Agent, Undeliverable
from .journal import Journal, restore
from .message import AID, AclError, ACLMessage


class AgentMind(Mind):
    """An ACL agent served as a WWM Mind: send it FIPA messages with ``Send message``.

    Every "New run" is a channel to the same agent (one per server process and name); the
    agent's address is the server's URL, so replies come back the same way. Subclasses give
    the agent its behaviour by overriding :meth:`make_agent`. With ``store`` its
    conversations and commitments are kept in a database and survive a restart
    (:mod:`wwm.acl.journal`).
    """

    title: ClassVar[str] = "ACL agent"
    # not built by ``wwm serve`` at start: building registers the agent for this server
    # process, and at start it would be registered without the server's URL as its address
    build_at_start: ClassVar[bool] = False
    bound: ClassVar[Agent | None] = None          # an in-process agent (see serve_agent)
    _agents: ClassVar[dict[tuple[type, str], Agent]] = {}

    @classmethod
    def query_sets(cls) -> frozenset[str]:
        return super().query_sets() | {envelope.QUERY_SET}

    def __init__(self, name: str = "agent", services: str = "", store: str = "") -> None:
        self.agent = self._agent(name=name, services=services, store=store)

    def _agent(self, store: str = "", **args: Any) -> Agent:
        """The agent of this server process: made on the first run and, with a ``store``
        (a database URL, an SQLite file, or "default": the project's database), restored
        from the conversations journaled there before a restart, and journaled from then on."""
        if self.bound is not None:
            return self.bound
        key = (type(self), str(args.get("name")))
        agent = self._agents.get(key)
        if agent is None:
            trail = current_server.get()
            address = trail.url if trail is not None else None
            agent = self.make_agent(address=address, **args)
            if agent.transport is None:
                agent.transport = HttpTransport(address)
            if store:
                try:
                    restore(agent, Journal(store, agent.name))
                except AclError as exc:
                    raise Refusal("bad-parameters", str(exc)) from None
            self._agents[key] = agent
        return agent

    def make_agent(self, *, address: str | None, name: str, services: str = "", **args: Any) -> Agent:
        """The agent behind this server; override to give it a handler."""
        return Agent(name, address=address, services=_services(services))

    async def receive_message(self, wire_items: dict[str, Any] | None = None, **parameters: Any) -> None:
        """``Send message``: the FIPA parameters the query names arrive as keywords, the
        user-defined ``X-...`` ones in ``wire_items`` under their wire names, case and all."""
        try:
            msg = envelope.from_items({**parameters, **(wire_items or {})})
        except AclError as exc:
            raise Refusal("bad-parameters", f"Send message: {exc}") from None
        if msg.receivers and self.agent.name not in {r.name for r in msg.receivers}:
            raise Refusal("bad-parameters", f"Send message: this server is agent {self.agent.name!r}, "
                          f"not {', '.join(r.name for r in msg.receivers)}")
        await self.agent.deliver(msg)

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion.cannot(f"{self.agent.name} talks ACL: send it messages with 'Send message'")


def _services(text: str) -> tuple[str, ...]:
    return tuple(s for s in (p.strip() for p in text.replace(";", ",").split(",")) if s)


class HttpTransport:
    """Deliver messages to agents' WWM servers: one channel ("New run") per server."""

    def __init__(self, client_url: str | None = None, *, encoding: str = "json", timeout: float = 10.0) -> None:
        self.client_url = client_url
        self.encoding = encoding
        self.timeout = timeout
        self._channels: dict[str, RemoteMind] = {}
        self._opening: dict[str, asyncio.Lock] = {}

    async def _channel(self, url: str, fresh: bool = False) -> RemoteMind:
        lock = self._opening.setdefault(url, asyncio.Lock())
        async with lock:
            remote = self._channels.get(url)
            if remote is None or fresh or remote.run_id is None:
                remote = RemoteMind(url, client_url=self.client_url, encoding=self.encoding, timeout=self.timeout)
                await remote.new_run()
                self._channels[url] = remote
            return remote

    async def deliver(self, message: ACLMessage, to: AID) -> None:
        if to.url is None:
            raise Undeliverable(f"{to.name} has no address to send to")
        try:
            remote = await self._channel(to.url)
            try:
                await remote.transport.exchange(envelope.to_query(message, remote.run_id))
            except Refusal as refusal:
                if refusal.code not in ("unknown-run", "run-ended", "unreachable"):
                    raise
                # the server restarted (its runs, or our pooled connection, are gone): one more
                # try on a new channel; a receiver that did get the first ignores the duplicate
                remote = await self._channel(to.url, fresh=True)
                await remote.transport.exchange(envelope.to_query(message, remote.run_id))
        except Refusal as refusal:
            raise Undeliverable(f"{to.url}: {refusal.code}: {refusal.text}") from None

    async def close(self) -> None:
        for remote in self._channels.values():
            await remote.aclose()
        self._channels.clear()


@contextlib.asynccontextmanager
async def serve_agent(agent: Agent, *, port: int | None = None, encoding: str = "json") -> AsyncIterator[str]:
    """Give an in-process agent an HTTP endpoint on loopback (a real uvicorn server in this
    event loop) for as long as the block runs; yields its URL."""
    import uvicorn

    from ..protocol.ports import free_port
    from ..server import make_app

    port = port or free_port()
    url = f"http://127.0.0.1:{port}/"
    # try the port first, so a busy one is an OSError naming it (uvicorn would call sys.exit,
    # which no task can catch); uvicorn then binds it itself: handing it a socket bound here
    # made sequential conversations 16x slower (benchmarks/acl_network.py; cause not found)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError as exc:
            raise OSError(exc.errno, f"cannot give agent {agent.name!r} an endpoint on 127.0.0.1:{port}: "
                                     f"{exc.strerror}") from None
    endpoint = type(f"{agent.name.title().replace('-', '')}Endpoint", (AgentMind,), {"bound": agent})
    agent.address = url
    if agent.transport is None:
        agent.transport = HttpTransport(url, encoding=encoding)
    config = uvicorn.Config(make_app(endpoint, url=url), host="127.0.0.1", port=port,
                            log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise OSError(f"the endpoint of agent {agent.name!r} did not start")
        await asyncio.sleep(0.01)
    try:
        yield url
    finally:
        server.should_exit = True
        await task
