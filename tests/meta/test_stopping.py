"""A served Meta(A) stops working on a question at once when its asker stops waiting: a
client that times out, or an End run sent meanwhile. A here never replies (it only takes
notes), so without stopping it would run until its budget of 10^6 operations is spent."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from wwm.client.remote import connect_mind
from wwm.meta.store import Store
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

NEVER_REPLIES = {"action": "note still thinking"}


def cpu_seconds(server: ServerProcess) -> float:
    """User and system CPU time the server process has used so far (Linux /proc)."""
    assert server.process is not None
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stopped_steps(db: Path, within: float = 5.0) -> list[str]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if db.exists():
            labels = [label for _, label, _ in Store(db).computations() if "stopped" in label]
            if labels:
                return labels
        await asyncio.sleep(0.05)
    return []


async def busy(servers: list[ServerProcess], seconds: float) -> list[float]:
    """The CPU seconds each server uses over ``seconds`` of wall-clock time."""
    before = [cpu_seconds(s) for s in servers]
    await asyncio.sleep(seconds)
    return [cpu_seconds(s) - b for s, b in zip(servers, before, strict=True)]


@pytest.mark.slow
async def test_a_client_that_times_out_stops_the_computation(tmp_path):
    db = tmp_path / "meta.db"
    with ServerProcess("wwm.kit.region:FixedAction", args=NEVER_REPLIES) as a, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": a.url, "store": db}) as server:
        mind = connect_mind(server.url, timeout=1.0)
        await mind.new_run()
        with pytest.raises(Refusal) as refused:
            await mind.get_action("hi")
        assert refused.value.code == "timeout"
        [label] = await stopped_steps(db)
        spent = await busy([server, a], 1.5)  # both processes idle once the asker is gone
        await mind.aclose()
    assert label.startswith("step 1 stopped (the asker stopped waiting) after ")
    ops = int(label.split(" after ")[1].split()[0])
    assert 10 < ops < 20_000  # a second's worth of A's round trips, not the 10^6 budget
    assert max(spent) < 0.15, f"CPU seconds used after the time-out (Meta(A), A): {spent}"


@pytest.mark.slow
async def test_end_run_stops_the_question_being_worked_on(tmp_path):
    db = tmp_path / "meta.db"
    with ServerProcess("wwm.kit.region:FixedAction", args=NEVER_REPLIES) as a, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": a.url, "store": db}) as server:
        mind = connect_mind(server.url, timeout=30.0)
        await mind.new_run()
        asking = asyncio.ensure_future(mind.get_action("hi"))
        await asyncio.sleep(0.5)
        await mind.end_run()
        suggestion = await asyncio.wait_for(asking, 5)
        spent = await busy([server, a], 1.0)
        await mind.aclose()
    assert not suggestion.can_suggest
    assert suggestion.reason.startswith("the run was ended while Meta(A) was working; it stopped after ")
    assert (await stopped_steps(db))[0].startswith("step 1 stopped (End run) after ")
    assert max(spent) < 0.15, f"CPU seconds used after End run (Meta(A), A): {spent}"
