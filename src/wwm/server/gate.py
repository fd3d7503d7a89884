"""Who may hold a connection open: at most so many connections from one network address, and
none that stays silent. A server on the open internet has a limited number of file
descriptors (1,024 is common); without a limit per address one stranger's silent connections
take them all and every other client's connection is closed unanswered.

Every binding's connections (HTTP, WebSocket, TCP) pass the same :class:`Gate`: each takes
a place for its address when it opens (:meth:`Gate.enter`; refused when its address holds
``per_address`` already) and gives it back when it closes (:meth:`Gate.leave`); a connection
that has not sent its first whole request (an HTTP request head, a TCP frame) within
``silent_seconds`` is closed (:meth:`Gate.watch`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar

from ..protocol import limits

# the network address of the client whose query is being answered (set by each binding):
# whose share a New run without a client URL counts in (wwm.server.runs)
peer: ContextVar[str | None] = ContextVar("peer", default=None)


class Gate:
    def __init__(self, per_address: int = limits.CONNECTIONS_PER_ADDRESS,
                 silent_seconds: float = limits.SILENT_SECONDS) -> None:
        self.per_address = per_address
        self.silent_seconds = silent_seconds
        self.open: dict[str, int] = {}  # connections open, by address (only addresses with some)

    def enter(self, transport: asyncio.BaseTransport) -> str | None:
        """A place for a new connection's address (its key for :meth:`leave`); None when the
        address holds its share of connections already (the caller refuses and closes)."""
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
        count = self.open.get(address, 0)
        if count >= self.per_address:
            return None
        self.open[address] = count + 1
        return address

    def leave(self, address: str | None) -> None:
        if address is None:
            return
        count = self.open.get(address, 0) - 1
        if count > 0:
            self.open[address] = count
        else:
            self.open.pop(address, None)

    def watch(self, close: Callable[[], None]) -> asyncio.TimerHandle:
        """``close`` is called after ``silent_seconds`` unless the handle is cancelled first
        (when the connection's first whole request has arrived)."""
        return asyncio.get_running_loop().call_later(self.silent_seconds, close)

    def refusal(self, address: str | None = None) -> str:
        """The one line a connection refused at the gate is told."""
        return (f"too many connections from this address (at most {self.per_address} at once); "
                "close one and try again")
