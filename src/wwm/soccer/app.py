"""The soccer server: the WWM World server of :class:`SoccerWorld` (every query at ``/``, its
card, display pages) with, on the same server, the soccer server's protocol on a UDP port
(:mod:`.udp`, named ``udp`` among the card's bindings) and the field in the browser:

- ``GET /soccer``: the live view (a canvas: field, players, ball, score, clock), fed by
  ``WS /soccer/live`` (one frame after each cycle, at most 20 a second);
  ``/soccer?replay=N`` plays finished match N back (or any recording file opened there);
- ``GET /soccer/now.json``: the current frame; ``GET /soccer/matches.json``: the matches kept;
- ``GET /soccer/recording/N.json``: match N's recording (the current one so far, too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..server import ServerApp, listen, make_app
from .recording import recording
from .udp import SoccerUDP, bind_udp, open_udp
from .world import SoccerWorld

log = logging.getLogger("wwm.soccer")
FRAME_SECONDS = 0.05  # the live view gets at most 20 frames a second


class SoccerApp:
    """ASGI: ``/soccer...`` to the view, everything else to the WWM server of the world."""

    def __init__(self, defaults: dict[str, Any], *, url: str, udp: socket.socket | None = None) -> None:
        self.inner: ServerApp = make_app(SoccerWorld, url=url, defaults=defaults)
        d = self.inner.dispatcher
        built = d.defaults if d.defaults_complete else d.arguments.build(d.raw_defaults)
        self.world = SoccerWorld(**built)
        d.runs.shared = self.world  # the one instance every New run joins
        self.udp_socket = udp  # bound before the server starts: a port in use fails there, not in it
        self.udp: SoccerUDP | None = None
        self.router = Starlette(routes=[
            Route("/soccer", self.page), Route("/soccer/", self.page),
            Route("/soccer/now.json", self.now), Route("/soccer/matches.json", self.matches),
            Route("/soccer/recording/{number:int}.json", self.recording),
            WebSocketRoute("/soccer/live", self.live),
        ], lifespan=self.lifespan)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or str(scope.get("path", "")).startswith("/soccer"):
            await self.router(scope, receive, send)
        else:
            await self.inner(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        async with self.inner.lifespan(app):
            if self.udp_socket is None:
                self.udp_socket = bind_udp("127.0.0.1", 0)
            self.udp, port = await open_udp(self.world, self.udp_socket)
            host = self.udp_socket.getsockname()[0]
            self.inner.dispatcher.bindings["udp"] = f"udp://{host}:{port}"
            clock = asyncio.get_running_loop().create_task(self._clock())
            try:
                yield
            finally:
                clock.cancel()
                self.udp.close()

    async def _clock(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(SoccerWorld.tick_seconds)
            now = time.monotonic()
            try:
                await self.world.advance(now - last)
            except Exception:
                log.exception("a soccer cycle failed")
            last = now

    # ---- the view -----------------------------------------------------------------------
    def _now(self) -> dict[str, Any]:
        w, m = self.world, self.world.match
        return {"match": w.matches, "teams": m.teams, "players": w.params.players, "half": w.params.half_cycles,
                "finished": m.finished, "frame": m.frame()}

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(resources.files(__package__).joinpath("static/soccer.html").read_text())

    async def now(self, request: Request) -> JSONResponse:
        return JSONResponse(self._now())

    async def matches(self, request: Request) -> JSONResponse:
        kept = [{"match": r["match"], "teams": r["teams"], "score": r["score"], "cycles": len(r["frames"])}
                for r in self.world.finished]
        return JSONResponse({"current": self.world.matches, "finished": kept})

    async def recording(self, request: Request) -> Response:
        number = request.path_params["number"]
        if number == self.world.matches:
            return JSONResponse(recording(self.world.match, number))
        for r in self.world.finished:
            if r["match"] == number:
                return JSONResponse(r)
        have = [r["match"] for r in self.world.finished] + [self.world.matches]
        return JSONResponse({"error": f"no match {number} is kept here; there are {have}"}, 404)

    async def live(self, ws: WebSocket) -> None:
        await ws.accept()
        sent = 0.0
        try:
            await ws.send_json(self._now())
            while True:
                await self.world.wait_cycle()
                if time.monotonic() - sent >= FRAME_SECONDS or self.world.match.finished:
                    await ws.send_json(self._now())
                    sent = time.monotonic()
        except (WebSocketDisconnect, RuntimeError, OSError):
            return


def serve_soccer(defaults: dict[str, Any], *, host: str = "127.0.0.1", port: int = 8000, udp_port: int = 0,
                 on_ready: Callable[[str], None] | None = None, log_level: str = "warning") -> None:
    """Serve a soccer world (WWM queries, UDP, view) until interrupted."""
    import uvicorn

    sock: socket.socket = listen(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}/"
    try:
        app = SoccerApp(defaults, url=url)  # the settings are checked here, then the UDP port taken
        app.udp_socket = bind_udp(host, udp_port)
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot take UDP port {udp_port}: {exc.strerror or exc}") from None
    except BaseException:
        sock.close()
        raise
    server = uvicorn.Server(uvicorn.Config(app, host=host, log_level=log_level, access_log=False, lifespan="on",
                                           ws="websockets-sansio"))
    if on_ready:
        on_ready(url)
    server.run(sockets=[sock])
