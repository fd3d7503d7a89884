"""The in-process binding: a query handed straight to a server's ASGI app in this process, with
no socket, as httpx's ``ASGITransport`` hands a request to an app.

A server app (:func:`wwm.server.make_app`) is *hosted* at its URL for the length of a block::

    from wwm.server import make_app
    from wwm.client.inprocess import host

    async with host(make_app(GridWorld, url="http://grid.test/")):
        world = await wwm.client.remote.aconnect("http://grid.test/")   # no socket anywhere

While it is hosted, every client of this process that reaches that URL over HTTP goes in
process: :func:`wwm.connect`, the members an Action Selection server connects to by URL, a
society's run, the cards read before it (:mod:`.cards`) and ``wwm check``'s conformance checks
(``transport="inprocess"`` asks for it by name, and fails when nothing is hosted there). Without
hosting, ``connect(url, app=app)`` (or :class:`InProcessTransport` given to a remote object)
reaches one app directly; nothing else then finds it by its URL.

What crosses is what crosses HTTP: each query is encoded (JSON or XML) and POSTed to the app's
ASGI entry, which answers with a status, a Content-Type and an encoded body, decoded as an
HTTP answer is (:class:`InProcessTransport` is the HTTP transport with another way to post),
so the protocol's codecs, the server's body limits and refusals all stay under test. (Handing
the encoded body to the server's Dispatcher alone would cost less, but would skip what the
app does around it: content types, status codes, limits, the card and pages a GET reads;
``benchmarks/inprocess.py`` measures both against HTTP on loopback.) The app
runs each request in a task of its own, in a fresh context, as a server would (nothing the
client's context holds leaks into the answer); a query that times out or whose caller gives up
cancels that task, as a client that hangs up stops the server's work. A client on another
event loop (the synchronous facade's thread) is served on the loop the app is hosted on.
The app's lifespan (runs restored, idle runs swept) runs while it is hosted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from ..protocol.transport import one_at_a_time
from .transport import DEFAULT_TIMEOUT, HttpTransport, Reply

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class ServerApp(Protocol):
    """What can be hosted: an ASGI app that knows its URL and its card
    (:class:`wwm.server.ServerApp`)."""

    @property
    def url(self) -> str: ...

    def card(self) -> dict[str, Any]: ...

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None: ...


@dataclass(slots=True)
class _Host:
    app: ServerApp
    url: str
    loop: asyncio.AbstractEventLoop


_HOSTS: dict[str, _Host] = {}


def _key(url: str) -> str:
    """One server's URL, however written (case of scheme and host, trailing slash)."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def hosted(url: str) -> ServerApp | None:
    """The app hosted at ``url`` in this process, if any."""
    found = _HOSTS.get(_key(url))
    return found.app if found is not None else None


@contextlib.asynccontextmanager
async def host(app: ServerApp, url: str | None = None) -> AsyncIterator[str]:
    """Host ``app`` at ``url`` (by default its own) for the block, its lifespan started first
    and ended after; yields the URL. A URL hosted already is a ValueError."""
    url = url or app.url
    key = _key(url)
    if key in _HOSTS:
        raise ValueError(f"{url} is already hosted in this process")
    async with _lifespan(app):
        _HOSTS[key] = _Host(app, url, asyncio.get_running_loop())
        try:
            yield url
        finally:
            del _HOSTS[key]


@contextlib.asynccontextmanager
async def _lifespan(app: ServerApp) -> AsyncIterator[None]:
    """The ASGI lifespan of ``app`` around the block (an app without one is let be)."""
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    outbox: asyncio.Queue[Message] = asyncio.Queue()
    scope: Message = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
    task = asyncio.get_running_loop().create_task(app(scope, inbox.get, outbox.put), context=contextvars.Context())

    async def step(kind: str) -> None:
        await inbox.put({"type": f"lifespan.{kind}"})
        getting = asyncio.ensure_future(outbox.get())
        done, _ = await asyncio.wait({getting, task}, return_when=asyncio.FIRST_COMPLETED)
        if getting not in done:  # the app ended without answering: it has no lifespan
            getting.cancel()
            return
        answer = getting.result()
        if answer["type"] == f"lifespan.{kind}.failed":
            raise RuntimeError(f"the app's {kind} failed: {answer.get('message', '')}")

    await step("startup")
    try:
        yield
    finally:
        if not task.done():
            await step("shutdown")
        if not task.done():
            task.cancel()
        with contextlib.suppress(BaseException):
            await task


async def request(app: ServerApp, method: str, path: str = "/", *, query: str = "", body: bytes = b"",
                  headers: Sequence[tuple[str, str]] = (), timeout: float | None = None) -> Reply:
    """One HTTP request handed to ``app`` in this process; its answer. Served on the loop the
    app is hosted on, when hosted on another one. TimeoutError after ``timeout`` seconds
    (the app's work on it is then cancelled)."""
    found = _HOSTS.get(_key(app.url))
    loop = asyncio.get_running_loop()
    if found is None or found.app is not app or found.loop is loop:
        return await _request(app, method, path, query, body, headers, timeout)
    if found.loop.is_closed():
        raise ConnectionResetError(f"the event loop {app.url} was hosted on is closed")
    future = asyncio.run_coroutine_threadsafe(_request(app, method, path, query, body, headers, timeout),
                                              found.loop)
    try:
        return await asyncio.wrap_future(future)
    finally:
        future.cancel()


async def _request(app: ServerApp, method: str, path: str, query: str, body: bytes,
                   headers: Sequence[tuple[str, str]], timeout: float | None) -> Reply:
    parts = urlsplit(app.url)
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    if method == "POST":
        raw.append((b"content-length", str(len(body)).encode()))
    scope: Message = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": parts.scheme or "http", "path": path, "raw_path": path.encode(), "root_path": "",
        "query_string": query.encode(), "headers": raw, "client": ("inprocess", 0),
        "server": (parts.hostname or "inprocess", parts.port or 80), "state": {},
    }
    answered = asyncio.Event()
    sent = False
    status = 500
    content_type: str | None = None
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # (the app watches for the client going away while it works)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, content_type
        if message["type"] == "http.response.start":
            status = int(message["status"])
            for key, value in message.get("headers", ()):
                if bytes(key).lower() == b"content-type":
                    content_type = bytes(value).decode("latin-1")
        elif message["type"] == "http.response.body":
            chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                answered.set()

    # its own task, in a fresh context: what the asker's context holds stays the asker's
    task = asyncio.get_running_loop().create_task(app(scope, receive, send), context=contextvars.Context())
    try:
        async with asyncio.timeout(timeout):
            await asyncio.shield(task)
    finally:
        answered.set()
        if not task.done():
            task.cancel()
    if not chunks and not answered.is_set():
        raise ConnectionResetError(f"{app.url} gave no answer")
    return Reply(status, content_type, b"".join(chunks))


class InProcessTransport(HttpTransport):
    """The HTTP binding with the app in this process: each query encoded, handed to ``app``'s
    ASGI entry, its answer decoded as an HTTP answer is. Queries asked in order are answered
    in order (:attr:`pipelines`: the run loop takes the same path as over plain HTTP)."""

    def __init__(self, app: ServerApp, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> None:
        super().__init__(app.url, encoding=encoding, timeout=timeout)
        self.app = app
        self._lean = None  # (never a socket)

    @property
    def pipelines(self) -> bool:
        return True

    async def exchange_in_order(self, queries: Sequence[Query], *, within: float | None = None
                                ) -> list[Response | Refusal]:
        return await one_at_a_time(self.exchange, queries, within)

    async def _post(self, query: Query) -> tuple[str | None, bytes]:
        reply = await self.post_raw(self.codec.encode(query), query.name)
        return reply.content_type, reply.body

    async def post_raw(self, body: bytes, name: str = "?") -> Reply:
        """``body`` as sent, POSTed to the app, whatever it holds (for checks of bad input)."""
        try:
            return await request(self.app, "POST", body=body, timeout=self.timeout,
                                 headers=[("content-type", self.codec.CONTENT_TYPE),
                                          ("accept", self.codec.CONTENT_TYPE)])
        except TimeoutError:
            raise Refusal("timeout", f"{self.url} did not answer {name!r} within {self.timeout:g} s") from None
        except (OSError, RuntimeError) as exc:
            raise Refusal("unreachable", f"{self.url} could not be reached: {type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        return None


def open_inprocess(url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> InProcessTransport:
    """A transport to the app hosted at ``url`` in this process (:func:`host`)."""
    app = hosted(url)
    if app is None:
        raise ValueError(f"nothing is hosted at {url} in this process (wwm.client.inprocess.host)")
    return InProcessTransport(app, encoding=encoding, timeout=timeout)
