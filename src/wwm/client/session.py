"""Running a society from start to end: build its Mind and World, drive them with the client
algorithm, record the run in the store, show progress, close the connections. Shared by
``wwm run``, ``wwm demo`` and the portal.
"""

from __future__ import annotations

from typing import Any, Callable

from ..store import RunStore, StoreRecorder
from .runner import RunResult, Runner, RunSettings, Step
from .society import Society


async def run_society(society: Society, *, settings: RunSettings | None = None,
                      store: RunStore | None = None,
                      on_step: Callable[[Step, RunResult], None] | None = None) -> RunResult:
    mind, world = society.build()
    settings = settings or society.settings()
    recorder = None
    if store is not None:
        recorder = StoreRecorder(store, mind_url=_where(society.mind), world_url=_where(society.world),
                                 society=society.model_dump(by_alias=True, exclude_none=True),
                                 settings=settings.as_dict(), name=society.name)
    try:
        return await Runner(mind, world, settings, recorder=recorder, on_step=on_step).run()
    finally:
        for server in (mind, world):
            close = getattr(server, "aclose", None)
            if close is not None:
                await close()


def _where(spec: Any) -> str:
    return spec.url or f"local:{spec.class_}"
