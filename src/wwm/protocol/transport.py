"""The binding seam: what every way of carrying queries to a server implements (HTTP, WebSocket,
plain TCP, a program's stdin and stdout), so remote objects, the run loop and an AS server
never ask which one they hold.

A binding answers one query (:meth:`Transport.exchange`) and several in the order sent
(:meth:`Transport.exchange_in_order`), and says whether the latter saves round trips
(:attr:`Transport.pipelines`). A binding that cannot pipeline inherits
:class:`OneAtATime`, which sends them one by one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from .errors import Refusal
from .messages import Query, Response

T = TypeVar("T")


@runtime_checkable
class Transport(Protocol):
    """One server reached over one binding."""

    url: str

    @property
    def pipelines(self) -> bool:
        """Whether :meth:`exchange_in_order` sends its queries in one round trip."""
        ...

    async def exchange(self, query: Query) -> Response:
        """The server's response to ``query``; a :class:`Refusal` when it refuses, cannot be
        reached (``unreachable``) or does not answer in time (``timeout``)."""
        ...

    async def exchange_in_order(self, queries: Sequence[Query], *,
                                within: float | None = None) -> list[Response | Refusal]:
        """The responses to ``queries``, sent back to back and answered in order, each the
        :class:`Response` or the :class:`Refusal` that refused it; each answer is waited for at
        most ``within`` seconds (when shorter than the binding's own time-out)."""
        ...

    async def close(self) -> None:
        """Let go of connections and programs; the transport is not used again."""
        ...


class OneAtATime:
    """For a binding that cannot pipeline: :meth:`exchange_in_order` sends the queries one
    after another, each answer allowed ``within`` seconds."""

    pipelines = False

    async def exchange(self, query: Query) -> Response:  # pragma: no cover - each binding's own
        raise NotImplementedError(f"{type(self).__name__} must define exchange")

    async def exchange_in_order(self, queries: Sequence[Query], *,
                                within: float | None = None) -> list[Response | Refusal]:
        return await one_at_a_time(self.exchange, queries, within)


async def one_at_a_time(exchange: Callable[[Query], Awaitable[Response]], queries: Sequence[Query],
                        within: float | None = None) -> list[Response | Refusal]:
    """``exchange`` each query in turn, each answer allowed ``within`` seconds; each response
    or the refusal that refused it, in order."""
    out: list[Response | Refusal] = []
    for query in queries:
        try:
            async with asyncio.timeout(within):
                out.append(await exchange(query))
        except TimeoutError:
            out.append(Refusal("timeout", f"{query.name!r} was not answered within {within:g} s"))
        except Refusal as refusal:
            out.append(refusal)
    return out


async def settled(call: Awaitable[T]) -> T | Refusal:
    """What ``call`` gives, or the :class:`Refusal` it raised (for answers kept in a list)."""
    try:
        return await call
    except Refusal as refusal:
        return refusal


def settle(call: Callable[..., T], *args: Any) -> T | Refusal:
    """``call(*args)``, or the :class:`Refusal` it raised."""
    try:
        return call(*args)
    except Refusal as refusal:
        return refusal
