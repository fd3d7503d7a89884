"""The ``wwm`` commands: :data:`COMMANDS`, the registry of them, and the small helpers every
command module shares (loading ``module:Class`` and ``k=v`` args, and the conventions of
docs/cli.md: one-line errors, exit statuses, the line a server prints when it is ready).

A command is a module with ``add_arguments(parser)`` and ``run(args) -> int``. A feature's
command lives in the feature (``wwm/lambdastar/command.py``) and is named here by one
registration line; the module is imported only when its command runs or shows its help, so
``wwm --help`` stays fast. Another package adds a command through an entry point in the group
``wwm.commands`` whose value is a :class:`Command`::

    [project.entry-points."wwm.commands"]
    tournament = "my_package.cli:COMMAND"    # COMMAND = Command("tournament", "my_package.cli", "...")
"""

from __future__ import annotations

import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from .registry import Registry

# exit statuses (docs/cli.md)
OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


@dataclass(frozen=True, slots=True)
class Command:
    """A ``wwm`` subcommand: its name, the module that implements it, and its one-line help."""

    name: str
    module: str
    help: str


COMMANDS: Registry[Command] = Registry("command", group="wwm.commands")
for _command in (
    Command("demo", "wwm.cli.demo", "start a world, several minds and a Mind_M on loopback and run a society"),
    Command("serve", "wwm.cli.serve", "serve a Python World or Mind class: wwm serve module:Class --port N"),
    Command("serve-exec", "wwm.cli.serve_exec",
            "serve a program in any language that reads stdin and writes stdout"),
    Command("list", "wwm.cli.listing", "what can be named: worlds and minds to serve, AS methods, protocols, agents"),
    Command("check", "wwm.cli.check",
            "check that a server at URL (in any language) answers the protocol correctly"),
    Command("run", "wwm.cli.run", "run a mind in a world (a society file, or --mind URL --world URL)"),
    Command("runs", "wwm.cli.runs", "list and show recorded runs"),
    Command("lambdastar", "wwm.lambdastar.command", "the Λ* dynamic intelligence test"),
    Command("compare", "wwm.selection.command", "compare Action Selection methods in one world"),
    Command("tyrrell", "wwm.tyrrell.command", "Tyrrell's world: the AS benchmark and a picture of a life"),
    Command("broken-links", "wwm.selection.links_command", "a society's score as its mind servers die, over seeds"),
    Command("search", "wwm.search.command", "search over societies of minds for the best one in a World (10.10)"),
    Command("meta", "wwm.meta.command", "meta-execution: Meta(A) and HCH at the terminal"),
    Command("acl", "wwm.acl.command", "agent communication: conversations, commitments, Contract Net"),
    Command("tworld", "wwm.tileworld.command", "T-World: the Tileworld, its proxy and its browser view"),
    Command("soccer", "wwm.soccer.command", "a soccer world: WWM players, the soccer server's UDP protocol, live view"),
    Command("docs", "wwm.cli.docs", "build and open the documentation site"),
    Command("portal", "wwm.portal.command", "the portal: browse servers, compose, link, run, watch"),
    Command("mcp", "wwm.mcp.command", "serve a World or Mind server's queries as MCP tools over stdio, for LLM agents"),
):
    COMMANDS.register(_command)


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


def fail(command: str, message: object, status: int = FAILED) -> int:
    """Print ``wwm COMMAND: message`` on stderr, as one line; return ``status``."""
    text = " ".join(str(message).split()) or "failed"
    print(f"wwm {command}: {text}", file=sys.stderr)
    return status


def cannot_listen(command: str, host: str, port: int, exc: OSError) -> int:
    """The one line a command prints when its port is taken or not allowed."""
    reason = str(exc.strerror or exc).split(" (while")[0]  # (asyncio's own repeat of the address)
    return fail(command, f"cannot listen on {host}:{port}: {reason}")


def unreadable(exc: OSError) -> str:
    """What went wrong with a file, in one line: ``cannot read PATH: No such file or directory``."""
    where = f" {exc.filename}" if exc.filename else ""
    return f"cannot read{where}: {exc.strerror or exc}"


def interrupted(command: str, what_was_kept: str) -> int:
    """The one line a command prints when Ctrl-C stops it: what it kept; status 130."""
    return fail(command, f"interrupted; {what_was_kept}", INTERRUPTED)


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 meaning any free port."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 0 and 65535 (0: any free port), not {port}")
    return port


def whole_number(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a count, a limit)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, not {text!r}")
    return value


def ready_line(what: str, url: str) -> None:
    """The line a serving command prints once its port is bound: what it serves and where
    (printed even with --quiet: with --port 0 it is the only way to learn the URL)."""
    print(f"serving {what} at {url} (Ctrl-C stops it)", flush=True)


def load_target(target: str) -> object:
    """``package.module:Class`` (or ``path/to/file.py:Class``) -> the class; a UsageError
    naming what is wrong (see :func:`wwm.targets.load_target`)."""
    from .targets import TargetError
    from .targets import load_target as load

    try:
        return load(target)
    except TargetError as exc:
        raise UsageError(str(exc)) from None


def parse_pairs(pairs: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"expected key=value, got {pair!r}")
        out[key.strip()] = value
    return out


T = TypeVar("T")


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine on uvloop where it is installed (it comes with
    uvicorn[standard]; the client's per-query cost drops with it), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        import asyncio

        return asyncio.run(main)
    return uvloop.run(main)
