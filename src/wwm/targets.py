"""Loading ``module:Class`` targets, the way ``wwm serve``, society documents and the CLI name
a class to serve or to build: a dotted module (the current directory is importable) or a
path to a ``.py`` file, then the attribute path inside it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any


class TargetError(ValueError):
    """A target that cannot be loaded, with the reason."""


def load_target(target: str) -> object:
    """``package.module:Class`` (or ``path/to/file.py:Class``) -> the class (whatever the
    attribute holds: the caller checks it is a class of the kind it wants)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise TargetError(f"expected module:Class, got {target!r}")
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        if not path.exists():
            raise TargetError(f"no such file: {module_name}")
        sys.path.insert(0, str(path.parent))
        module_name = path.stem
    else:
        # the current directory is importable, as under uvicorn, gunicorn and flask: the
        # console script's sys.path starts with its own bin folder instead
        here = str(Path.cwd())
        if here not in sys.path:
            sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{module_name!r} has no {attr!r}") from None
    return obj
