"""``wwm serve-exec [--role mind|world] [--mode per-query|persistent] [--port N] -- COMMAND...``:
serve a program in any language that reads one query on stdin and writes one response on
stdout, in the XML of section 11.2.1 (section 11.4: the lowest common denominator).

The server is an ordinary ``wwm serve`` server whose per-run object is a remote Mind or World
over an exec transport (:mod:`wwm.server.exec`): clients see run IDs the server
mints; the program sees the run ID it minted itself. With ``--state`` the server snapshots
each run (the program's run ID and arguments), so a restarted server resumes per-query runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..commands import port_number
from .serve import access_of, add_access_arguments

MODES = ("per-query", "persistent")
_SERVED: dict[str, type] = {}   # the classes this process serves, by name, for snapshots


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--role", choices=("mind", "world"), default="mind",
                        help="what the program is (default: mind)")
    parser.add_argument("--mode", choices=MODES, default="per-query",
                        help="per-query: one process per query, state saved to disk (11.4.1); "
                             "persistent: one process per run (11.4.2). Default: per-query")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (0: any free port)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds the program has to answer one query (default: 10)")
    parser.add_argument("--state-dir", metavar="DIR",
                        help="the program's working directory, where it keeps state between queries "
                             "(default: a fresh temporary directory, removed at exit)")
    parser.add_argument("--state", metavar="FILE",
                        help="snapshot runs to this SQLite file so a restarted server resumes them; "
                             "a per-query program's own state stays in --state-dir (required with it), "
                             "a persistent program's run ends with its process")
    parser.add_argument("--arg", action="append", metavar="K=V", default=[],
                        help="an argument sent with every New run (a run's own arguments win)")
    parser.add_argument("--query-sets", metavar="SETS", default="",
                        help="further query sets the program answers, comma-separated "
                             "(e.g. Mind_L,Mind_i); the server refuses their queries otherwise")
    parser.add_argument("--state-format", help="how to read the state, for the server's description")
    parser.add_argument("--action-format", help="how to write an action, for the server's description")
    parser.add_argument("--public-url", help="the URL clients use, if not http://HOST:PORT/")
    parser.add_argument("--idle-timeout", type=float, default=3600.0,
                        help="drop a run (and kill its persistent program) after this many idle seconds")
    parser.add_argument("--log-level", default="warning")
    add_access_arguments(parser)
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND...",
                        help="the program and its arguments, after --")


def resolve_command(command: list[str], cwd: Path | None = None) -> list[str]:
    """The command with its program found on PATH or made absolute, and arguments that name
    existing files made absolute (the program runs in the state directory, not here)."""
    cwd = cwd or Path.cwd()
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise ValueError("no command given: put the program after --, e.g. -- sh mind.sh")
    program = command[0]
    if "/" in program:
        path = (cwd / program).resolve()
        if not path.is_file():
            raise ValueError(f"cannot find the program {program!r}")
        if not os.access(path, os.X_OK):
            raise ValueError(f"{program!r} is not executable (chmod +x it, or name its interpreter first)")
        found = str(path)
    else:
        which = shutil.which(program)
        if which is None:
            raise ValueError(f"cannot find the program {program!r} on PATH")
        found = which
    rest = [str((cwd / a).resolve()) if not a.startswith("-") and (cwd / a).is_file() else a
            for a in command[1:]]
    return [found, *rest]


def query_sets_of(role: str, extra: list[str] | tuple[str, ...]) -> frozenset[str]:
    """The query sets a served program answers: its role's own, and the ``extra`` ones."""
    from ..protocol.queries import QUERY_SETS

    sets = frozenset({"Mind" if role == "mind" else "World", *extra})
    wrong = sorted(q for q in sets if QUERY_SETS.get(q) != role)
    if wrong:
        known = ", ".join(sorted(q for q, r in QUERY_SETS.items() if r == role))
        raise ValueError(f"--query-sets: {', '.join(wrong)} is not a {role} query set (known: {known})")
    return sets


def exec_class(command: list[str], *, role: str = "mind", mode: str = "per-query",
               workdir: str | Path, timeout: float = 10.0, state_format: str | None = None,
               action_format: str | None = None, query_sets: list[str] | tuple[str, ...] = ()) -> type:
    """A Mind or World class whose every instance (one per run) speaks to ``command`` through
    an exec transport in ``mode``; the server layer serves it like any other class."""
    from ..client.remote import RemoteMind, RemoteWorld
    from ..server.exec import PerQueryTransport, PersistentTransport

    if role not in ("mind", "world"):
        raise ValueError(f"role must be 'mind' or 'world', not {role!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    base = RemoteMind if role == "mind" else RemoteWorld
    sets = query_sets_of(role, query_sets)
    transport = PerQueryTransport if mode == "per-query" else PersistentTransport
    env = {"WWM_ROLE": role, "WWM_MODE": mode}

    def __init__(self: Any, **args: Any) -> None:
        base.__init__(self, transport(command, workdir=workdir, timeout=timeout, env=env))
        self.args = args  # sent to the program with New run

    def __reduce__(self: Any) -> tuple[Callable[[str, dict[str, Any]], Any], tuple[str, dict[str, Any]]]:
        # a snapshot keeps the program's run ID, not the transport: see _restore
        return (_restore, (type(self).__name__, {"args": self.args, "run_id": self.run_id,
                                                 "display_url": self.display_url,
                                                 "client_url": self.client_url}))

    attrs: dict[str, Any] = {
        "__init__": __init__,
        "__reduce__": __reduce__,
        "__module__": __name__,
        "__doc__": f"The program `{' '.join(command)}` served {mode} (section 11.4) as a {role}; "
                   "every argument of New run is passed on to it.",
        "command": list(command),
        "mode": mode,
        "query_sets": classmethod(lambda cls: sets),
    }
    if state_format:
        attrs["state_format"] = state_format
    if action_format:
        attrs["action_format"] = action_format
    name = "Exec" + role.title() + ("PerQuery" if mode == "per-query" else "Persistent")
    cls = type(name, (base,), attrs)
    _SERVED[name] = cls
    return cls


def _restore(name: str, state: dict[str, Any]) -> Any:
    """A run taken back from a snapshot after a restart. A per-query program keeps its state
    on disk, so the run goes on under the program's run ID; a persistent program died with
    the old server, so its run answers every query with ``run-ended``."""
    from ..server.exec import PersistentTransport

    cls = _SERVED.get(name)
    if cls is None:
        raise ValueError(f"this server does not serve {name}")
    obj = cls(**state["args"])
    obj.run_id, obj.display_url, obj.client_url = state["run_id"], state["display_url"], state["client_url"]
    if isinstance(obj.transport, PersistentTransport):
        obj.transport.lost("the server restarted and the program serving this run is gone; start a new run")
    return obj


def run(args: argparse.Namespace) -> int:
    from ..commands import UsageError, cannot_listen, fail, interrupted, parse_pairs, ready_line
    from ..server import serve

    try:
        command = resolve_command(list(args.command))
        defaults = parse_pairs(args.arg)
        if args.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {args.timeout}")
        query_sets = [q.strip() for q in args.query_sets.split(",") if q.strip()]
        query_sets_of(args.role, query_sets)
        if args.state and not args.state_dir:
            raise ValueError("--state needs --state-dir too: a restarted server can only resume "
                             "runs whose program state is still where it left it")
        access = access_of(args)
    except (ValueError, UsageError) as exc:
        return fail("serve-exec", exc, 2)
    made = args.state_dir is None
    workdir = Path(tempfile.mkdtemp(prefix="wwm-exec-")) if made else Path(args.state_dir)
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return fail("serve-exec", f"cannot use --state-dir {args.state_dir}: {exc.strerror}", 2)
    cls = exec_class(command, role=args.role, mode=args.mode, workdir=workdir, timeout=args.timeout,
                     state_format=args.state_format, action_format=args.action_format,
                     query_sets=query_sets)
    typed = " ".join(args.command[1:] if args.command[:1] == ["--"] else args.command)
    try:
        serve(cls, host=args.host, port=args.port, defaults=defaults, public_url=args.public_url,
              log_level=args.log_level, idle_seconds=args.idle_timeout, state_path=args.state, access=access,
              on_ready=lambda url: ready_line(f"the {args.role} `{typed}` ({args.mode})", url))
    except OSError as exc:
        return cannot_listen("serve-exec", args.host, args.port, exc)
    except KeyboardInterrupt:
        if made:
            return interrupted("serve-exec", "stopped serving; the program's temporary state directory was removed")
        kept = f"stopped serving; the program's state is kept in {args.state_dir}"
        return interrupted("serve-exec", kept + (f" and the runs in {args.state}" if args.state else ""))
    finally:
        if made:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0
