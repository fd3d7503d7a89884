"""The client side of the WebSocket binding (``ws://host:port/ws`` beside a server's URL): one
persistent connection per remote object, each query one message, answered in order.

The WebSocket protocol itself (handshake, framing, masking, pings, closing) is the
``websockets`` library's Sans-I/O :class:`~websockets.client.ClientProtocol`; this module feeds
it from an asyncio connection and hands each message received to the oldest query waiting
(:class:`~.pipeline.Pipeline`, as the TCP binding's client does). Queries are pipelined: each is
written as soon as it is asked, so :meth:`WebSocketTransport.exchange_in_order` costs one round
trip, and each answer is allowed the whole time-out from when it is waited for. A caller that
gives up (cancelled) still has its answer read and dropped in turn; a query that times out
closes the connection, failing the queries behind it with the same refusal.

It replaced aiohttp's WebSocket client here, which cost about twice the CPU per query
(an ``asyncio.timeout`` and a lock per exchange, an awaited send, aiohttp's reader queue).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Sequence

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidURI, WebSocketException
from websockets.frames import Frame, Opcode
from websockets.http11 import Response as HandshakeResponse
from websockets.protocol import State
from websockets.uri import parse_uri

from ..protocol.encoding import Codec, codec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from .pipeline import Pipeline, expire, shortest
from .transport import DEFAULT_TIMEOUT, decode_response, unreachable


class _Messages(Pipeline[bytes]):
    """One WebSocket connection: messages in, each handed to the oldest waiting asker."""

    def __init__(self, protocol: ClientProtocol) -> None:
        super().__init__()
        self.ws = protocol
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.fragments: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, HandshakeResponse):
                self._set_handshake(ws.handshake_exc)
            elif isinstance(event, Frame) and event.opcode in (Opcode.BINARY, Opcode.TEXT, Opcode.CONT):
                if not event.fin:  # a message in fragments: kept until its last
                    self.fragments.append(bytes(event.data))
                elif self.fragments:
                    self.fragments.append(bytes(event.data))
                    message, self.fragments = b"".join(self.fragments), []
                    self.deliver(message)
                else:
                    self.deliver(bytes(event.data))
        self._flush()  # pongs, and the reply to a close
        if ws.state is State.CLOSED or ws.close_rcvd is not None:
            self.fail(ConnectionResetError(f"the server closed the WebSocket ({ws.close_rcvd or 'no close frame'})"))

    def send_message(self, payload: bytes) -> asyncio.Future[bytes]:
        self.ws.send_binary(payload)
        return self.send_one(b"".join(self.ws.data_to_send()))

    def send_messages(self, payloads: list[bytes]) -> list[asyncio.Future[bytes]]:
        """Write these messages in one write; a future for each one's answer."""
        for payload in payloads:
            self.ws.send_binary(payload)
        return self.send_all(b"".join(self.ws.data_to_send()), len(payloads))

    def connection_lost(self, exc: Exception | None) -> None:
        self._set_handshake(exc or ConnectionResetError("the server closed the connection"))
        super().connection_lost(exc)

    def _set_handshake(self, exc: BaseException | None) -> None:
        if not self.handshake.done():
            if exc is None:
                self.handshake.set_result(None)
            else:
                self.handshake.set_exception(exc)

    def _flush(self) -> None:
        pending = self.ws.data_to_send()
        if pending and self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(pending))

    def close(self) -> None:
        """Say goodbye (a close frame) and close; queries still waiting fail."""
        if self.transport is not None and not self.transport.is_closing() and self.ws.state is State.OPEN:
            self.ws.send_close()
            self._flush()
        self.fail(ConnectionResetError("the transport was closed"))


class WebSocketTransport:
    """One persistent WebSocket per remote object (``ws://host:port/ws``)."""

    pipelines = True  # exchange_in_order costs one round trip

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self.ws_url = _ws_url(url)
        self.codec: Codec = codec(encoding)
        self.timeout = timeout
        self._conn: _Messages | None = None
        self._connecting: asyncio.Future[_Messages] | None = None

    async def exchange(self, query: Query) -> Response:
        conn = self._conn
        if conn is None or conn.closed:
            conn = await self._connection(query, self.timeout)
        waiter = conn.send_message(self.codec.encode(query))
        timeout = self.timeout
        timer = None if timeout is None else conn.loop.call_later(timeout, expire, waiter)
        try:
            frame = await waiter
        except TimeoutError:
            raise self._timed_out(conn, query, timeout) from None
        except Refusal:
            raise  # an earlier query on this connection timed out
        except OSError as exc:
            conn.fail(exc)
            raise unreachable(self.ws_url, exc) from None
        finally:
            if timer is not None:
                timer.cancel()
        return decode_response(self.url, query, None, frame)

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
        waiters = conn.send_messages([self.codec.encode(q) for q in queries])
        out: list[Response | Refusal] = []
        try:
            for query, waiter in zip(queries, waiters, strict=True):
                try:
                    frame = await conn.answer(waiter, timeout)
                except TimeoutError:
                    out.append(self._timed_out(conn, query, timeout))
                except Refusal as refusal:
                    out.append(refusal)
                except OSError as exc:
                    conn.fail(exc)
                    out.append(unreachable(self.ws_url, exc))
                else:
                    try:
                        out.append(decode_response(self.url, query, None, frame))
                    except Refusal as refusal:
                        out.append(refusal)
        except BaseException:  # cancelled: the answers still to come are read and dropped
            for waiter in waiters:
                waiter.cancel()
            raise
        return out

    def _timed_out(self, conn: _Messages, query: Query, timeout: float | None) -> Refusal:
        refusal = Refusal("timeout", f"{self.ws_url} did not answer {query.name!r} within {timeout:g} s")
        conn.fail(refusal)
        return refusal

    async def _connection(self, query: Query, timeout: float | None) -> _Messages:
        """The open connection, opened once however many callers ask at the same time."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open(timeout))
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        except TimeoutError:
            raise Refusal("timeout", f"{self.ws_url} did not accept a WebSocket within {timeout:g} s "
                                     f"(for {query.name!r})") from None
        except (OSError, WebSocketException) as exc:
            raise unreachable(self.ws_url, exc) from None
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None

    async def _open(self, timeout: float | None) -> _Messages:
        try:
            uri = parse_uri(self.ws_url)
        except InvalidURI as exc:
            raise OSError(f"not a WebSocket URL: {exc}") from None
        protocol = ClientProtocol(uri, max_size=None)
        context = ssl.create_default_context() if uri.secure else None
        conn: _Messages | None = None
        try:
            async with asyncio.timeout(timeout):
                _, conn = await asyncio.get_running_loop().create_connection(
                    lambda: _Messages(protocol), uri.host, uri.port, ssl=context)
                await conn.handshake
        except BaseException:
            if conn is not None:
                conn.fail(ConnectionResetError("the WebSocket was not opened"))
            raise
        self._conn = conn
        return conn

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._connecting is not None:
            self._connecting.cancel()
            self._connecting = None


def _ws_url(url: str) -> str:
    base = url.rstrip("/")
    base = base.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"
