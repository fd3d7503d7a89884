"""The search's test bed as real processes (fixtures in tests/conftest.py): the Signal World,
an Action Selection server and eight candidate minds (two specialists that together know
every signal, four saboteurs and two guessers), each a ``wwm serve`` process on loopback;
the same bed hosted in this process (the in-process binding, no socket: for the engine's
tests, where the search is the point and the processes are not); and a writer of search
spaces over them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
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


@asynccontextmanager
async def hosted_signal_bed() -> AsyncIterator[dict[str, str]]:
    """The same bed, each server an app hosted in this process at a URL of its own (the apps
    are made as ``wwm serve`` makes them, each candidate with its arguments)."""
    from wwm.client.inprocess import host
    from wwm.server import make_app
    from wwm.targets import load_target

    servers = {"world": (f"{BED}:SignalWorld", {}), "as": ("wwm.selection.mind_as:ActionSelectionMind", {})}
    servers.update({name: (f"{BED}:{cls}", args) for name, (cls, args) in CANDIDATES.items()})
    async with AsyncExitStack() as stack:
        urls = {}
        for name, (target, args) in servers.items():
            app = make_app(load_target(target), url=f"http://{name}.signal-bed.inprocess.test/",
                           defaults={k: str(v) for k, v in args.items()})
            urls[name] = await stack.enter_async_context(host(app))
        yield urls


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
