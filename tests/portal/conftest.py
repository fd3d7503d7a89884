"""Fixtures for the portal: a throw-away PostgreSQL cluster, a fresh database on each backend
(``db_url``), real WWM servers on loopback (a world and two minds), and loopback sites that are
not good WWM servers (a hostile card, a slow one, a huge one, ...)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web
from portal_sites import CHROMIUM, CHROMIUM_ARGS, GRID, SEEKER, Site, hostile_card

from wwm.server.process import ServerProcess


@pytest.fixture
async def chromium() -> AsyncIterator[object]:
    """Debian's chromium, launched headless through Playwright for one test (a Playwright
    ``Browser``: ``await chromium.new_context(...)``); closed after it."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'portal.db'}"
    return str(request.getfixturevalue("postgres").new_schema())


@pytest.fixture(scope="module")
def world() -> Iterator[ServerProcess]:
    """A grid world of the module's own (its runs' tests may fill or restart it)."""
    with ServerProcess(GRID) as server:
        yield server


@pytest.fixture(scope="module")
def mind() -> Iterator[ServerProcess]:
    """A food-seeking mind of the module's own."""
    with ServerProcess(SEEKER) as server:
        yield server


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
