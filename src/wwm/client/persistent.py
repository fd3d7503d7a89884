"""What the persistent bindings' clients share (TCP frames, WebSocket messages): one connection
per remote object, opened on the first query, carrying queries in order.

Queries are pipelined: each is written as soon as it is asked, and answers are matched to
askers first in, first out (:class:`~.pipeline.Pipeline`), so concurrent callers share the
connection without waiting for each other's round trip, and
:meth:`PersistentTransport.exchange_in_order` sends several queries back to back, in one
round trip. Each answer is allowed the whole time-out from when it is waited for. A caller
that gives up (cancelled) still has its answer read and dropped in turn; a query that times
out closes the connection (what follows it on the wire can no longer be trusted to arrive),
failing the queries behind it with the same refusal.

A binding is a subclass that says how to open its connection (:meth:`PersistentTransport.open`)
and a :class:`Connection` that says how its messages are cut out of the byte stream and framed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import orjson

from ..protocol import jsoncodec
from ..protocol.encoding import Codec, codec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from ..protocol.queries import PROTOCOL_VERSION, Wire
from .pipeline import Pipeline, shortest
from .transport import DEFAULT_TIMEOUT, decode_response, unreachable, usual_document


class Connection(Pipeline[bytes]):
    """One open connection of a persistent binding: messages in, each handed to the oldest
    waiting asker; its framing is the subclass's."""

    def frame(self, payloads: list[bytes]) -> bytes:
        """These messages, framed for the wire, in one string of bytes."""
        raise NotImplementedError

    def frame_one(self, payload: bytes) -> bytes:
        """One message, framed for the wire."""
        return self.frame([payload])

    def close(self) -> None:
        """Let go of the connection; queries still waiting fail."""
        self.fail(ConnectionResetError("the transport was closed"))


class PersistentTransport:
    """One persistent connection to one server, queries answered in order.

    ``url`` is the server's (it names the server in what a caller sees); ``address`` is what
    the connection goes to (``tcp://...``, ``ws://...``), named in refusals about it."""

    pipelines = True  # exchange_in_order costs one round trip
    accepts = "a connection"  # what the server did not do in time when opening fails ("accept ...")
    failures: tuple[type[BaseException], ...] = (OSError,)  # what opening raises when it cannot

    def __init__(self, url: str, address: str, *, encoding: str = "json",
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self.address = address
        self.codec: Codec = codec(encoding)
        self.timeout = timeout
        self._conn: Connection | None = None
        self._connecting: asyncio.Future[Connection] | None = None

    async def open(self, timeout: float | None) -> Connection:
        """A new connection to :attr:`address`, ready for queries (the binding's own)."""
        raise NotImplementedError

    async def exchange(self, query: Query) -> Response:
        conn = self._conn
        if conn is None or conn.closed:
            conn = await self._connection(query, self.timeout)
        payload = self.codec.encode(query)
        waiter = conn.send_one(conn.frame([payload]))
        conn.watch(waiter, self.timeout)
        try:  # (Pipeline.answer written out: one coroutine fewer to go through per query)
            frame = await waiter
        except (TimeoutError, OSError) as exc:  # (a Refusal: an earlier query timed out, raised as is)
            raise self._failure(conn, query.name, exc, self.timeout) from None
        return decode_response(self.url, query, None, frame)

    async def ask(self, name: str, data: dict[str, Wire]) -> dict[str, Wire]:
        """The data of the server's response to the query ``name`` carrying ``data``, its
        refusal raised: :meth:`exchange` without a :class:`Query` or :class:`Response` made,
        for the usual JSON exchange (a run's every step; a µs of CPU here costs about three
        between processes, where code is cold after each wake-up)."""
        conn = self._conn
        if conn is None or conn.closed or self.codec is not jsoncodec:
            return (await self.exchange(Query(name, data))).data
        try:
            payload = orjson.dumps({"wwm": PROTOCOL_VERSION, "query": name, "data": data})
        except TypeError:  # a value JSON cannot hold: refused by the codec, by name
            return (await self.exchange(Query(name, data))).data
        waiter = conn.send_watched(conn.frame_one(payload), self.timeout)
        try:
            frame = await waiter
        except (TimeoutError, OSError) as exc:  # (a Refusal: an earlier query timed out, raised as is)
            raise self._failure(conn, name, exc, self.timeout) from None
        doc = usual_document(name, frame)
        if doc is None:  # a refusal, or anything unusual: read the general way
            return decode_response(self.url, Query(name, data), None, frame).data
        return doc.get("data") or {}

    async def exchange_in_order(self, queries: Sequence[Query], *, within: float | None = None
                                ) -> list[Response | Refusal]:
        """Send ``queries`` back to back and return each one's response or refusal, in order;
        each answer is waited for at most the time-out (``within``, when shorter)."""
        timeout = shortest(self.timeout, within)
        conn = self._conn
        if conn is None or conn.closed:
            try:
                conn = await self._connection(queries[0], timeout)
            except Refusal as refusal:
                return [refusal] * len(queries)
        waiters = conn.send_all(conn.frame([self.codec.encode(q) for q in queries]), len(queries))
        out: list[Response | Refusal] = []
        try:
            for query, waiter in zip(queries, waiters, strict=True):
                try:
                    frame = await conn.answer(waiter, timeout)
                    out.append(decode_response(self.url, query, None, frame))
                except (TimeoutError, OSError) as exc:
                    out.append(self._failure(conn, query.name, exc, timeout))
                except Refusal as refusal:
                    out.append(refusal)
        except BaseException:  # cancelled: the answers still to come are read and dropped
            for waiter in waiters:
                waiter.cancel()
            raise
        return out

    def _failure(self, conn: Connection, name: str, exc: TimeoutError | OSError,
                 timeout: float | None) -> Refusal:
        """The refusal of the query ``name`` whose answer did not come: not within
        ``timeout``, or the connection failed (closed, failing the queries behind it)."""
        if isinstance(exc, TimeoutError):
            return self._timed_out(conn, name, timeout)
        conn.fail(exc)
        return unreachable(self.address, exc)

    def _timed_out(self, conn: Connection, name: str, timeout: float | None) -> Refusal:
        """The refusal of the query ``name``, not answered in time; the connection goes,
        failing the queries behind it with the same refusal."""
        refusal = Refusal("timeout", f"{self.address} did not answer {name!r} within {timeout:g} s")
        conn.fail(refusal)
        return refusal

    async def _connection(self, query: Query, timeout: float | None) -> Connection:
        """The open connection, opened once however many callers ask at the same time."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open(timeout))
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        except TimeoutError:
            raise Refusal("timeout", f"{self.address} did not accept {self.accepts} within {timeout:g} s "
                                     f"(for {query.name!r})") from None
        except self.failures as exc:
            raise unreachable(self.address, exc) from None
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None

    async def _open(self, timeout: float | None) -> Connection:
        async with asyncio.timeout(timeout):
            conn = await self.open(timeout)
        self._conn = conn
        return conn

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._connecting is not None:
            self._connecting.cancel()
            self._connecting = None
