"""Fixtures for the portal: a throw-away PostgreSQL cluster, a fresh database on each backend
(``db_url``), real WWM servers on loopback (a world and two minds, and a hostile one whose
card carries HTML and script in every field), and the portal itself served over HTTP."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from aiohttp import web

from wwm.server import listen
from wwm.server.process import ServerProcess
from wwm.store.pgtemp import TempPostgres

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


@pytest.fixture(scope="session")
def postgres() -> Iterator[TempPostgres]:
    with TempPostgres() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'portal.db'}"
    return str(request.getfixturevalue("postgres").new_schema())


@pytest.fixture(scope="session")
def wwm_servers() -> Iterator[dict[str, ServerProcess]]:
    """A grid world and two minds, each a real ``wwm serve`` process."""
    servers = {"world": ServerProcess("wwm.kit.grid:GridWorld"),
               "random": ServerProcess("wwm.kit.random_mind:RandomMind"),
               "seeker": ServerProcess("wwm.kit.grid_minds:FoodSeeker")}
    for server in servers.values():
        server.start()
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


def hostile_card(url: str) -> dict[str, Any]:
    return {
        "wwm": "1.0", "role": "mind", "name": "Evil " + HOSTILE, "summary": "sum " + HOSTILE,
        "description": "desc " + HOSTILE, "url": url, "state_format": "sf " + HOSTILE,
        "action_format": "af " + HOSTILE, "query_sets": ["Mind", HOSTILE],
        "arguments": {"properties": {HOSTILE: {"type": HOSTILE, "default": HOSTILE, "title": HOSTILE}}},
        "credit_trail": {"url": url,
                         "calls": [{"url": "javascript:window.pwned=3", "queries": 1},
                                   {"url": HOSTILE, "queries": HOSTILE}],
                         "called_by": [{"url": '"><script>window.pwned=4</script>', "queries": 2}]},
    }


class Site:
    """An aiohttp site on loopback (in a thread of its own) answering what the test says."""

    def __init__(self, routes: dict[str, Any], host: str = "127.0.0.1") -> None:
        self.routes, self.host = routes, host
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        for path, handler in self.routes.items():
            app.router.add_get(path, handler)
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, self.host, 0)
        self.loop.run_until_complete(site.start())
        self.port = self.runner.addresses[0][1]
        self.ready.set()
        self.loop.run_forever()

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def __enter__(self) -> Site:
        self.thread.start()
        self.ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="session")
def odd_sites() -> Iterator[Site]:
    """Loopback answers that are not good WWM servers: a hostile card, an HTML page, JSON that
    is no card, a slow answer, a huge one, redirects (to the hostile card, in a loop)."""

    async def hostile(request: web.Request) -> web.Response:
        return web.json_response(hostile_card(str(request.url)))

    async def html(request: web.Request) -> web.Response:
        return web.Response(text="<html><body>Just a web page</body></html>", content_type="text/html")

    async def not_card(request: web.Request) -> web.Response:
        return web.json_response({"hello": "world"})

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.json_response({})

    async def huge(request: web.Request) -> web.Response:
        return web.Response(body=b"x" * 3_000_000)

    async def huge_chunked(request: web.Request) -> web.StreamResponse:
        reply = web.StreamResponse()
        await reply.prepare(request)
        for _ in range(50):
            await reply.write(b"y" * 65536)
        return reply

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound("/hostile")

    async def loop(request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    async def missing(request: web.Request) -> web.Response:
        return web.Response(status=404, text="no")

    with Site({"/hostile": hostile, "/html": html, "/not-card": not_card, "/slow": slow, "/huge": huge,
               "/huge-chunked": huge_chunked, "/redirect": redirect, "/loop": loop,
               "/missing": missing}) as site:
        yield site


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` on a free loopback port, by uvicorn in a thread; yields its URL."""
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        threading.Event().wait(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "the page has no CSRF token"
    return found.group(1)
