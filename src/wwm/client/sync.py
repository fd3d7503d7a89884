"""A synchronous facade over the async client, for notebooks and scripts.

``wwm.connect(url).sync()`` (or :func:`connect` here) gives a :class:`SyncWorld` or
:class:`SyncMind`: the same queries as :class:`~wwm.client.remote.RemoteWorld` /
:class:`~wwm.client.remote.RemoteMind`, each a plain call that returns the decoded answer::

    world = wwm.connect("http://127.0.0.1:8001/", size=6).sync()
    world.new_run()
    outcome = world.execute_action("north")

:func:`run` runs a mind in a world and :func:`run_society` a society document, both to the
end, returning the :class:`~wwm.client.runner.RunResult`. Every coroutine runs on one event
loop of its own in a background thread, shared by every facade of the process, so it works
where an event loop already runs (Jupyter's) as well as where none does. A remote object is
then used through its facade only: its connections belong to that loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..protocol.interfaces import Mind, World
from ..protocol.records import RunResult
from .facade import SyncMind, SyncRemote, SyncWorld, wait
from .remote import RemoteMind, RemoteWorld
from .remote import connect as _connect
from .runner import RunSettings

__all__ = ["SyncMind", "SyncRemote", "SyncWorld", "connect", "connect_mind", "connect_world", "run",
           "run_society", "sync", "wait"]


def sync(remote: RemoteWorld | RemoteMind) -> SyncWorld | SyncMind:
    """The facade of a remote World or Mind."""
    return SyncWorld(remote) if isinstance(remote, RemoteWorld) else SyncMind(remote)


def connect(url: str, **options: Any) -> SyncWorld | SyncMind:
    """:func:`wwm.client.remote.connect`, behind the facade."""
    return sync(_connect(url, **options))


def connect_world(url: str, **options: Any) -> SyncWorld:
    """A remote World at ``url``, behind the facade (no card fetched)."""
    return SyncWorld(RemoteWorld(url, **options))


def connect_mind(url: str, **options: Any) -> SyncMind:
    """A remote Mind at ``url``, behind the facade (no card fetched)."""
    return SyncMind(RemoteMind(url, **options))


def _inner(server: SyncRemote[Any] | World | Mind) -> Any:
    return server.remote if isinstance(server, SyncRemote) else server


def run(mind: SyncMind | Mind, world: SyncWorld | World, settings: RunSettings | None = None,
        **kwargs: Any) -> RunResult:
    """One run of ``mind`` in ``world`` (facades, remote or local objects) to its end, as
    :func:`wwm.client.runner.run`; ``kwargs`` are :class:`RunSettings` fields."""
    from .runner import run as arun

    settings = replace(settings, **kwargs) if settings is not None else RunSettings(**kwargs)
    return wait(arun(_inner(mind), _inner(world), settings))


def run_society(society: str | Path | Mapping[str, Any], **settings: Any) -> RunResult:
    """A society document (a YAML or JSON file, or its mapping) run to its end; ``settings``
    override the document's ``run`` section (``steps=50``, ``timeout=2.0``, ...)."""
    from .session import run_society as arun_society
    from .society import load, parse

    doc = parse(dict(society)) if isinstance(society, Mapping) else load(Path(society))
    return wait(arun_society(doc, settings=doc.settings(**settings)))
