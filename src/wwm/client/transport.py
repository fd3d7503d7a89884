"""The HTTP binding (:class:`~wwm.protocol.transport.Transport`), and what the bindings share.

:class:`HttpTransport` POSTs each query to the server's URL: over the lean keep-alive client
of :mod:`.http11` for ``http://`` (with HTTP/1.1 pipelining for queries sent in order), over
aiohttp for ``https://``. (The WebSocket binding is :mod:`.ws_transport`, the TCP one
:mod:`.tcp_transport`.) A server that cannot be reached or does not answer in time surfaces as
``Refusal("unreachable")`` / ``Refusal("timeout")``, never a hang.

A server need not read both encodings (a mind written as a CGI script may read only the XML
of section 11.2.1): unless the caller chose the encoding (:attr:`HttpTransport.settled`),
:class:`HttpTransport` speaks the encoding of the server's first answer from then on, and
when that first answer refuses the query as ``unsupported-encoding``, in the other encoding,
the query is sent once more in it (the server did nothing with it). :meth:`HttpTransport.speak`
switches by hand (:meth:`wwm.client.remote.RemoteMind.speak_as` does it from what the
server's card says).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from ..protocol import jsoncodec, xmlcodec
from ..protocol.encoding import Codec, choose, codec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from ..protocol.queries import PROTOCOL_VERSION, SUPPORTED_VERSIONS, Wire
from ..protocol.transport import one_at_a_time, settle, settled
from .http11 import Http11Client, HttpError
from .pipeline import shortest
from .statuses import NotListening, refuse_status

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class Reply:
    """What a server answered one HTTP request with."""

    status: int
    content_type: str | None
    body: bytes


@dataclass(slots=True)
class _Shared:
    session: aiohttp.ClientSession
    users: int = 0


class _Sessions:
    """One aiohttp session per event loop, shared by every transport on that loop and
    closed when the last of them closes."""

    def __init__(self) -> None:
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shared] = weakref.WeakKeyDictionary()

    def acquire(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        entry = self._by_loop.get(loop)
        if entry is None or entry.session.closed:
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30, enable_cleanup_closed=True)
            session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None),
                                            skip_auto_headers=("User-Agent",))
            entry = self._by_loop[loop] = _Shared(session)
        entry.users += 1
        return entry.session

    async def release(self, session: aiohttp.ClientSession) -> None:
        loop = asyncio.get_running_loop()
        entry = self._by_loop.get(loop)
        if entry is None or entry.session is not session:
            if not session.closed:
                await session.close()
            return
        entry.users -= 1
        if entry.users <= 0:
            del self._by_loop[loop]
            await session.close()


_sessions = _Sessions()


class HttpTransport:
    """POST each query to the server's URL, in JSON (default) or the XML of section 11.2.1,
    over keep-alive connections (the lean client of :mod:`.http11` for ``http://``,
    aiohttp for ``https://``)."""

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self.codec: Codec = codec(encoding)
        self.encoding = encoding
        self.timeout = timeout
        self._lean = Http11Client(url, self.codec.CONTENT_TYPE, timeout) if url.startswith("http://") else None
        self._session: aiohttp.ClientSession | None = None
        self._headers = {"Content-Type": self.codec.CONTENT_TYPE, "Accept": self.codec.CONTENT_TYPE}
        # whether the encoding is settled: chosen by the caller, or learnt from a first answer
        self.settled = False

    def speak(self, encoding: str) -> None:
        """Send the next queries in ``encoding`` ("json" or "xml")."""
        self.codec = codec(encoding)
        self.encoding = encoding
        self._headers = {"Content-Type": self.codec.CONTENT_TYPE, "Accept": self.codec.CONTENT_TYPE}
        if self._lean is not None:
            self._lean.speak(self.codec.CONTENT_TYPE)

    async def exchange(self, query: Query) -> Response:
        if not self.settled:
            return await self._first_exchange(query)
        if self._lean is not None:  # the hot path: no coroutine more than needed
            (reply,) = await self._lean_replies([self.codec.encode(query)])
            return self._lean_response(query, reply)
        return decode_response(self.url, query, *await self._post(query))

    async def _first_exchange(self, query: Query) -> Response:
        """Until the server has answered once: learn its encoding from that answer."""
        ctype, payload = await self._post(query)
        message = decode_message(self.url, query, ctype, payload)  # an unreadable answer teaches nothing
        self.settled = True
        spoken = answered_in(ctype, payload)
        if spoken is not None and spoken != self.encoding:
            self.speak(spoken)  # the server answered in the other encoding: speak it from now on
            if message.refusal is not None and message.refusal.code == "unsupported-encoding":
                message = decode_message(self.url, query, *await self._post(query))
        if message.refusal is not None:
            raise message.refusal
        return message

    async def _post(self, query: Query) -> tuple[str | None, bytes]:
        """The Content-Type and body of the server's answer to ``query``."""
        if self._lean is not None:
            (reply,) = await self._lean_replies([self.codec.encode(query)])
            return self._lean_answer(query, reply)
        body = self.codec.encode(query)
        try:
            async with asyncio.timeout(self.timeout):
                if self._session is None or self._session.closed:
                    self._session = _sessions.acquire()
                async with self._session.post(self.url, data=body, headers=self._headers) as answer:
                    payload = await answer.read()
                    ctype = answer.headers.get("Content-Type")
                    status = answer.status
        except TimeoutError:
            raise self._timed_out(query) from None
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            raise unreachable(self.url, exc) from None
        refuse_status(self.url, query.name, status, payload, answered_in(ctype, payload) is not None)
        return ctype, payload

    @property
    def pipelines(self) -> bool:
        """Whether :meth:`exchange_in_order` saves round trips here (plain http:// only)."""
        return self._lean is not None

    async def exchange_in_order(self, queries: Sequence[Query], *, within: float | None = None
                                ) -> list[Response | Refusal]:
        """Send ``queries`` back to back on one connection (HTTP/1.1 pipelining; the server
        answers them in the order sent) and return each one's response or refusal, in order,
        waiting at most ``within`` seconds for each (when shorter than the transport's own)."""
        if self._lean is None:  # https://: one at a time
            return await one_at_a_time(self.exchange, queries, within)
        if not self.settled and queries:  # the first answer says which encoding to speak
            first = await settled(self.exchange(queries[0]))
            return [first, *(await self.exchange_in_order(queries[1:], within=within))]
        replies = await self._lean_replies([self.codec.encode(q) for q in queries], within)
        timeout = shortest(self.timeout, within)
        return [settle(self._lean_response, q, r, timeout) for q, r in zip(queries, replies, strict=True)]

    async def _lean_replies(self, bodies: list[bytes], within: float | None = None
                            ) -> list[tuple[int, dict[str, str], bytes] | Exception]:
        """The lean client's replies; a connection that cannot be opened fails them all."""
        assert self._lean is not None
        try:
            return await self._lean.post_in_order(bodies, within=within)
        except (TimeoutError, HttpError, OSError) as exc:
            return [exc] * len(bodies)

    def _lean_response(self, query: Query, reply: tuple[int, dict[str, str], bytes] | Exception,
                       timeout: float | None = None) -> Response:
        return decode_response(self.url, query, *self._lean_answer(query, reply, timeout))

    def _lean_answer(self, query: Query, reply: tuple[int, dict[str, str], bytes] | Exception,
                     timeout: float | None = None) -> tuple[str | None, bytes]:
        if isinstance(reply, TimeoutError):
            raise self._timed_out(query, timeout)
        if isinstance(reply, (HttpError, OSError, ValueError)):
            raise unreachable(self.url, reply)
        if isinstance(reply, Exception):
            raise reply
        status, headers, payload = reply
        ctype = headers.get("content-type")
        if status >= 400:
            refuse_status(self.url, query.name, status, payload, answered_in(ctype, payload) is not None)
        return ctype, payload

    def _timed_out(self, query: Query, timeout: float | None = None) -> Refusal:
        return Refusal("timeout", f"{self.url} did not answer {query.name!r} within {timeout or self.timeout:g} s")

    async def post_raw(self, body: bytes, name: str = "?") -> Reply:
        """``body`` POSTed as it is, whatever it holds (for checks of bad input); the reply."""
        try:
            async with asyncio.timeout(self.timeout):
                if self._lean is not None:
                    status, headers, payload = await self._lean.post(body)
                    return Reply(status, headers.get("content-type"), payload)
                if self._session is None or self._session.closed:
                    self._session = _sessions.acquire()
                async with self._session.post(self.url, data=body, headers=self._headers) as answer:
                    return Reply(answer.status, answer.headers.get("Content-Type"), await answer.read())
        except TimeoutError:
            raise Refusal("timeout", f"{self.url} did not answer {name!r} within {self.timeout:g} s") from None
        except (aiohttp.ClientError, HttpError, OSError, ValueError) as exc:
            raise unreachable(self.url, exc) from None

    async def close(self) -> None:
        if self._lean is not None:
            self._lean.close()
        if self._session is not None:
            session, self._session = self._session, None
            await _sessions.release(session)


def unreachable(url: str, exc: BaseException) -> Refusal:
    """The refusal for a server that could not be reached, naming what went wrong."""
    if isinstance(exc, ConnectionRefusedError) or isinstance(getattr(exc, "os_error", None), ConnectionRefusedError):
        return NotListening(url)
    return Refusal("unreachable", f"{url} could not be reached: {type(exc).__name__}: {exc}")


def answered_in(content_type: str | None, payload: bytes) -> str | None:
    """The encoding of an answer ("json" or "xml"), None when it cannot be told."""
    try:
        return "xml" if choose(content_type, payload) is xmlcodec else "json"
    except Refusal:
        return None


def decode_response(url: str, query: Query, content_type: str | None, payload: bytes) -> Response:
    """The server's response to ``query``, or the refusal it holds, raised."""
    if content_type is None and payload[:1] == b"{":
        usual = _usual_response(query, payload)
        if usual is not None:
            return usual
    message = decode_message(url, query, content_type, payload)
    if message.refusal is not None:
        raise message.refusal
    return message


def _usual_response(query: Query, payload: bytes) -> Response | None:
    """The usual answer read in few steps (:func:`usual_document`); None for anything else,
    which :func:`decode_message` reads."""
    doc = usual_document(query.name, payload)
    if doc is None:
        return None
    data = doc.get("data")
    return Response(query.name, data if data is not None else {}, version=doc.get("wwm", PROTOCOL_VERSION))


def usual_document(name: str, payload: bytes) -> dict[str, Any] | None:
    """The usual answer to the query ``name``, parsed: a JSON response to it by its name, no
    refusal, only plain values (what :func:`jsoncodec.decode` accepts and gives alike, in
    about a third of its time); None for anything else."""
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    if type(doc) is not dict or doc.get("response") != name:
        return None
    data = doc.get("data", _NO_DATA)
    version = doc.get("wwm", PROTOCOL_VERSION)
    if (type(data) is not dict or len(doc) != 1 + ("wwm" in doc) + ("data" in doc)
            or type(version) is not str or version not in SUPPORTED_VERSIONS):
        return None
    for value in data.values():
        if type(value) not in _PLAIN:
            return None
    return doc


_NO_DATA: dict[str, Wire] = {}
_PLAIN = frozenset({str, int, float, bool})


def decode_message(url: str, query: Query, content_type: str | None, payload: bytes) -> Response:
    """The response in an answer (a refusal in it is not raised); a ``server-error`` refusal
    when the answer is not a readable response."""
    try:
        if content_type is None and payload[:1] == b"{":  # an untyped JSON object: the usual case
            message = jsoncodec.decode(payload)
        else:
            message = choose(content_type, payload).decode(payload)
    except Refusal as refusal:
        raise Refusal("server-error",
                      f"{url} answered {query.name!r} with an unreadable message: {refusal.text}") from None
    if not isinstance(message, Response):
        raise Refusal("server-error", f"{url} answered {query.name!r} with a query, not a response")
    return message
