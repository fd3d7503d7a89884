"""The client side of the TCP binding (:mod:`wwm.server.tcp`): one persistent connection,
length-prefixed frames, answered in order.

Queries are pipelined: each is written as soon as it is asked, and answers are matched to
askers first in, first out, so concurrent callers share the connection without waiting for
each other's round trip, and :meth:`TcpTransport.exchange_in_order` sends several queries
back to back. A caller that gives up (cancelled) still has its answer read and dropped in
turn; a query that times out closes the connection (what follows it on the wire can no
longer be trusted to arrive), failing the queries behind it with the same refusal.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Sequence
from urllib.parse import urlsplit

from ..protocol import jsoncodec, xmlcodec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from .pipeline import Pipeline, expire, shortest
from .transport import decode_response, unreachable

HEADER = struct.Struct(">I")


class _Framed(Pipeline[bytes]):
    """One connection: frames in, each handed to the oldest waiting asker."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4 and not self.closed:
            (length,) = HEADER.unpack_from(buffer)
            if len(buffer) < 4 + length:
                return
            frame = bytes(buffer[4:4 + length])
            del buffer[:4 + length]
            self.deliver(frame)

    def send(self, payload: bytes) -> asyncio.Future[bytes]:
        return self.send_one(HEADER.pack(len(payload)) + payload)

    def send_frames(self, payloads: list[bytes]) -> list[asyncio.Future[bytes]]:
        """Write these frames in one write; a future for each one's answer."""
        return self.send_all(b"".join(HEADER.pack(len(p)) + p for p in payloads), len(payloads))


class TcpTransport:
    """``tcp://host:port`` (the ``tcp`` URL a server's card announces)."""

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = 60.0,
                 server_url: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "tcp" or not parts.port:
            raise ValueError(f"a TCP binding URL looks like tcp://host:port, not {url!r}")
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port
        self.url = server_url or url
        self.codec = jsoncodec if encoding == "json" else xmlcodec
        self.timeout = timeout
        self._conn: _Framed | None = None
        self._connecting: asyncio.Future[_Framed] | None = None

    async def exchange(self, query: Query) -> Response:
        conn = self._conn
        if conn is None or conn.closed:
            conn = await self._connection(query)
        waiter = conn.send(self.codec.encode(query))
        timeout = self.timeout
        timer = None if timeout is None else conn.loop.call_later(timeout, expire, waiter)
        try:  # (the body of _answer, written out: one coroutine fewer to go through per query)
            frame = await waiter
        except TimeoutError:
            raise self._timed_out(conn, query, timeout) from None
        except Refusal:
            raise  # an earlier query on this connection timed out
        except OSError as exc:
            conn.fail(exc)
            raise unreachable(self.url, exc) from None
        finally:
            if timer is not None:
                timer.cancel()
        return decode_response(self.url, query, None, frame)

    pipelines = True  # exchange_in_order costs one round trip

    async def exchange_in_order(self, queries: Sequence[Query], *, within: float | None = None
                                ) -> list[Response | Refusal]:
        """Send ``queries`` back to back and return each one's response or refusal, in order;
        the server answers them in the order sent, one round trip for them all. ``within``
        shortens the time-out for these answers."""
        conn = self._conn
        if conn is None or conn.closed:
            conn = await self._connection(queries[0])
        waiters = conn.send_frames([self.codec.encode(q) for q in queries])
        out: list[Response | Refusal] = []
        try:
            for query, waiter in zip(queries, waiters, strict=True):
                try:
                    frame = await self._answer(conn, waiter, query, shortest(self.timeout, within))
                    out.append(decode_response(self.url, query, None, frame))
                except Refusal as refusal:
                    out.append(refusal)
        except BaseException:  # cancelled: the answers still to come are read and dropped
            for waiter in waiters:
                waiter.cancel()
            raise
        return out

    async def _answer(self, conn: _Framed, waiter: asyncio.Future[bytes], query: Query,
                      timeout: float | None) -> bytes:
        try:
            return await conn.answer(waiter, timeout)
        except TimeoutError:
            raise self._timed_out(conn, query, timeout) from None
        except Refusal:
            raise  # an earlier query on this connection timed out
        except OSError as exc:
            conn.fail(exc)
            raise unreachable(self.url, exc) from None

    def _timed_out(self, conn: _Framed, query: Query, timeout: float | None) -> Refusal:
        """The refusal of a query not answered in time; the connection goes, failing the
        queries behind it with the same refusal."""
        refusal = Refusal("timeout", f"{self.url} did not answer {query.name!r} within {timeout:g} s")
        conn.fail(refusal)
        return refusal

    async def _connection(self, query: Query) -> _Framed:
        """The open connection, opening it once however many callers ask at the same time."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        except TimeoutError:
            raise Refusal("timeout", f"{self.url} did not accept a connection within {self.timeout:g} s "
                                     f"(for {query.name!r})") from None
        except OSError as exc:
            raise unreachable(self.url, exc) from None
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None

    async def _open(self) -> _Framed:
        async with asyncio.timeout(self.timeout):
            _, conn = await asyncio.get_running_loop().create_connection(_Framed, self.host, self.port)
        self._conn = conn
        return conn

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.fail(ConnectionResetError("the transport was closed"))
            self._conn = None
        if self._connecting is not None:
            self._connecting.cancel()
            self._connecting = None
