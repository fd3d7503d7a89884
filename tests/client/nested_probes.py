"""Servers that write down the arguments each New run brought them, for the tests of
arguments travelling down a chain of minds (section 3.5). Each appends one JSON line per New
run to the file named by the environment variable ``WWM_ARGS_LOG`` (one file per server
process), with the URL of the server it was sent to (several servers hosted in one process
share the file). Served with ``wwm serve nested_probes:...`` (the tests put this folder on
PYTHONPATH), or hosted in the test's process.

:class:`ArgsMind` takes its items by their exact wire names (``wire_items``), so what it writes
down is exactly what the query carried. The recorded Mind_AS, Mind_M and World are the real
classes, whose constructor is wrapped to write down the arguments a run gave that differ from
the class's defaults (a run's arguments come to the constructor merged with those defaults).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from typing import Any

from probes import ProbeWorld

from wwm import Mind, Suggestion
from wwm.kit.region import RegionMind
from wwm.protocol.context import current_server
from wwm.selection.mind_as import ActionSelectionMind


def record(kind: str, args: dict[str, Any]) -> None:
    path = os.environ.get("WWM_ARGS_LOG")
    if path:
        trail = current_server.get()  # (a New run is answered: the server answering it)
        with open(path, "a") as out:
            out.write(json.dumps({"class": kind, "args": args, "server": trail.url if trail else None},
                                 default=repr) + "\n")


def read_log(path: str | os.PathLike[str], server: str | None = None) -> list[dict[str, Any]]:
    """The arguments of each New run a server wrote down, in order (those sent to ``server``
    alone, when given)."""
    with open(path) as lines:
        entries = [json.loads(line) for line in lines if line.strip()]
    return [e["args"] for e in entries if server is None or e["server"] == server]


class ArgsMind(Mind):
    """A leaf mind: writes down its New run's items as received; always suggests "+1"."""

    def __init__(self, wire_items: dict[str, Any]) -> None:
        record("ArgsMind", dict(wire_items))

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion("+1", q=1.0)


def recorded(cls: type) -> type:
    """``cls`` with a constructor that writes down the arguments differing from its defaults
    (the signature, and so the server's argument schema, stay the class's own)."""
    init = cls.__init__  # type: ignore[misc]
    defaults = {name: p.default for name, p in inspect.signature(init).parameters.items()}

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        record(cls.__name__, {k: v for k, v in kwargs.items() if v != defaults.get(k)})
        init(self, *args, **kwargs)

    return type(cls.__name__, (cls,), {"__init__": __init__, "__module__": __name__,
                                       "__doc__": cls.__doc__})


RecordedAS = recorded(ActionSelectionMind)
RecordedRegion = recorded(RegionMind)
RecordedWorld = recorded(ProbeWorld)
