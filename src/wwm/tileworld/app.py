"""The browser view: a small Starlette app that starts games, streams them live, plays back
recordings.

``GET /`` is the page (static HTML and script, ``static/index.html``; what it shows it asks
for by ``/api/...``), ``GET /favicon.ico`` the icon every wwm server shows;
``POST /api/start`` starts a configured game whose robots are built-in
agents, agent programs attached through the proxy by magic string, or robots driven from a
browser page (``browser``: a person's keys on this page, or the JavaScript agent of the editor
page ``GET /editor``, run as a Web Worker; the page takes its robot over the
``/api/robot/{name}`` WebSocket, :mod:`.seats`); ``POST /api/pause``
pauses and resumes it; ``GET /api/view`` and the ``/api/live`` WebSocket give the observer
view, and with ``?agent=ID`` also what robot ID sees (``seen``: the last full percept it was
sent, its partial window under partial observability), which the page draws instead of the
whole world (``/?agent=ID``, or its "view" menu); ``/api/recordings`` lists saved runs and
returns one as frames for playback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from importlib import resources
from pathlib import Path
from typing import Any, overload

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..paths import results
from ..server.pages import icon
from . import percepts
from .agents import BUILTIN, make_agent
from .config import Config, ConfigError
from .engine import Engine
from .links import BuiltinLink, Link, LinkClosed, ProxyLink
from .live import Game
from .recording import Recording, RecordingError, frames
from .seats import WAITING, Page, Seats, check_seat, error_line

PAGE = resources.files(__package__) / "static" / "index.html"   # shipped in the package, found wherever it is
EDITOR = resources.files(__package__) / "static" / "editor.html"
_NAME = re.compile(r"^[\w.-]+\.json$")


class Hub:
    """The one game this page shows, its watchers and the saved recordings."""

    def __init__(self, proxy_url: str | None, recordings: Path) -> None:
        self.proxy_url = proxy_url
        self.recordings = recordings
        self.game: Game | None = None
        self.task: asyncio.Task[None] | None = None
        self.saved: str | None = None
        self.version = 0
        self.changed = asyncio.Event()
        self.seats = Seats()

    def touch(self, _game: Game | None = None) -> None:
        self.version += 1
        self.changed.set()

    def snapshot(self, agent: int | None = None) -> dict[str, Any]:
        """What the page draws; with ``agent``, also what that robot sees (``seen``)."""
        game = self.game
        if game is None:
            return {"status": "idle", "view": None, "errors": [], "recording": self.saved, "version": self.version,
                    **({"seen": None} if agent is not None else {})}
        out = {"status": game.status, "view": percepts.observer_view(game.engine), "errors": game.errors,
               "mode": game.mode, "recording": self.saved, "version": self.version,
               "robots": [link.name for link in game.links]}
        if agent is not None:
            if not 0 <= agent < len(game.links):
                out["seen_error"] = f"no robot {agent}: this game has robots 0 to {len(game.links) - 1}"
            out["seen"] = game.seen.get(agent)
        return out

    def links(self, specs: Any, config: Config) -> list[Link]:
        if not isinstance(specs, list) or len(specs) != config.agents:
            raise ValueError(f"give one agent per robot: {config.agents} expected")
        out: list[Link | str] = []   # a str: the seat of a browser robot, made once all are checked
        for i, spec in enumerate(specs):
            kind = spec.get("kind") if isinstance(spec, dict) else None
            if kind == "builtin":
                out.append(BuiltinLink(make_agent(str(spec.get("name")), seed=config.seed + i), str(spec.get("name"))))
            elif kind == "proxy":
                magic = str(spec.get("magic", "")).strip()
                if not magic:
                    raise ValueError(f"robot {i}: a proxy agent needs a magic string")
                if not self.proxy_url:
                    raise ValueError("this server runs without a proxy: start it with --proxy-port")
                out.append(ProxyLink(self.proxy_url, magic))
            elif kind == "browser":
                try:
                    seat = check_seat(spec.get("name"))
                except ValueError as exc:
                    raise ValueError(f"robot {i}: {exc}") from None
                if seat in out:
                    raise ValueError(f"robot {i}: two browser robots are named {seat!r}; give each its own name")
                out.append(seat)
            else:
                raise ValueError(f"robot {i}: kind must be 'builtin' (name: {', '.join(BUILTIN)}), 'proxy' (magic) "
                                 f"or 'browser' (name: the seat a page takes)")
        return [self.seats.robot(link) if isinstance(link, str) else link for link in out]

    async def start(self, body: dict[str, Any]) -> None:
        """Check the new game completely, then stop the one running and start it."""
        config = Config.from_dict(body.get("config") or {})
        links = self.links(body.get("agents"), config)
        try:
            interval = _number(body, "interval", None)
            game = Game(config, links, mode=body.get("mode", "realtime"), speed=_number(body, "speed", 1.0),
                        action_timeout=_number(body, "action_timeout", 10.0), on_change=self.touch,
                        interval=interval / 1000 if interval else None)
        except (TypeError, ValueError):
            for link in links:   # browser robots give their seats back
                await link.close()
            raise
        await self.stop()
        self.game, self.saved = game, None
        self.task = asyncio.create_task(self._play(game))
        self.touch()

    async def _play(self, game: Game) -> None:
        try:
            await game.run()
        except LinkClosed:
            pass
        finally:
            if game.engine.log:
                name = f"tworld-{time.strftime('%Y%m%d-%H%M%S')}-seed{game.config.seed}.json"
                try:
                    game.save(self.recordings / name)
                    self.saved = name
                except OSError as exc:  # shown on the page with the game's other errors
                    game.errors.append(f"the recording was not saved: {exc}")
            self.touch()

    async def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        self.task = None


def _agent(params: Any) -> int | None:
    """The ``agent`` query parameter (a robot id), None when absent; ValueError says why not."""
    text = params.get("agent")
    if text is None or text == "":
        return None
    if not text.isdigit():
        raise ValueError(f"agent must be a robot id (0, 1, ...), got {text!r}")
    return int(text)


async def _until_closed(ws: WebSocket) -> None:
    """Return when the watcher's WebSocket closes (the page sends nothing else)."""
    while (await ws.receive())["type"] != "websocket.disconnect":
        pass


@overload
def _number(body: dict[str, Any], key: str, default: float) -> float: ...
@overload
def _number(body: dict[str, Any], key: str, default: None) -> float | None: ...


def _number(body: dict[str, Any], key: str, default: float | None) -> float | None:
    """A number from the start request, or a TypeError naming the field."""
    value = body.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{key} must be a number, got {value!r}")
    return float(value)


class Handlers:
    """The page's HTTP and WebSocket handlers, one method each, over the one :class:`Hub`."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def routes(self) -> list[BaseRoute]:
        return [Route("/", self.page), Route("/editor", self.editor), Route("/favicon.ico", self.favicon),
                Route("/api/defaults", self.defaults),
                Route("/api/start", self.start, methods=["POST"]),
                Route("/api/stop", self.stop, methods=["POST"]), Route("/api/pause", self.pause, methods=["POST"]),
                Route("/api/view", self.view),
                Route("/api/preview", self.preview, methods=["POST"]), WebSocketRoute("/api/live", self.live),
                WebSocketRoute("/api/robot/{name}", self.robot),
                Route("/api/recordings", self.recordings_list), Route("/api/recordings/{name}", self.recording)]

    async def page(self, _: Request) -> Response:
        return HTMLResponse(PAGE.read_text(encoding="utf-8"))

    async def editor(self, _: Request) -> Response:
        return HTMLResponse(EDITOR.read_text(encoding="utf-8"))

    async def favicon(self, _: Request) -> Response:
        return Response(icon(), media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"})

    async def defaults(self, _: Request) -> Response:
        return JSONResponse({"config": Config(end={"neutral": {"time": 120}}).to_dict(), "agents": list(BUILTIN),
                             "proxy": self.hub.proxy_url})

    async def start(self, request: Request) -> Response:
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise TypeError("the body must be a JSON object with config and agents")
            await self.hub.start(body)
        except json.JSONDecodeError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        except (ConfigError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(self.hub.snapshot())

    async def stop(self, _: Request) -> Response:
        await self.hub.stop()
        return JSONResponse(self.hub.snapshot())

    async def pause(self, request: Request) -> Response:
        try:
            body = await request.json()
            on = body["on"]
            if not isinstance(on, bool):
                raise TypeError
        except (json.JSONDecodeError, KeyError, TypeError):
            return JSONResponse({"error": 'send {"on": true} or {"on": false}'}, status_code=400)
        if self.hub.game is not None:
            await self.hub.game.pause(on)
        return JSONResponse(self.hub.snapshot())

    async def view(self, request: Request) -> Response:
        try:
            agent = _agent(request.query_params)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        snapshot = self.hub.snapshot(agent)
        if "seen_error" in snapshot:
            return JSONResponse({"error": snapshot["seen_error"]}, status_code=404)
        return JSONResponse(snapshot)

    async def preview(self, request: Request) -> Response:
        """The first frame of a config, drawn before anyone starts it."""
        try:
            config = Config.from_dict(await request.json())
            return JSONResponse(percepts.observer_view(Engine(config)))
        except (ConfigError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    async def live(self, ws: WebSocket) -> None:
        hub = self.hub
        try:
            agent = _agent(ws.query_params)
        except ValueError:
            agent = None  # the page asks /api/view first, which names the problem
        await ws.accept()
        gone = asyncio.ensure_future(_until_closed(ws))  # a watcher that left, or a server shutting down
        seen = -1
        try:
            while not gone.done():
                hub.changed.clear()  # before looking, so a change made meanwhile still wakes us
                if hub.version != seen:
                    seen = hub.version
                    await ws.send_text(json.dumps(hub.snapshot(agent)))
                changed = asyncio.ensure_future(hub.changed.wait())
                await asyncio.wait({changed, gone}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                await asyncio.sleep(0.05)  # at most ~20 frames a second
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            gone.cancel()

    async def robot(self, ws: WebSocket) -> None:
        """A page takes a browser robot's seat: percept lines out, action strings in."""
        await ws.accept()
        try:
            page = Page(check_seat(ws.path_params["name"]))
            self.hub.seats.arrive(page)
        except ValueError as exc:
            await ws.send_text(error_line(str(exc)))
            await ws.close(1008)
            return
        if page.link is None:
            await ws.send_text(WAITING)
        tasks = [asyncio.ensure_future(_pump(ws, page)), asyncio.ensure_future(_listen(ws, page))]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.hub.seats.leave(page)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.close(1000)

    async def recordings_list(self, _: Request) -> Response:
        folder = self.hub.recordings
        names = sorted((p.name for p in folder.glob("*.json")), reverse=True) if folder.exists() else []
        return JSONResponse({"recordings": names})

    async def recording(self, request: Request) -> Response:
        name = request.path_params["name"]
        path = self.hub.recordings / name
        if not _NAME.match(name) or not path.is_file():
            return JSONResponse({"error": f"no recording named {name!r}"}, status_code=404)
        try:
            return JSONResponse({"name": name, "frames": frames(Recording.load(path))})
        except (RecordingError, ConfigError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=422)


async def _pump(ws: WebSocket, page: Page) -> None:
    """A browser robot's lines to its page, in order; None closes."""
    while (line := await page.outgoing.get()) is not None:
        await ws.send_text(line)


async def _listen(ws: WebSocket, page: Page) -> None:
    """The page's actions to its browser robot, until the page goes."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        page.take(message.get("text") or (message.get("bytes") or b"").decode("utf-8", "replace"))


def create_app(proxy_url: str | None = None, recordings: str | Path | None = None) -> Starlette:
    """The T-World page's app; recordings go to ``recordings``, by default wwm's data folder's
    ``tworld-recordings`` (:func:`wwm.paths.results`)."""
    hub = Hub(proxy_url, Path(recordings) if recordings is not None else results("tworld-recordings"))
    app = Starlette(routes=Handlers(hub).routes())
    app.state.hub = hub
    return app
