"""``wwm check``: passes conforming servers (Python, and a Node program behind serve-exec),
and fails a server that breaks the protocol, naming what it broke."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from aiohttp import web

from wwm.client.conformance import check_server
from wwm.server.process import ServerProcess, free_port

ROOT = Path(__file__).resolve().parents[2]


def wwm_check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", "check", *args], capture_output=True,
                          text=True, timeout=60, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("encoding", ["json", "xml"])
def test_conforming_python_servers_pass(encoding, probe_world, probe_mind):
    for args in ([probe_world.url, "--action", "+1"], [probe_mind.url]):  # (the session's servers)
        done = wwm_check(*args, "--encoding", encoding)
        assert done.returncode == 0, done.stdout
        assert "0 failed" in done.stdout and "FAIL" not in done.stdout


@pytest.mark.slow
def test_a_node_program_behind_serve_exec_passes():
    command = [sys.executable, "-m", "wwm.cli.main", "serve-exec", "--role", "mind", "--mode", "persistent",
               "--port", "0", "--", "node", str(ROOT / "examples/exec/mind.js")]
    with ServerProcess("node-mind", port=0, command=command) as server:  # its port read from its ready line
        done = wwm_check(server.url, "--state", "size=8 step=0 x=1 y=1 fd=2 hd=5 food=3,1 hazard=6,6")
    assert done.returncode == 0, done.stdout


class Sloppy:
    """A server that answers every POST with the same XML: a short run ID, and never a refusal."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text='<xml><response name="x"><data name="mind run ID">7</data>'
                                 '<data name="action">a</data></response></xml>', content_type="application/xml")

    def __enter__(self) -> Sloppy:
        ready = threading.Event()

        def serve() -> None:
            self.loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_post("/", self.handle)
            self.runner = web.AppRunner(app)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(5)
        return self

    def __exit__(self, *exc) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def test_a_sloppy_server_fails_with_reasons():
    with Sloppy() as sloppy:
        checks = {c.name: c for c in await check_server(sloppy.url, timeout=2)}
    assert not checks["describes itself (GET, JSON card)"].passed
    assert "short" in checks["New run"].detail                     # a guessable run ID is named
    assert not checks["a query after End run is refused"].passed
    assert not checks["unknown run ID is refused"].passed
    assert not checks["unknown query is refused"].passed
    assert not checks["malformed XML is refused"].passed


async def test_a_server_that_drops_pipelined_queries_fails_that_check_with_the_reason():
    from probes import one_read_mind_server

    server = await one_read_mind_server()
    port = server.sockets[0].getsockname()[1]
    try:
        checks = {c.name: c for c in await check_server(f"http://127.0.0.1:{port}/", timeout=0.5)}
    finally:
        server.close()
    check = checks["two queries written together are answered in order"]
    assert not check.passed and "Get current score" in check.detail and "timeout" in check.detail
    assert checks["Get action for x = x"].passed                    # the rest of what it does is fine
