"""``wwm portal``: serve the portal (section 12.2.1) on one port, on an SQLite file by default
(``portal.db`` beside the run store's ``runs.db``) or PostgreSQL with ``--db``. ``--public``
refuses to fetch private addresses and marks the cookie Secure (serve it behind HTTPS).
``--demo`` also starts the servers of ``wwm demo`` on loopback (a grid World, three Minds, a
Mind_M that calls two of them), registers them and saves the demo's societies as
combinations, so the portal is populated at once; the servers stop with the portal, and come
back on the same ports at its next start, so the demo's servers and combinations (their links,
runs and Top 10s) stay good across restarts."""

from __future__ import annotations

import argparse
import signal
from typing import TYPE_CHECKING, Any

from ..commands import cannot_listen, fail, interrupted, port_number, ready_line, whole_number

if TYPE_CHECKING:
    from ..server.process import ServerProcess
    from .store import PortalStore

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


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, not {text!r}")
    return value


def _addresses(text: str) -> str:
    """A comma-separated list of IP addresses or networks (``*``: any), as uvicorn trusts them."""
    import ipaddress

    for item in text.split(","):
        if item.strip() != "*":
            try:
                ipaddress.ip_network(item.strip(), strict=False)
            except ValueError:
                raise argparse.ArgumentTypeError(f"expected IP addresses or networks separated by commas, "
                                                 f"not {item.strip()!r}") from None
    return text


def _origin(text: str) -> str:
    """``scheme://host[:port]`` of the portal as browsers reach it."""
    from .origins import canonical_origin

    found = canonical_origin(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"expected the portal's origin as browsers reach it, such as "
                                         f"https://portal.example.org, not {text!r}")
    return found


def _rate_limit(text: str) -> tuple[str, Any]:
    from .ratelimits import parse_limit

    try:
        return parse_limit(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=8080, help="port (default 8080; 0: any free port)")
    parser.add_argument("--db", metavar="URL", help=DB_HELP)
    parser.add_argument("--public", action="store_true",
                        help="a public portal: never fetch loopback, private, link-local or reserved "
                             "addresses; Secure cookies")
    parser.add_argument("--demo", action="store_true",
                        help="also start the demo's servers (wwm demo's), register them and save the demo "
                             "societies as combinations, ready to run")
    parser.add_argument("--end-runs-on-exit", action="store_true",
                        help="on Ctrl-C or SIGTERM, end the runs in progress (End run to their servers, "
                             "'interrupted at step k'); by default they are suspended and resume at the next start")
    parser.add_argument("--check-every", type=_seconds, default=300.0, metavar="SECONDS",
                        help="seconds between checks of every registered server (default 300; 0: never)")
    parser.add_argument("--proxy", type=_addresses, metavar="ADDRESSES",
                        help="the reverse proxy in front of the portal (its addresses or networks, comma-separated): "
                             "its X-Forwarded-For header names the client, whose address sign-in failures are "
                             "counted by; without it the header is ignored (anyone could send one)")
    parser.add_argument("--origin", type=_origin, metavar="URL",
                        help="the portal's own origin as browsers reach it (https://portal.example.org): the only "
                             "one a form may be posted from; by default the request's own scheme and Host")
    parser.add_argument("--rate-limit", type=_rate_limit, action="append", default=[], metavar="ACTION=N/SECONDS",
                        help="how often one client address may do ACTION: N at once, then N per SECONDS (repeatable; "
                             "actions: signup 5/600, signin 10/60, register 20/600, compose 60/600, run 20/600, "
                             "search 5/600, challenge 10/600, entry 20/600, recover 10/600, identity 20/600)")
    parser.add_argument("--name-failures", type=whole_number, default=5, metavar="N",
                        help="failed sign-ins for one username before it is refused for a while (default 5)")
    parser.add_argument("--address-failures", type=_count, default=20, metavar="N",
                        help="failed sign-ins from one client address before it is refused for a while "
                             "(default 20; 0: addresses not counted, say behind a proxy not given by --proxy)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server import listen
    from ..store.engine import StoreError
    from .app import make_app
    from .ratelimits import RateLimits
    from .signins import SigninLimits
    from .store import PortalStore

    try:
        store = PortalStore(args.db)
    except StoreError as exc:
        return fail("portal", exc)
    demo_servers: list[ServerProcess] = []  # (stopped in the finally below, whatever failed first)
    try:
        try:
            sock = listen(args.host, args.port)
        except OSError as exc:
            return cannot_listen("portal", args.host, args.port, exc)
        port = sock.getsockname()[1]
        host = f"[{args.host}]" if ":" in args.host else args.host
        if args.demo:
            try:
                demo_servers = start_demo(store, quiet=getattr(args, "quiet", False))
            except (RuntimeError, TimeoutError, OSError) as exc:
                return fail("portal", f"a demo server did not start: {exc}")
        app = make_app(store, public=args.public, check_every=args.check_every,
                       end_runs_on_exit=args.end_runs_on_exit, origin=args.origin,
                       rate_limits=RateLimits(dict(args.rate_limit)),
                       signin_limits=SigninLimits(name_free=args.name_failures, address_free=args.address_failures))
        # the client's address: the connection's, or the trusted proxy's X-Forwarded-For
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                               proxy_headers=args.proxy is not None,
                                               forwarded_allow_ips=args.proxy))
        ready_line("the portal", f"http://{host}:{port}/")
        # uvicorn stops gracefully on SIGTERM, then raises the signal again: this handler makes
        # that an exit through the ``finally`` below (the demo's servers stop with the portal).
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            return interrupted("portal", "the portal stopped; its database keeps everything it stored")
        return 0
    finally:
        for demo_server in demo_servers:
            demo_server.stop()
        store.close()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(0)


DEMO_SETTING = "demo"  # the last demo's ports and author, kept in the portal's settings


def start_demo(store: PortalStore, *, quiet: bool = False, seed: int = 1,
               steps: int = 100_000) -> list[ServerProcess]:
    """Start the demo's servers, register each in ``store`` (a PortalStore) with its card, save
    the demo societies as combinations by an anonymous "demo" author; the servers, to stop.

    The servers come back on the ports the last demo of this database used, so the servers it
    registered and the combinations it saved (immutable, linked to, run, ranked) stay good
    across restarts: nothing is registered or saved twice. A port something else took since
    is replaced by a free one, and the societies on the new URL are saved anew."""
    import json

    from ..client.cards import fetch_card_sync
    from ..kit import demo

    last = _last_demo(store)
    servers: dict[str, Any] = {}
    try:
        for name, target in demo.SERVERS.items():
            servers[name] = _demo_server(target, last["ports"].get(name))
        urls = {name: server.url for name, server in servers.items()}
        for url in urls.values():
            if store.server_by_url(url) is None:
                store.add_server(url, fetch_card_sync(url))
        author = last["author"] if last["author"] is not None else store.new_user().user.id
        saved_before = {_canonical(c.document): c for c in store.combinations_by(author)}
        world = demo.world(urls, seed=seed, steps=steps)
        for name, mind in demo.societies(urls, seed=seed):
            document = {"name": name, "world": world, "mind": mind, "run": {"timeout": 5.0}}
            saved = saved_before.get(_canonical(document)) or store.save_combination(
                author_id=author, title=f"Demo: {name} in the grid world", world_url=urls["world"],
                explanation=f"The society of `wwm demo` with {name}, on servers this portal started.",
                document=document)
            if not quiet:
                print(f"demo combination {saved.id}: {saved.title} (/combination/{saved.id})", flush=True)
        store.set_setting(DEMO_SETTING, json.dumps(
            {"ports": {name: server.port for name, server in servers.items()}, "author": author}))
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    return list(servers.values())


def _last_demo(store: PortalStore) -> dict[str, Any]:
    """The ports and the author of the last demo on this database (none: empty)."""
    import json

    from .store import NotFound

    try:
        last = json.loads(store.setting(DEMO_SETTING) or "{}")
        ports = {str(k): int(v) for k, v in last.get("ports", {}).items()}
        author = last.get("author")
        if author is not None:
            store.user(int(author))
    except (ValueError, TypeError, AttributeError, NotFound):  # unreadable, or its author is gone
        return {"ports": {}, "author": None}
    return {"ports": ports, "author": None if author is None else int(author)}


def _demo_server(target: str, port: int | None) -> ServerProcess:
    """A demo server started on ``port`` if that port is free, else on any free port."""
    import socket

    from ..server.process import ServerProcess

    if port is not None:
        with socket.socket() as probe:
            # as the server will bind: connections of the last demo waiting out TIME_WAIT on
            # this port do not make it taken; a socket listening there does
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                port = None  # taken since: the demo's server moves
    return ServerProcess(target, port=port).start()


def _canonical(document: Any) -> str:
    import json

    return json.dumps(document, sort_keys=True)
