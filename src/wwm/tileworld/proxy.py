"""The T-World proxy: agent programs on plain TCP, robots' world side on WebSocket, one port.

Each side sends ``CONNECT:<magic string>``; the proxy pairs a TCP agent with a WebSocket
robot of the same magic (case-insensitive, either arrival order, many pairs at once), then
relays: every WebSocket text message is written to the agent as is (newline-terminated), and
every line the agent sends becomes one WebSocket text message (:class:`AgentLines`): a line
written in pieces is relayed once whole, several lines in one write are several messages. An
agent that connects with
``CONNECT:<magic>:xml`` or ``CONNECT:<magic>:prolog`` gets every percept (and the proxy's own
errors) in that form instead of JSON, one line each (:mod:`.forms`). The WebSocket protocol is the
``websockets`` library's (its Sans-I/O ``ServerProtocol``), fed from asyncio streams.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from websockets.exceptions import WebSocketException
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from .forms import Form, convert, encode, split_magic

log = logging.getLogger("wwm.tileworld")

DEFAULT_PORT = 3313
MAX_MAGIC = 128
CHUNK = 16384
CONNECTED = "_CONNECTED_"
DISCONNECTED = "_DISCONNECTED_"
WORLD_CLOSED = "T-World instance was closed by the other side"
HANDSHAKE_TIMEOUT = 10.0
MAX_LINE = CHUNK      # an agent's line longer than this is dropped, with an error to the agent
FLUSH_AFTER = 0.5     # unterminated text relayed after this many seconds of silence (see AgentLines)

Side = Literal["agent", "world"]


def error_line(text: str, form: Form = "json") -> str:
    """An error for an agent, in T-World's percept format (in the form the agent chose)."""
    return encode({"header": "error", "data": text}, form)


def parse_connect(text: str) -> str:
    """The magic string of a ``CONNECT:<magic>`` message; ValueError says what is wrong."""
    line = text.strip(" \r\n\t")
    if line[:8].upper() != "CONNECT:":
        shown = line if len(line) <= 40 else line[:37] + "..."
        raise ValueError(f"expected CONNECT:<magic string> first, got {shown!r}")
    magic = line[8:].strip()
    if not magic:
        raise ValueError("the magic string after CONNECT: is empty")
    if len(magic) > MAX_MAGIC or "\n" in magic:
        raise ValueError(f"the magic string must be one line of at most {MAX_MAGIC} characters")
    return magic.lower()


class AgentLines:
    """The agent side's framing: bytes from a TCP agent in, whole lines out.

    T-World's own proxy relayed each ``recv()`` as one action, so an agent whose action reached
    it in two reads (an unbuffered ``write`` per word, a slow link) sent two invalid actions.
    Here a line is relayed once its newline arrives; several lines in one read are several
    actions; blank lines are skipped. Text without a newline is relayed when the agent falls
    silent (``flush``, after ``FLUSH_AFTER`` seconds, so agents written for T-World's proxy
    that end actions without a newline still work) or closes the connection (the last line of
    a stream needs no newline). A line longer than ``MAX_LINE`` bytes is dropped whole, up to
    its newline, and reported (``too_long``) rather than relayed cut.
    """

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self.partial = bytearray()
        self.skipping = False   # inside a line that was too long: drop up to its newline
        self.too_long = 0       # lines dropped since the caller last looked

    def feed(self, data: bytes) -> list[str]:
        """The whole lines completed by ``data``, each with its newline."""
        lines: list[str] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            piece = data[start:end + 1]
            start = end + 1
            if self.skipping:
                self.skipping = False
                continue
            if len(self.partial) + len(piece) > self.limit + 1:
                self.partial.clear()
                self.too_long += 1
                continue
            self.partial += piece
            self._emit(lines)
        if not self.skipping:
            self.partial += data[start:]
            if len(self.partial) > self.limit:
                self.partial.clear()
                self.skipping = True
                self.too_long += 1
        return lines

    def flush(self) -> list[str]:
        """The unterminated text, as a last line (none if blank)."""
        lines: list[str] = []
        self._emit(lines)
        return lines

    @property
    def pending(self) -> bool:
        return bool(self.partial)

    def _emit(self, lines: list[str]) -> None:
        text = self.partial.decode("utf-8", "replace")
        self.partial.clear()
        if text.strip():
            lines.append(text)


@dataclass(eq=False)
class Peer:
    """One connection: its side, its stream, the magic it asked for and its partner."""

    side: Side
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    ws: ServerProtocol | None = None
    magic: str | None = None
    partner: Peer | None = None
    form: Form = "json"  # the percept form an agent asked for
    closed: bool = False
    fragments: list[bytes | bytearray | memoryview] = field(default_factory=list)  # a message in frames

    async def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            if self.ws is not None:
                self.ws.send_text(text.encode())
                self.writer.write(b"".join(self.ws.data_to_send()))
            else:
                self.writer.write(text.encode())
            await self.writer.drain()
        except (ConnectionError, RuntimeError, OSError, WebSocketException):
            self.closed = True

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.ws is not None and self.ws.state.name == "OPEN":
                self.ws.send_close(1000, "partner left")
                self.writer.write(b"".join(self.ws.data_to_send()))
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2)
        except (TimeoutError, ConnectionError, RuntimeError, OSError, WebSocketException):
            pass


class Proxy:
    """The proxy server. ``await start()`` listens; ``port`` is the bound port."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, forward_to_agent: bool = True,
                 max_connections: int = 1024, flush_after: float = FLUSH_AFTER) -> None:
        self.host, self.port = host, port
        self.flush_after = flush_after
        self.forward_to_agent = forward_to_agent
        self.max_connections = max_connections
        self.connections = 0
        self.waiting: dict[Side, dict[str, deque[Peer]]] = {"agent": {}, "world": {}}
        self.pairs = 0
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> Proxy:
        self._server = await asyncio.start_server(self._handle, self.host, self.port, limit=CHUNK * 4)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("proxy listening on %s:%d", self.host, self.port)
        return self

    async def serve_forever(self) -> None:
        if self._server is None:
            await self.start()
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def waiting_count(self) -> int:
        return sum(len(q) for side in self.waiting.values() for q in side.values())

    # ---- one connection -------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.connections >= self.max_connections:
            full = f"the proxy is full ({self.max_connections} connections); try again later"
            writer.write(error_line(full).encode())
            writer.close()
            return
        self.connections += 1
        try:
            await self._serve(reader, writer)
        finally:
            self.connections -= 1

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer: Peer | None = None
        try:
            first = await reader.read(CHUNK)
            if not first:
                return
            if first[:4] == b"GET ":
                peer = await self._websocket(reader, writer, first)
                if peer is None:
                    return
                await self._ws_loop(peer)
            else:
                peer = Peer("agent", reader, writer)
                await self._agent_loop(peer, first)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError, OSError, WebSocketException) as exc:
            log.debug("connection dropped: %s", exc)
        finally:
            if peer is not None:
                await self._gone(peer)
            else:
                writer.close()

    async def _websocket(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         first: bytes) -> Peer | None:
        ws = ServerProtocol(max_size=2**22)
        ws.receive_data(first)
        events = ws.events_received()
        while not events:
            if ws.handshake_exc is not None:  # not HTTP at all: the library gave up on it
                reason = f"not a WebSocket handshake: {ws.handshake_exc}\n".encode()
                writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(reason), reason))
                writer.close()
                return None
            more = await asyncio.wait_for(reader.read(CHUNK), HANDSHAKE_TIMEOUT)
            if not more:
                return None
            ws.receive_data(more)
            events = ws.events_received()
        request = events[0]
        response = ws.accept(request) if isinstance(request, Request) else None
        if response is None:
            writer.close()
            return None
        ws.send_response(response)
        writer.write(b"".join(ws.data_to_send()))
        await writer.drain()
        if response.status_code != 101:  # not a WebSocket upgrade: the library's 4xx said why
            writer.close()
            return None
        peer = Peer("world", reader, writer, ws=ws)
        for event in events[1:]:
            if isinstance(event, Frame):  # (after the handshake, every event is a frame)
                await self._ws_frame(peer, event)
        return peer

    async def _ws_loop(self, peer: Peer) -> None:
        assert peer.ws is not None
        while not peer.closed:
            data = await peer.reader.read(CHUNK)
            if not data:
                peer.ws.receive_eof()
                return
            peer.ws.receive_data(data)
            for event in peer.ws.events_received():
                if isinstance(event, Frame):
                    await self._ws_frame(peer, event)
            pending = peer.ws.data_to_send()
            if pending:  # pongs and close replies queued by the library
                peer.writer.write(b"".join(pending))
                await peer.writer.drain()
            if peer.ws.close_expected():
                return

    async def _ws_frame(self, peer: Peer, frame: Frame) -> None:
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            peer.fragments.append(frame.data)
            if frame.fin:
                text = b"".join(peer.fragments).decode("utf-8", "replace")
                peer.fragments.clear()
                await self._message(peer, text)

    async def _agent_loop(self, peer: Peer, first: bytes) -> None:
        lines = AgentLines()
        complete = lines.feed(first)
        while True:
            for line in complete:
                await self._message(peer, line)
                if peer.closed:
                    return
            if lines.too_long:
                lines.too_long = 0
                await self._complain(peer, f"a line longer than {MAX_LINE} bytes was dropped; "
                                           "send one action per line")
            try:
                wait = self.flush_after if lines.pending else None
                data = await asyncio.wait_for(peer.reader.read(CHUNK), wait)
            except TimeoutError:   # silence after unterminated text: relay it as it is
                complete = lines.flush()
                continue
            if not data:   # the agent closed its side: its last line needs no newline
                for line in lines.flush():
                    await self._message(peer, line)
                return
            complete = lines.feed(data)

    # ---- pairing and relaying ---------------------------------------------------------------------
    async def _message(self, peer: Peer, text: str) -> None:
        if peer.partner is not None:
            if peer.side == "agent":
                await peer.partner.send(text)
            elif self.forward_to_agent:
                line = convert(text, peer.partner.form)
                await peer.partner.send(line if line.endswith("\n") else line + "\n")
            return
        if peer.magic is not None:
            await self._complain(peer, "still waiting for a partner with the same magic string; "
                                       "nothing is relayed before pairing")
            return
        first_line, _, rest = text.partition("\n")
        try:
            magic, peer.form = split_magic(parse_connect(first_line))
        except ValueError as exc:
            await self._complain(peer, str(exc))
            return
        peer.magic = magic
        other: Side = "world" if peer.side == "agent" else "agent"
        queue = self.waiting[other].get(magic)
        while queue and queue[0].closed:
            queue.popleft()
        if queue:
            partner = queue.popleft()
            if not queue:
                del self.waiting[other][magic]
            peer.partner, partner.partner = partner, peer
            self.pairs += 1
            world = peer if peer.side == "world" else partner
            log.info("paired %r", magic)
            await world.send(CONNECTED)
        else:
            self.waiting[peer.side].setdefault(magic, deque()).append(peer)
            log.info("%s waiting for %r", peer.side, magic)
        if rest.strip():  # more after the CONNECT line in the same chunk: relay it, or say why not
            await self._message(peer, rest)

    async def _complain(self, peer: Peer, text: str) -> None:
        await peer.send(error_line(text, peer.form) if peer.side == "agent" else f"_ERROR_:{text}")

    async def _gone(self, peer: Peer) -> None:
        if peer.magic is not None and peer.partner is None:
            queue = self.waiting[peer.side].get(peer.magic)
            if queue and peer in queue:
                queue.remove(peer)
                if not queue:
                    del self.waiting[peer.side][peer.magic]
        partner, peer.partner = peer.partner, None
        await peer.close()
        if partner is not None:
            partner.partner = None
            if partner.side == "world":
                await partner.send(DISCONNECTED)
            else:
                await partner.send(error_line(WORLD_CLOSED, partner.form))
            await partner.close()


async def run_proxy(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> None:
    """Run a proxy until cancelled."""
    await Proxy(host, port).serve_forever()
