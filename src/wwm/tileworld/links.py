"""How a robot reaches its agent program: in process, or through the T-World proxy.

A link sends percept lines and receives action lines. :class:`BuiltinLink` runs a built-in
agent in process; :class:`ProxyLink` is the robot's WebSocket to the proxy, paired with an
agent program (any language) that sent ``CONNECT:<magic>`` over TCP.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from .agents import Agent
from .proxy import CONNECTED, DISCONNECTED


class LinkClosed(ConnectionError):
    """The agent program on the other side of a link has gone."""


class Link(Protocol):
    name: str

    async def open(self) -> None: ...

    async def send(self, line: str) -> None: ...

    async def receive(self, timeout: float) -> str | None:
        """One action line, or None when none came within ``timeout`` seconds."""

    async def close(self) -> None: ...


class BuiltinLink:
    """A built-in Python agent answering each full percept at once."""

    def __init__(self, agent: Agent, name: str = "builtin") -> None:
        self.agent, self.name = agent, name
        self.pending: deque[str] = deque()
        self.inbox: list[str] = []

    async def open(self) -> None:
        return None

    async def send(self, line: str) -> None:
        message = json.loads(line)
        if message["header"] in ("start", "percept", "ready_for_next_action") and isinstance(message["data"], dict):
            self.pending.append(self.agent.act(message["data"]))
        elif message["header"] == "message":
            self.inbox.append(message["data"])

    async def receive(self, timeout: float) -> str | None:
        if self.pending:
            return self.pending.popleft()
        await asyncio.sleep(min(timeout, 0.01))
        return None

    async def close(self) -> None:
        return None


class ProxyLink:
    """The robot's side of a proxy pair: a WebSocket to the proxy sending ``CONNECT:magic``."""

    def __init__(self, proxy_url: str, magic: str) -> None:
        self.proxy_url, self.magic = proxy_url, magic
        self.name = f"proxy:{magic}"
        self.ws: ClientConnection | None = None
        self.lines: deque[str] = deque()

    async def open(self, timeout: float = 60.0) -> None:
        """Connect and wait until an agent with the same magic string has connected."""
        try:
            self.ws = await connect(self.proxy_url, open_timeout=10)
        except (OSError, WebSocketException) as exc:
            raise LinkClosed(f"cannot reach the proxy at {self.proxy_url}: {exc}") from None
        await self.ws.send(f"CONNECT:{self.magic}")
        try:
            reply = await asyncio.wait_for(self.ws.recv(), timeout)
        except TimeoutError:
            raise LinkClosed(f"no agent connected with magic string {self.magic!r} within {timeout:.0f} s") from None
        except WebSocketException:
            raise LinkClosed(f"the proxy closed the link for {self.magic!r}") from None
        if reply != CONNECTED:
            raise LinkClosed(f"the proxy answered {str(reply)[:80]!r} to CONNECT:{self.magic}")

    async def send(self, line: str) -> None:
        assert self.ws is not None
        try:
            await self.ws.send(line)
        except WebSocketException:
            raise LinkClosed(f"agent {self.magic!r} has gone") from None

    async def receive(self, timeout: float) -> str | None:
        assert self.ws is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.lines:
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                frame = await asyncio.wait_for(self.ws.recv(), left)
            except TimeoutError:
                return None
            except WebSocketException:
                raise LinkClosed(f"agent {self.magic!r} has gone") from None
            text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
            if text == DISCONNECTED:
                raise LinkClosed(f"agent {self.magic!r} disconnected")
            # our proxy relays one line per frame; T-World's own relayed each of the agent's
            # sends as one frame, which may hold several lines: split them
            self.lines.extend(part.strip() for part in text.split("\n") if part.strip())
        return self.lines.popleft()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
