"""A portal run paced for watching (issue 26 item 3): the run service waits 1/pace seconds
between steps, measured on a clock the test controls (no wall time), keeps the pace in the
run's resume record, and a run without a pace runs flat out; a pace out of range is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wwm.portal.runs import RunService
from wwm.server.process import ServerProcess
from wwm.store import RunStore


class FakeTime:
    """A clock that moves only when the run sleeps (and by ``per_call`` each time it is read)."""

    def __init__(self, per_call: float = 0.0) -> None:
        self.now, self.per_call, self.slept = 1000.0, per_call, []

    def clock(self) -> float:
        self.now += self.per_call
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def society(world: ServerProcess, mind: ServerProcess) -> dict[str, Any]:
    return {"name": "paced", "world": {"url": world.url, "args": {"size": 6}}, "mind": {"url": mind.url},
            "run": {"timeout": 5.0}}


async def test_a_paced_run_waits_one_interval_between_steps_on_the_injected_clock(
        tmp_path: Path, world: ServerProcess, mind: ServerProcess) -> None:
    fake = FakeTime(per_call=0.1)   # each look at the clock "takes" 0.1 s of the interval
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    service = RunService(store=store, pace_clock=fake.clock, pace_sleep=fake.sleep, sweep=3600)
    try:
        started = await service.start(society(world, mind), steps=6, owner="user:1", pace=2.0)
        assert await service.wait(started.run_id) == "completed"
        # 6 steps, 5 pauses between them: 0.5 s apart, less the 0.1 s the clock "took"
        assert fake.slept == pytest.approx([0.4] * 5)
        assert store.resume_of(started.run_id)["pace"] == 2.0
        flat = await service.start(society(world, mind), steps=6, owner="user:1")
        assert await service.wait(flat.run_id) == "completed"
        assert len(fake.slept) == 5, "a run without a pace ran paced"
        assert store.resume_of(flat.run_id)["pace"] is None
    finally:
        await service.close()
        store.close()


@pytest.mark.parametrize("pace", [0, -1, float("nan"), float("inf"), 101, "2", True])
async def test_a_pace_out_of_range_is_refused_saying_what_a_pace_is(tmp_path: Path, pace: Any) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    service = RunService(store=store, sweep=3600)
    try:
        with pytest.raises(ValueError, match="steps per second"):
            await service.start({"world": {"url": "http://127.0.0.1:9/"}, "mind": {"url": "http://127.0.0.1:9/"}},
                                steps=3, owner="user:1", pace=pace)
    finally:
        await service.close()
        store.close()
