"""The synchronous facade's machinery: one event loop in a background thread, shared by every
facade of the process, and :class:`SyncWorld` / :class:`SyncMind`, which run each query of the
remote object they wrap on it and wait for the answer. (Typed against what a remote object
offers, so :mod:`.remote` can hand out its own facade; :mod:`.sync` is the module to use.)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, Generic, Protocol, Self, TypeVar

from ..protocol.results import Outcome, RunStarted, Suggestion


class RemoteLike(Protocol):
    """What the facade uses of a remote World or Mind (:class:`wwm.client.remote.RemoteWorld`,
    :class:`wwm.client.remote.RemoteMind`)."""

    url: str
    run_id: str | None

    @property
    def encoding(self) -> str: ...

    async def query(self, method: str, /, **kwargs: Any) -> Any: ...

    async def describe(self) -> dict[str, Any]: ...

    async def get_current_score(self) -> float | None: ...

    async def reset_score(self) -> None: ...

    async def aclose(self) -> None: ...


class RemoteWorldLike(RemoteLike, Protocol):
    async def new_run(self, client_url: str | None = None) -> RunStarted: ...

    async def get_state(self) -> str: ...

    async def execute_action(self, action: str) -> Outcome: ...

    async def reset(self) -> None: ...

    async def end_run(self) -> float | None: ...


class RemoteMindLike(RemoteLike, Protocol):
    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None, other_client_url: str | None = None) -> RunStarted: ...

    async def get_action(self, state: str, **step: Any) -> Suggestion: ...

    async def inform(self, state: str, score: float | None = None) -> float | None: ...

    async def end_run(self, score: float | None = None) -> float | None: ...


T = TypeVar("T")
R = TypeVar("R", RemoteWorldLike, RemoteMindLike)

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


class SyncWorld(SyncRemote[RemoteWorldLike]):
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


class SyncMind(SyncRemote[RemoteMindLike]):
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


