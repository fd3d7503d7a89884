"""The server layer: any World or Mind class served over HTTP on one URL.

``serve(cls, port=8000)`` runs it (``port=0``: any free port); ``make_app(cls, url=...)`` gives the ASGI app;
``build_at_start(cls, defaults)`` checks a server's defaults by building one instance.
The server knows nothing of any particular mind or world.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute

from ..protocol import limits
from ..protocol.arguments import build_at_start
from ..protocol.interfaces import Mind, ServedClass, World
from .access import Access
from .app import MAX_BODY, ServerApp
from .dispatch import Dispatcher
from .gate import Gate
from .runs import RunTable
from .snapshots import SnapshotFile
from .workers import Workers, supervise

__all__ = ["Access", "ServerApp", "build_at_start", "listen", "make_app", "serve"]


def make_app(cls: ServedClass, *, url: str, defaults: dict[str, Any] | None = None,
             state_path: str | Path | None = None, max_body: int = MAX_BODY,
             idle_seconds: float = 3600.0, max_runs: int = 10_000,
             tcp: tuple[str, int] | None = None, access: Access | None = None,
             workers: Workers | None = None,
             runs_per_client: int = limits.RUNS_PER_CLIENT, runs_per_address: int = limits.RUNS_PER_ADDRESS,
             connections_per_address: int = limits.CONNECTIONS_PER_ADDRESS,
             silent_seconds: float = limits.SILENT_SECONDS,
             extra_routes: Callable[[Dispatcher], list[BaseRoute]] | None = None) -> ServerApp:
    """The ASGI app serving ``cls`` at ``url``; ``extra_routes(dispatcher)``, if given, adds
    routes of a feature's own (``wwm serve NAME --a2a``: :func:`wwm.a2a.a2a_routes`)."""
    if not (isinstance(cls, type) and issubclass(cls, (World, Mind))):
        raise TypeError(f"{cls!r} is neither a wwm.World nor a wwm.Mind subclass")
    if workers is not None:  # one of `wwm serve --workers N`: its own state file and run IDs
        state_path = workers.state_path(state_path)
    snapshots = SnapshotFile(state_path) if state_path else None
    runs = RunTable(cls, max_runs=max_runs, idle_seconds=idle_seconds, snapshots=snapshots,
                    id_prefix=workers.prefix if workers is not None else "",
                    per_client=runs_per_client, per_address=runs_per_address)
    pages = cls.web_pages(url.rstrip("/") + "/pages/")  # before any instance is built: they may use them
    dispatcher = Dispatcher(cls, url=url, defaults=defaults, runs=runs, access=access)
    dispatcher.workers = workers
    return ServerApp(dispatcher, max_body=max_body, tcp=tcp, pages=pages,
                     gate=Gate(connections_per_address, silent_seconds),
                     extra_routes=extra_routes(dispatcher) if extra_routes is not None else ())


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port). Binding before the
    server starts makes a busy port an OSError here, and lets the caller say the real URL."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family, backlog=1024)
    # accepted sockets inherit it: answers on a kept-alive connection leave at once
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def serve(cls: ServedClass, *, host: str = "127.0.0.1", port: int = 8000,
          defaults: dict[str, Any] | None = None, state_path: str | Path | None = None,
          public_url: str | None = None, log_level: str = "warning", http: str = "uvicorn",
          tcp_port: int | None = None, on_ready: Callable[[str], None] | None = None,
          workers: int = 1, **options: Any) -> None:
    """Serve ``cls`` until interrupted; ``port=0`` takes any free port. ``on_ready(url)`` is
    called once the port is bound, so a client connecting after it is never refused.

    ``http="uvicorn"`` (the default: httptools, uvloop, and the WebSocket binding of
    :mod:`.websocket` taking upgraded connections over) answers one client's sequential
    queries fastest; ``http="granian"`` runs the app on Granian's embedded server,
    which carries more concurrent clients (``benchmarks/network.py`` measures both).

    ``workers=N`` (more than 1) serves from N processes on the one port, each run kept on the
    worker that opened it (:mod:`.workers`): uvicorn only, an own-copy class only (a shared or
    exclusive world is one object), no TCP binding.
    """
    if http not in ("uvicorn", "granian"):
        raise ValueError(f"http must be 'granian' or 'uvicorn', not {http!r}")
    if workers > 1:
        _check_workers(cls, http, tcp_port)
    sock = listen(host, port)
    port = sock.getsockname()[1]
    url = public_url or f"http://{host}:{port}/"
    tcp = (host, tcp_port) if tcp_port is not None else None  # port 0: any free port
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    if workers > 1:
        import tempfile

        def serve_one(worker: Workers) -> None:
            app = make_app(cls, url=url, defaults=defaults, state_path=state_path, workers=worker, **options)
            _serve_uvicorn(app, [sock, worker.http_socket()], host, port, log_level)

        with tempfile.TemporaryDirectory(prefix="wwm-workers-") as folder:
            supervise(workers, serve_one, folder, on_ready=(lambda: on_ready(url)) if on_ready else None)
        return
    app = make_app(cls, url=url, defaults=defaults, state_path=state_path, tcp=tcp, **options)
    if http == "granian":
        sock.close()  # Granian's embedded server binds by address and port itself
        if on_ready:
            on_ready(url)
        _serve_granian(app, host, port, log_level)
        return
    if on_ready:
        on_ready(url)
    _serve_uvicorn(app, [sock], host, port, log_level)


def _check_workers(cls: ServedClass, http: str, tcp_port: int | None) -> None:
    """Refuse what ``workers=N`` cannot serve, saying why (ValueError)."""
    sharing = getattr(cls, "sharing", "own") if issubclass(cls, World) else "own"
    if sharing != "own":
        raise ValueError(f"{cls.__name__} is a {sharing} world, one object for every client: "
                         "it is served by one process (no --workers)")
    if http != "uvicorn":
        raise ValueError("--workers runs uvicorn workers (not --http granian)")
    if tcp_port is not None:
        raise ValueError("--workers does not offer the TCP binding (no --tcp-port); the WebSocket one is offered")


def _serve_uvicorn(app: ServerApp, sockets: list[socket.socket], host: str, port: int, log_level: str) -> None:
    import uvicorn

    from .http import bounded_http
    from .websocket import WebSocketBinding

    server = uvicorn.Server(uvicorn.Config(
        app, host=host, port=port, log_level=log_level, access_log=False, lifespan="on",
        http=bounded_http(app.gate),  # (uvicorn's httptools protocol, bounded: .http)
        ws=WebSocketBinding.for_uvicorn(app.dispatcher, app.max_body, app.gate), timeout_keep_alive=30,
        proxy_headers=False))  # no client address is used: the query names its client
    server.run(sockets=sockets)


def _serve_granian(app: ServerApp, host: str, port: int, log_level: str) -> None:
    import asyncio
    import signal

    from granian.constants import Interfaces
    from granian.log import LogLevels
    from granian.server.embed import Server

    level = LogLevels(log_level.lower()) if log_level.lower() in LogLevels._value2member_map_ else LogLevels.warning
    if level in (LogLevels.warning, LogLevels.warn, LogLevels.info):  # hide "embedded server is experimental"
        level = LogLevels.error

    async def main() -> None:
        server = Server(app, address=host, port=port, interface=Interfaces.ASGI, websockets=True,
                        log_level=level, log_access=False, backlog=1024)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop)
        await server.serve()

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
