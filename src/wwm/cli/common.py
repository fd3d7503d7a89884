"""Small helpers shared by the command modules: loading ``module:Class`` and ``k=v`` args."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


def load_target(target: str) -> type:
    """``package.module:Class`` (or ``path/to/file.py:Class``) -> the class."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected module:Class, got {target!r}")
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        if not path.exists():
            raise UsageError(f"no such file: {module_name}")
        sys.path.insert(0, str(path.parent))
        module_name = path.stem
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{module_name!r} has no {attr!r}") from None
    return obj


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
