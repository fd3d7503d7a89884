"""``wwm serve module:Class --port N [--arg k=v ...]``: serve a World or Mind class."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..commands import port_number
from ..protocol import limits

if TYPE_CHECKING:
    from ..protocol.interfaces import ServedClass
    from ..server.access import Access


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="the class to serve: a name from `wwm list` (grid, random, ...), "
                                       "module:Class or file.py:Class, or gym:<Gymnasium env id> "
                                       "(--arg goes to gymnasium.make, but seed), or sb3:<algo> MODEL.zip "
                                       "(a Stable-Baselines3 policy as a Mind: ppo, dqn, a2c, sac, td3, ddpg)")
    parser.add_argument("model", nargs="?", help="for sb3:<algo>: the model file that model.save wrote")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (0: any free port)")
    parser.add_argument("--arg", action="append", metavar="K=V", default=[],
                        help="a default argument for every run (a run's own New run arguments win)")
    parser.add_argument("--state", metavar="FILE",
                        help="snapshot own-copy runs (and keep the credit trail) in this SQLite file, so a "
                             "restarted server resumes them (and publishes the same trail)")
    parser.add_argument("--public-url", help="the URL clients use, if not http://HOST:PORT/")
    parser.add_argument("--max-body", type=int, default=1 << 20, help="largest message accepted, in bytes")
    parser.add_argument("--idle-timeout", type=float, default=3600.0,
                        help="drop a run after this many seconds without a query")
    parser.add_argument("--max-runs", type=int, default=limits.RUNS,
                        help="runs in progress at once (a New run past it is refused busy)")
    parser.add_argument("--runs-per-client", type=int, default=limits.RUNS_PER_CLIENT,
                        help="runs in progress per client URL; a client's New run past it ends that "
                             "client's least recently queried run")
    parser.add_argument("--runs-per-address", type=int, default=limits.RUNS_PER_ADDRESS,
                        help="runs in progress per network address, whatever client URLs they give; a New run "
                             "past it ends that address's least recently queried run")
    parser.add_argument("--connections-per-address", type=int, default=limits.CONNECTIONS_PER_ADDRESS,
                        help="open connections from one network address (more are refused)")
    parser.add_argument("--silent-timeout", type=float, default=limits.SILENT_SECONDS,
                        help="close a connection that sends no whole request within this many seconds")
    parser.add_argument("--tcp-port", type=port_number,
                        help="also offer the plain TCP binding (length-prefixed frames) on this port "
                             "(0: any free port, named in the server's card)")
    parser.add_argument("--http", choices=["uvicorn", "granian"], default="uvicorn",
                        help="the HTTP server underneath: uvicorn answers one client fastest, "
                             "granian carries more concurrent clients (benchmarks/network.py)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="answer from N processes on the one port, each run kept on the worker that "
                             "opened it (its run ID names it; own-copy classes, uvicorn, no --tcp-port): "
                             "a server that uses N cores")
    parser.add_argument("--a2a", action="store_true",
                        help="a mind only: also answer as an A2A agent (its Agent Card at "
                             "/.well-known/agent-card.json, SendMessage at /a2a; the optional extra a2a)")
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"],
                        help="how much the server logs")
    add_access_arguments(parser)


def add_access_arguments(parser: argparse.ArgumentParser) -> None:
    """The owner's rules of who may use the server (section 4.3; :mod:`wwm.server.access`)."""
    parser.add_argument("--allow-clients", action="append", metavar="PATTERNS",
                        help="serve only clients whose client URL matches one of these comma-separated "
                             "shell patterns (e.g. 'http://10.0.0.*,urn:wwm:client:*'); others are refused "
                             "with client-blocked")
    parser.add_argument("--block-clients", action="append", metavar="PATTERNS",
                        help="refuse clients whose client URL matches one of these comma-separated shell "
                             "patterns (client-blocked); a block wins over --allow-clients")
    parser.add_argument("--token-file", metavar="FILE",
                        help="a file holding a secret each query must carry as its item 'access token' "
                             "(wwm run --token-file, connect(url, token=...)); else authentication-required")


def access_of(args: argparse.Namespace) -> Access | None:
    """The rules the access options give (None: anyone may use the server); UsageError when
    the token file cannot be used."""
    from ..commands import UsageError
    from ..server.access import Access

    try:
        return Access.from_options(args.allow_clients, args.block_clients, args.token_file)
    except ValueError as exc:
        raise UsageError(f"--token-file: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from ..commands import UsageError, cannot_listen, fail, load_target, parse_pairs, ready_line
    from ..protocol.interfaces import Mind, World
    from ..server import build_at_start, serve

    try:
        defaults = parse_pairs(args.arg)
        target: object
        if args.model is not None and not args.target.startswith("sb3:"):
            raise UsageError(f"a model file ({args.model}) goes with sb3:<algo> only")
        if args.target.startswith("gym:"):  # a Gymnasium environment: --arg goes to gymnasium.make
            target, defaults = gym_target(args.target[4:], defaults)
        elif args.target.startswith("sb3:"):  # a trained policy: --arg goes to New run (world=URL)
            target = sb3_target(args.target[4:], args.model)
        else:
            target = named_class(args.target) if ":" not in args.target else load_target(args.target)
        if not (isinstance(target, type) and issubclass(target, (World, Mind))):
            raise UsageError(f"{args.target} is neither a wwm.World nor a wwm.Mind subclass")
        cls: ServedClass = target
        access = access_of(args)
        if args.workers < 1:
            raise UsageError(f"--workers must be 1 or more, not {args.workers}")
        if args.a2a and args.workers > 1:  # an A2A context's run lives in one process
            raise UsageError("--a2a is served by one process (no --workers)")
        extra = a2a_of(cls, args.max_body) if args.a2a else {}
    except UsageError as exc:
        return fail("serve", exc, 2)
    from ..protocol.errors import Refusal

    try:
        # one throwaway instance with the defaults, so a value the constructor rejects stops
        # the server now (own-copy classes that allow it: see protocol.arguments.build_at_start)
        build_at_start(cls, defaults)
        serve(cls, host=args.host, port=args.port, defaults=defaults, state_path=args.state,
              public_url=args.public_url, log_level=args.log_level, max_body=args.max_body,
              idle_seconds=args.idle_timeout, tcp_port=args.tcp_port, http=args.http, access=access,
              workers=args.workers, **extra,
              max_runs=args.max_runs, runs_per_client=args.runs_per_client,
              runs_per_address=args.runs_per_address,
              connections_per_address=args.connections_per_address, silent_seconds=args.silent_timeout,
              on_ready=lambda url: ready_line(f"the {cls.role} {cls.__name__}", url))
    except Refusal as exc:
        return fail("serve", f"bad --arg: {exc.text}", 2)
    except ValueError as exc:  # (what --workers cannot serve)
        return fail("serve", str(exc), 2)
    except OSError as exc:
        return cannot_listen("serve", args.host, args.port, exc)
    return 0


def a2a_of(cls: ServedClass, max_body: int) -> dict[str, object]:
    """``--a2a``: the option that adds the A2A routes (:mod:`wwm.a2a`) to a Mind server, or a
    UsageError saying why it cannot."""
    import functools

    from ..commands import UsageError
    from ..protocol.interfaces import Mind

    if not issubclass(cls, Mind):
        raise UsageError(f"--a2a makes a mind an A2A agent; {cls.__name__} is a world")
    try:
        from ..a2a import a2a_routes
    except ImportError as exc:
        raise UsageError(f"--a2a needs the optional extra: pip install 'world-wide-mind[a2a]' ({exc})") from None
    return {"extra_routes": functools.partial(a2a_routes, max_body=max_body)}


def named_class(name: str) -> ServedClass:
    """The world or mind registered as ``name`` (``wwm list``), or a UsageError naming the
    closest names."""
    import difflib

    from ..commands import UsageError
    from ..registry import MINDS, WORLDS, PluginError, UnknownName

    for registry in (WORLDS, MINDS):
        try:
            return registry.lookup(name)
        except UnknownName:
            continue
        except PluginError as exc:
            raise UsageError(str(exc)) from None
    close = difflib.get_close_matches(name, [*WORLDS, *MINDS], n=3, cutoff=0.6)
    guess = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise UsageError(f"no world or mind is called {name!r}{guess} (`wwm list` names them all; "
                     f"module:Class or file.py:Class serves your own)")


def gym_target(env_id: str, pairs: dict[str, str]) -> tuple[ServedClass, dict[str, str]]:
    """``gym:<env id>``: the World class serving that Gymnasium environment (made with the
    --arg values, typed as JSON where they parse), and the defaults left for New run (seed)."""
    import json

    from ..commands import UsageError

    try:
        from ..gym.served import gym_world
    except ImportError as exc:
        raise UsageError(f"gym: needs the optional extra: pip install 'world-wide-mind[gym]' ({exc})") from None

    def typed(text: str) -> object:
        try:
            return json.loads(text)
        except ValueError:
            return text

    make_kwargs = {k: typed(v) for k, v in pairs.items() if k != "seed"}
    try:
        cls = gym_world(env_id, **make_kwargs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return cls, {k: v for k, v in pairs.items() if k == "seed"}


def sb3_target(algo: str, model: str | None) -> ServedClass:
    """``sb3:<algo> MODEL.zip``: the Mind class serving that saved Stable-Baselines3 policy."""
    from ..commands import UsageError

    if model is None:
        raise UsageError(f"sb3:{algo} needs the model file: wwm serve sb3:{algo or 'ppo'} MODEL.zip")
    try:
        from ..gym.sb3 import PolicyError, policy_mind
    except ImportError as exc:
        raise UsageError(f"sb3: needs the optional extra: pip install 'world-wide-mind[sb3]' ({exc})") from None
    try:
        return policy_mind(algo, model)
    except PolicyError as exc:
        raise UsageError(str(exc)) from None
