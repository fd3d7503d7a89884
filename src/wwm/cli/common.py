"""Small helpers shared by the command modules: loading ``module:Class`` and ``k=v`` args,
and the conventions every command follows (docs/cli.md): one-line errors, exit codes, the
line a server prints when it is ready."""

from __future__ import annotations

import sys

# exit statuses (docs/cli.md)
OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


def fail(command: str, message: object, status: int = FAILED) -> int:
    """Print ``wwm COMMAND: message`` on stderr, as one line; return ``status``."""
    text = " ".join(str(message).split()) or "failed"
    print(f"wwm {command}: {text}", file=sys.stderr)
    return status


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


def ready_line(what: str, url: str) -> None:
    """The line a serving command prints once its port is bound: what it serves and where
    (printed even with --quiet: with --port 0 it is the only way to learn the URL)."""
    print(f"serving {what} at {url} (Ctrl-C stops it)", flush=True)


def load_target(target: str) -> object:
    """``package.module:Class`` (or ``path/to/file.py:Class``) -> the class; a UsageError
    naming what is wrong (see :func:`wwm.targets.load_target`)."""
    from ..targets import TargetError
    from ..targets import load_target as load

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


def run_async(main):
    """Run a command's coroutine on uvloop where it is installed (it comes with
    uvicorn[standard]; the client's per-query cost drops with it), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        import asyncio

        return asyncio.run(main)
    return uvloop.run(main)
