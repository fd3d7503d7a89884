"""``wwm portal``: serve the portal (section 12.2.1) on one port, on an SQLite file by default
(``portal.db`` beside the run store's ``runs.db``) or PostgreSQL with ``--db``. ``--public``
refuses to fetch private addresses and marks the cookie Secure (serve it behind HTTPS)."""

from __future__ import annotations

import argparse

from ..commands import fail, interrupted, port_number, ready_line

DB_HELP = ("SQLAlchemy URL of the portal's database (default: $WWM_PORTAL_DATABASE_URL, else the "
           "SQLite file ~/.local/share/wwm/portal.db)")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0 (0: never), not {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=8080, help="port (default 8080; 0: any free port)")
    parser.add_argument("--db", metavar="URL", help=DB_HELP)
    parser.add_argument("--public", action="store_true",
                        help="a public portal: never fetch loopback, private, link-local or reserved "
                             "addresses; Secure cookies")
    parser.add_argument("--check-every", type=_seconds, default=300.0, metavar="SECONDS",
                        help="seconds between checks of every registered server (default 300; 0: never)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server import listen
    from ..store.engine import StoreError
    from .app import make_app
    from .store import PortalStore

    try:
        store = PortalStore(args.db)
    except StoreError as exc:
        return fail("portal", exc)
    try:
        try:
            sock = listen(args.host, args.port)
        except OSError as exc:
            return fail("portal", f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        port = sock.getsockname()[1]
        host = f"[{args.host}]" if ":" in args.host else args.host
        app = make_app(store, public=args.public, check_every=args.check_every)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                               proxy_headers=False))
        ready_line("the portal", f"http://{host}:{port}/")
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            return interrupted("portal", "the portal stopped; its database keeps everything it stored")
        return 0
    finally:
        store.close()
