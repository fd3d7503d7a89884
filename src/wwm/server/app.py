"""The ASGI application of one World or Mind server: one URL per server.

- ``POST /``: a query in XML (section 11.2.1) or JSON, chosen by Content-Type; the answer
  comes back in the same encoding. This hot path is plain ASGI, without a framework in the
  way; everything else goes through a small Starlette router.
- ``GET /``: the server's description, an HTML page for people or a JSON card for programs
  (``Accept: application/json`` or ``?format=json``), with its credit trail.
- ``GET /trail``: the credit trail alone (JSON).
- ``GET /favicon.ico``: the server's icon (SVG; the pages carry it inline, so browsers ask
  for it only where no page of ours names it, e.g. the JSON card).
- ``GET /display/{token}``: a run's display page (section 9's display URL), refreshed live;
  ``/display/{token}.json`` for programs. The token is not the secret run ID.
- ``GET /openapi.json``, ``GET /asyncapi.json``: this server's bindings described in OpenAPI
  3.1 and AsyncAPI 3.0 (:mod:`wwm.protocol.openapi`).
- ``WS /ws``: a persistent binding for clients that want speed: each message is one query
  (and, when started with a TCP port, the plain TCP binding of :mod:`.tcp`). Under uvicorn
  the connection is handed at its upgrade to :mod:`.websocket`, which shares the TCP
  binding's connection handler; this app's own ASGI loop answers it on other servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.responses import Response as HTTPResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from ..protocol import encoding, jsoncodec
from ..protocol.context import current_server
from ..protocol.encoding import Codec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from . import pages
from .dispatch import Dispatcher
from .gate import Gate, peer

log = logging.getLogger("wwm.server")

MAX_BODY = 1 << 20  # 1 MiB: far above any sensible state, far below a memory problem
# An answer still being worked out after this long starts watching its connection, and is
# cancelled if the client goes away (its time-out): quick answers pay for a timer, not a task.
WATCH_AFTER = 0.05


class _ClientGone(Exception):
    """The client closed the connection before the answer was ready."""


class ServerApp:
    """ASGI callable: the query endpoint plus the description, display and WebSocket routes."""

    def __init__(self, dispatcher: Dispatcher, *, max_body: int = MAX_BODY,
                 sweep_seconds: float = 30.0, tcp: tuple[str, int] | None = None, pages: Any = None,
                 gate: Gate | None = None, extra_routes: Sequence[BaseRoute] = ()) -> None:
        self.dispatcher = dispatcher
        self.gate = gate or Gate()  # connections per address, and silent ones closed (every binding)
        self.tcp = tcp  # (host, port) of the TCP binding, if offered (port 0: any free port)
        if tcp is not None:
            dispatcher.bindings["tcp"] = f"tcp://{tcp[0]}:{tcp[1]}"
        self.max_body = max_body
        self.sweep_seconds = sweep_seconds
        self._sweeper: asyncio.Task[None] | None = None
        self.handlers = PageHandlers(dispatcher, pages)
        # the server's pages, then further ways in a feature adds (e.g. wwm.a2a's Agent Card
        # and JSON-RPC endpoint)
        self.router = Starlette(routes=[*self.handlers.routes(), *extra_routes], lifespan=self.lifespan)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        restored = self.dispatcher.runs.restore()
        if restored:
            log.info("resumed %d run(s) from the snapshot file", restored)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        tcp_server = None
        workers = self.dispatcher.workers
        if workers is not None:  # `wwm serve --workers N`: take the queries the others pass on
            await workers.listen(self.dispatcher, self.max_body)
        if self.tcp is not None:
            from .tcp import start

            tcp_server = await start(self.dispatcher, *self.tcp, self.max_body, self.gate)
            if self.tcp[1] == 0:  # any free port: the card names the one taken
                port = tcp_server.sockets[0].getsockname()[1]
                self.dispatcher.bindings["tcp"] = f"tcp://{self.tcp[0]}:{port}"
        try:
            yield
        finally:
            self._sweeper.cancel()
            if tcp_server is not None:
                tcp_server.close()
            if workers is not None:
                workers.close()
            self.dispatcher.trail.flush()  # the counts since the last write, to a --state file
            self.dispatcher.runs.close()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            self.dispatcher.runs.expire_idle()

    # ---- the hot path: POST / -------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] in ("/", ""):
            await self._post(scope, receive, send)
        elif scope["type"] == "websocket" and scope["path"] == "/ws":
            await self._websocket(receive, send)
        else:
            await self.router(scope, receive, send)

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = None
        length = None
        client = scope.get("client")
        if client:
            peer.set(client[0])  # (whose share a New run counts in; this request's task's own context)
        for key, value in scope["headers"]:
            if key == b"content-type":
                content_type = value.decode("latin-1")
            elif key == b"content-length":
                length = int(value) if value.isdigit() else None
        if length is not None and length > self.max_body:
            codec, response = _declared(content_type), Response.refused("?", Refusal(
                "too-large", f"the message is {length} bytes; this server accepts at most {self.max_body}"))
        else:
            try:
                body = await self._read(receive)
            except Refusal as refusal:
                codec, response = _declared(content_type), Response.refused("?", refusal)
            else:
                try:
                    codec, response = await self._answer_while_connected(body, content_type, receive)
                except _ClientGone:
                    return  # nobody to answer: the work was cancelled, the connection is gone
        payload = codec.encode(response)
        status = response.refusal.http_status if response.refusal else 200
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", codec.CONTENT_TYPE.encode()),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})

    async def _answer_while_connected(self, body: bytes, content_type: str | None,
                                      receive: Receive) -> tuple[Codec, Response]:
        """The dispatcher's answer; if the client disconnects first (it timed out), the
        answering is cancelled at once, so a long computation stops with its asker."""
        loop = asyncio.get_running_loop()
        answering = asyncio.current_task()
        gone = False
        watcher: asyncio.Task[None] | None = None

        async def watch() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            if answering is not None:
                answering.cancel()

        def start_watching() -> None:
            nonlocal watcher
            watcher = loop.create_task(watch())

        timer = loop.call_later(WATCH_AFTER, start_watching)
        try:
            return await self.dispatcher.answer_bytes(body, content_type)
        except asyncio.CancelledError:
            if gone and answering is not None and answering.uncancel() == 0:
                log.info("a client went away before its answer; the answering was stopped")
                raise _ClientGone from None
            raise
        finally:
            timer.cancel()
            if watcher is not None:
                watcher.cancel()

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await receive()
            if event["type"] == "http.disconnect":
                raise Refusal("malformed-message", "the client went away before the message ended")
            chunk = event.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise Refusal("too-large", f"the message is over {self.max_body} bytes, the most this server accepts")
            chunks.append(chunk)
            if not event.get("more_body", False):
                return b"".join(chunks)

    # ---- the persistent binding ------------------------------------------------------------
    async def _websocket(self, receive: Receive, send: Send) -> None:
        """Plain ASGI WebSocket loop: each message is one query, answered in its encoding
        and in kind (text for text, bytes for bytes). (Under uvicorn, :mod:`.websocket`
        answers /ws instead, without ASGI.)"""
        event = await receive()
        if event["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        current_server.set(self.dispatcher.trail)  # what answer_payload expects
        while True:
            event = await receive()
            if event["type"] != "websocket.receive":
                return
            data = event.get("bytes")
            as_text = data is None
            raw: bytes = (event.get("text") or "").encode() if data is None else data
            if len(raw) > self.max_body:
                payload = jsoncodec.encode(Response.refused("?", Refusal(
                    "too-large", f"the message is {len(raw)} bytes; this server accepts at most {self.max_body}")))
            else:
                payload = await self.dispatcher.answer_payload(raw)
            if as_text:
                await send({"type": "websocket.send", "text": payload.decode()})
            else:
                await send({"type": "websocket.send", "bytes": payload})

    # ---- descriptions and display pages ---------------------------------------------------
    @property
    def url(self) -> str:
        """The URL this server answers at (what its card and display URLs name)."""
        return self.dispatcher.url

    def card(self) -> dict[str, Any]:
        return pages.card(self.dispatcher)


class PageHandlers:
    """Everything a server answers but its queries (``POST /``, ``/ws``): its description,
    trail, icon, run displays and API descriptions, one handler per route as :meth:`routes`
    lists them (the one style of the package's web pages), and the served class's own pages
    (``Mind.web_pages`` / ``World.web_pages``) under ``/pages``."""

    def __init__(self, dispatcher: Dispatcher, own: Any = None) -> None:
        self.dispatcher = dispatcher
        self.own = own

    def routes(self) -> list[BaseRoute]:
        return [
            # (POST / never reaches the router: it is named so that a 405 says it is allowed)
            Route("/", self.describe, methods=["GET", "HEAD", "POST"]),
            Route("/trail", self.trail, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET", "HEAD"]),
            Route("/display/{token}", self.display, methods=["GET"]),
            Route("/openapi.json", self.described, methods=["GET"]),
            Route("/asyncapi.json", self.described, methods=["GET"]),
            *([Mount("/pages", app=self.own)] if self.own is not None else []),
        ]

    def card(self) -> dict[str, Any]:
        return pages.card(self.dispatcher)

    async def describe(self, request: Request) -> HTTPResponse:
        if _wants_json(request):
            return JSONResponse(self.card())
        return HTMLResponse(pages.description_page(self.card()))

    async def described(self, request: Request) -> HTTPResponse:
        """``/openapi.json`` (HTTP binding) or ``/asyncapi.json`` (WebSocket, TCP) of this server."""
        from ..protocol import openapi

        d, card = self.dispatcher, self.card()
        if request.url.path.endswith("/asyncapi.json"):
            return JSONResponse(openapi.asyncapi(d.role, d.query_sets, title=card["name"],
                                                 bindings=card["bindings"]))
        return JSONResponse(openapi.openapi(d.role, d.query_sets, url=d.url, title=card["name"],
                                            arguments=card["arguments"]))

    async def trail(self, request: Request) -> HTTPResponse:
        return JSONResponse(self.dispatcher.trail.as_dict())

    async def favicon(self, request: Request) -> HTTPResponse:
        return HTTPResponse(pages.icon(), media_type="image/svg+xml",
                            headers={"cache-control": "public, max-age=86400"})

    async def display(self, request: Request) -> HTTPResponse:
        token = request.path_params["token"]
        as_png = token.endswith(".png") or _wants_png(request)
        as_json = token.endswith(".json") or _wants_json(request)
        token = token.removesuffix(".json").removesuffix(".png")
        run = self.dispatcher.runs.by_token.get(token)
        workers = self.dispatcher.workers
        if run is None and workers is not None and (owner := workers.owner(token)) is not None:
            # a run another worker holds (its display token names it, as its run ID does)
            status, ctype, body = await workers.fetch(owner, request.url.path, request.headers.get("accept", "*/*"))
            return HTTPResponse(body, status, headers={"content-type": ctype, "cache-control": "no-store"})
        if run is None:
            if as_json or as_png:
                return JSONResponse({"error": "no run is on display here (it ended or never was)"}, 404)
            return HTMLResponse(pages.gone_page(), 404)
        if as_png:
            return self._frame(run)
        view = pages.run_view(self.dispatcher, run)
        if as_json:
            return JSONResponse(view)
        return HTMLResponse(pages.display_page(view))

    def _frame(self, run: Any) -> HTTPResponse:
        """The run's current frame (PNG), from its object's optional ``display_frame()``."""
        hook = getattr(run.obj, "display_frame", None)
        try:
            frame = hook() if callable(hook) else None
        except Exception as exc:  # the world failed to draw: say so, the run goes on
            return JSONResponse({"error": f"display_frame() failed: {type(exc).__name__}: {exc}"}, 500)
        if not frame:
            return JSONResponse({"error": "this run offers no frame image"}, 404)
        return HTTPResponse(frame, media_type="image/png", headers={"cache-control": "no-store"})


def _wants_png(request: Request) -> bool:
    """An image asked for by type alone (``Accept: image/png``, not a browser's page load)."""
    accept = request.headers.get("accept", "")
    return "image/png" in accept and "text/html" not in accept


def _declared(content_type: str | None) -> Codec:
    """The codec a body's declared type names (for refusals made before reading it)."""
    try:
        return encoding.choose(content_type, b"{")
    except Refusal:
        return jsoncodec


def _wants_json(request: Request) -> bool:
    if request.query_params.get("format") == "json":
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept
