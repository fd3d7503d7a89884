"""The portal recorder's database writes leave the event loop (issue 26, item 8): a run whose
end is being written to a slow database holds up no other run's viewers, the run's own
viewers get ``end`` only once the end is in the store, and the run's task waits for it.

The slow database is a store whose ``finish_run`` waits for a gate the test opens: no
wall-clock window. (Before the change the recorder wrote the end in the loop's thread, so
``on_finish`` itself blocked until the gate's guard gave up, and the other run's step came
after the write.)"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from wwm.client.society import parse
from wwm.portal.live import LiveHub
from wwm.portal.runrecorder import PortalRecorder
from wwm.protocol.records import RunResult, Step
from wwm.store import RunStore, StoreError

SOCIETY = parse({"world": {"url": "http://127.0.0.1:9/w"}, "mind": {"url": "http://127.0.0.1:9/m"}}, source="test")
GUARD = 60.0   # only the failing case (a write in the loop's thread) ever waits this long


class GatedStore(RunStore):
    """A run store whose end writes wait for ``gate``, as a slow database would."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.gate = threading.Event()
        self.order: list[str] = []
        self.writer_threads: set[str] = set()

    def finish_run(self, run_id: int, status: str, *args: Any, **kwargs: Any) -> None:
        self.writer_threads.add(threading.current_thread().name)
        if not self.gate.wait(GUARD):
            raise StoreError("the gate never opened")
        super().finish_run(run_id, status, *args, **kwargs)
        self.order.append(f"run {run_id} end written")


def step(i: int) -> Step:
    return Step(i, f"s{i}", "a", f"s{i + 1}", 1.0, None, 0.0, 0.0, 0.0, 0.0)


async def test_a_slow_end_write_holds_no_viewer_and_the_end_follows_the_write(tmp_path: Path) -> None:
    store = GatedStore(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        hub = LiveHub(flush_every=0.0)
        a, b = (store.start_run(mind_url="m", world_url="w", society={}) for _ in range(2))
        for run_id in (a, b):
            hub.open(run_id)
        ending, stepping = PortalRecorder(store, hub, a, SOCIETY), PortalRecorder(store, hub, b, SOCIETY)
        a_viewer, b_viewer = hub.subscribe(a), hub.subscribe(b)
        assert a_viewer is not None and b_viewer is not None
        ending.on_step(step(0))

        ending.on_finish(RunResult(status="completed", record_id=a))   # its end waits on the gate
        stepping.on_step(step(0))                                       # another run steps meanwhile
        kind, message = await b_viewer.next()
        store.order.append(f"run {b} step seen")
        assert kind == "step" and message["step"] == 0
        assert (await a_viewer.next())[0] == "step"
        assert a_viewer.end is None, "the viewers get the end only once it is in the store"
        assert store.get_run(a, max_steps=0).status == "running"

        store.gate.set()
        await ending.settle()
        assert store.order == [f"run {b} step seen", f"run {a} end written"]
        assert threading.main_thread().name not in store.writer_threads, "written outside the loop's thread"
        assert await a_viewer.next() == ("end", a_viewer.end) and a_viewer.end["status"] == "completed"
        assert store.get_run(a, max_steps=0).status == "completed"
    finally:
        store.gate.set()
        store.close()
