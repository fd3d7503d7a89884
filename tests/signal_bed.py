"""The search's test bed as real processes (fixtures in tests/conftest.py): the Signal World,
an Action Selection server and eight candidate minds (two specialists that together know
every signal, four saboteurs and two guessers), each a ``wwm serve`` process on loopback;
and a writer of search spaces over them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from wwm.server.process import ServerProcess, start_all

BED = "wwm.search.testbed"
# name -> (class, arguments); the order is the space's order of candidates
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {
    "g1": ("GuesserMind", {}),
    "s1": ("SaboteurMind", {}),
    "ab": ("SpecialistMind", {"knows": "a,b"}),
    "s2": ("SaboteurMind", {"q": 3.0}),
    "g2": ("GuesserMind", {"seed": 2}),
    "s3": ("SaboteurMind", {"q": 1.5}),
    "cd": ("SpecialistMind", {"knows": "c,d"}),
    "s4": ("SaboteurMind", {"q": 4.0}),
}


@contextmanager
def signal_bed() -> Iterator[dict[str, str]]:
    """URL by name: "world", "as" and each candidate's name."""
    servers = {"world": ServerProcess(f"{BED}:SignalWorld"),
               "as": ServerProcess("wwm.selection.mind_as:ActionSelectionMind")}
    for name, (cls, args) in CANDIDATES.items():
        servers[name] = ServerProcess(f"{BED}:{cls}", args)
    try:
        start_all(list(servers.values()))  # ten Python start-ups side by side
        yield {name: server.url for name, server in servers.items()}
    finally:
        for server in servers.values():
            server.stop()


def space_of(bed: dict[str, str], **changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": "signal",
        "world": {"url": bed["world"]},
        "mind": {"url": bed["as"], "args": {"seed": 0, "timeout": 5.0}},
        "minds": {name: {"url": bed[name]} for name in CANDIDATES},
        "choose": {"methods": ["w=q", "static-w", "most-popular", "random"], "strengths": {"low": 0.1, "high": 10}},
        "seeds": [0],
        "run": {"steps": 20, "timeout": 10.0},
    }
    doc.update(changes)
    return doc


def space_writer(folder: Path, bed: dict[str, str]) -> Callable[..., Path]:
    def write(**changes: Any) -> Path:
        path = folder / "space.yaml"
        path.write_text(yaml.safe_dump(space_of(bed, **changes), sort_keys=False))
        return path

    return write
