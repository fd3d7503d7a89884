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

import asyncio
import threading
from collections.abc import Coroutine, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Generic, Self, TypeVar

from ..protocol.interfaces import Mind, World
from ..protocol.results import Outcome, RunStarted, Suggestion
from .remote import RemoteMind, RemoteWorld
from .remote import connect as _connect
from .runner import RunResult, RunSettings

T = TypeVar("T")
R = TypeVar("R", RemoteWorld, RemoteMind)

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    """The facade's event loop, started in a daemon thread on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="wwm-sync", daemon=True).start()
            _loop = loop
        return _loop


def wait(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on the facade's loop and return what it returns (or raise what it
    raises). Not to be called from that loop itself (a coroutine of the facade)."""
    loop = _background_loop()
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coroutine.close()
        raise RuntimeError("the synchronous facade was called from its own event loop: await the "
                           "async client there instead")
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result()


class SyncRemote(Generic[R]):
    """What a World's and a Mind's facades share; :attr:`remote` is the async object."""

    def __init__(self, remote: R) -> None:
        self.remote: R = remote

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.remote.url!r}, run_id={'set' if self.run_id else None})"

    @property
    def url(self) -> str:
        return self.remote.url

    @property
    def run_id(self) -> str | None:
        return self.remote.run_id

    @property
    def encoding(self) -> str:
        return self.remote.encoding

    def query(self, method: str, /, **kwargs: Any) -> Any:
        """Any query by its method name (``get_strength``, ``take_me_to``, ...)."""
        return wait(self.remote.query(method, **kwargs))

    def describe(self) -> dict[str, Any]:
        """The server's card."""
        return wait(self.remote.describe())

    def get_current_score(self) -> float | None:
        return wait(self.remote.get_current_score())

    def reset_score(self) -> None:
        wait(self.remote.reset_score())

    def close(self) -> None:
        """Let go of the connections (the run, if any, is left as it is)."""
        wait(self.remote.aclose())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SyncWorld(SyncRemote[RemoteWorld]):
    """A remote World, one blocking call per query."""

    def new_run(self, client_url: str | None = None) -> RunStarted:
        return wait(self.remote.new_run(client_url))

    def get_state(self) -> str:
        return wait(self.remote.get_state())

    def execute_action(self, action: str) -> Outcome:
        return wait(self.remote.execute_action(action))

    def reset(self) -> None:
        wait(self.remote.reset())

    def end_run(self) -> float | None:
        return wait(self.remote.end_run())


class SyncMind(SyncRemote[RemoteMind]):
    """A remote Mind, one blocking call per query (the queries of Mind_L, Mind_i and the
    others through :meth:`query`)."""

    def new_run(self, client_url: str | None = None, **kwargs: Any) -> RunStarted:
        return wait(self.remote.new_run(client_url, **kwargs))

    def get_action(self, state: str, **step: Any) -> Suggestion:
        return wait(self.remote.get_action(state, **step))

    def inform(self, state: str, score: float | None = None) -> float | None:
        return wait(self.remote.inform(state, score))

    def end_run(self, score: float | None = None) -> float | None:
        return wait(self.remote.end_run(score))


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
