"""Helpers for the portal's tests: loopback sites that answer what a test says (a hostile
card among them), the portal served over HTTP in a thread or as a ``wwm portal`` process, the
CSRF token of a page, a mind that hangs, and a visitor that posts forms."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import aiohttp
import uvicorn
from aiohttp import web

from wwm.protocol.interfaces import Mind
from wwm.protocol.results import Suggestion
from wwm.server import listen

GRID, SEEKER = "wwm.kit.grid:GridWorld", "wwm.kit.grid_minds:FoodSeeker"   # what most portal tests run
CHROMIUM = "/usr/bin/chromium"          # Debian's chromium, driven by Playwright (the chromium fixture)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


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


async def sse_messages(reply: Any) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """The server-sent events of an aiohttp ``reply``, as a browser's EventSource reads them:
    (event name, its data read as JSON), one at a time as they arrive."""
    event, data = "message", []
    async for raw in reply.content:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            yield event, json.loads("\n".join(data))
            event, data = "message", []


def world_step(state: str) -> int:
    """The grid world's own step counter, from its state (``... step=K ...``)."""
    found = re.search(r"(?:^| )step=(\d+)", state)
    assert found, f"no step counter in the state {state!r}"
    return int(found.group(1))


HANG = f"{Path(__file__)}:HangMind"   # serve with ServerProcess(HANG)


class HangMind(Mind):
    """Never answers Get action (its card and New run answer as usual)."""

    state_format: ClassVar[str] = "any"

    async def get_action(self, state: str, **_: Any) -> Suggestion:
        await asyncio.sleep(3600)
        return Suggestion("stay")


def card_of(url: str) -> dict[str, Any]:
    """The card a server publishes at its URL."""
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"})) as reply:
        return json.loads(reply.read())


class Visitor:
    """One browser: a cookie jar, and forms posted with the page's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def get(self, path: str) -> tuple[int, str]:
        async with self.session.get(self.base + path) as reply:
            return reply.status, await reply.text()

    async def post(self, page: str, path: str, fields: dict[str, str]) -> tuple[int, str, str]:
        _, html = await self.get(page)
        async with self.session.post(self.base + path, data={"csrf": csrf_of(html), **fields}) as reply:
            return reply.status, await reply.text(), str(reply.url)


SRC = Path(__file__).resolve().parents[2] / "src"


def start_portal(db: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """``wwm portal`` as a process of its own; it and its URL once it printed its ready line."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen([sys.executable, "-m", "wwm.portal", "--port", "0", "--db", db,
                              "--check-every", "0", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
    assert child.stdout is not None
    seen = []
    for line in child.stdout:
        seen.append(line)
        found = re.search(r"^serving the portal at (http://\S+?)/? ", line)
        if found:
            child.printed = seen  # type: ignore[attr-defined]
            return child, found.group(1)
    raise AssertionError(("".join(seen), child.stderr.read() if child.stderr else ""))


def run_status(store: Any, rid: int) -> str:
    """Portal run ``rid``'s status as its pages and lists show it: the run store's (the one
    place it lives), read through the store's API; the portal's own word ("starting", "could
    not start") for a run the run store does not have."""
    from wwm.store.engine import make_engine
    from wwm.store.states import read_states

    run = store.run(rid)
    if run.run_store_id is None:
        return str(run.status)
    engine = make_engine(store.url)
    try:
        with engine.connect() as conn:
            return read_states(conn, [run.run_store_id])[run.run_store_id].status
    finally:
        engine.dispose()
