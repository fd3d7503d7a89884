"""Exactly-once steps (issue 29): a query that changes a run carries a sequence number, a
server answers one sent again from what it kept, and so a step is done once and recorded
once whatever breaks between the client and the World: a connection dropped after the World
read the request, or a World served with ``--state`` killed (SIGKILL) at any moment of a
long run and started again.

The breaks are made by :class:`cutting_proxy.CuttingProxy` at moments counted in requests
(seeded), never by timing."""

from __future__ import annotations

import random

import pytest
from cutting_proxy import MODES, CuttingProxy
from probes import probe_server

from wwm.client import RemoteMind, RemoteWorld
from wwm.client.runner import Runner, RunSettings

pytestmark = pytest.mark.slow


async def test_a_connection_dropped_after_the_world_read_the_request_does_not_act_twice():
    """The lean HTTP client sends a request again on a fresh connection when a kept-alive one
    drops before any byte of its answer (it takes the World for one that closed an idle
    connection); here the World had read it and acted. The resend carries the same sequence
    number, so the World answers it from what it kept."""
    with probe_server("ProbeWorld") as server:
        async with CuttingProxy(server, {3: "drop-answer"}) as proxy:
            world = RemoteWorld(proxy.url, timeout=30)
            await world.new_run()
            assert world.sequenced
            outcomes = [await world.execute_action("+1") for _ in range(5)]
            assert proxy.done == [(3, "drop-answer")] and proxy.seen == 6  # the third was sent twice
            assert [o.state for o in outcomes] == [f"n={i}" for i in range(1, 6)]
            assert await world.get_state() == "n=5"                       # done five times, not six
            assert await world.end_run() == 5.0
            await world.aclose()


def kill_plan(seed: int, requests: int, kills: int) -> dict[int, str]:
    """``kills`` moments among the first ``requests`` Execute actions, at least 4 apart, each
    with a way of breaking picked by a seeded RNG (every way at least once)."""
    rng = random.Random(seed)
    moments = sorted(rng.sample(range(5, requests, 4), kills))
    modes = [*MODES, *(rng.choice(MODES) for _ in range(kills - len(MODES)))]
    rng.shuffle(modes)
    return dict(zip(moments, modes, strict=True))


@pytest.mark.parametrize("seed", [29])
async def test_a_world_killed_many_times_in_a_long_run_agrees_with_the_record(seed):
    """A World served with ``--state`` killed at seeded moments of a 240-step run (before it
    reads an Execute action, while it acts, after it answered, or its answer dropped): its
    step count equals the client's recorded steps, with no gap and no duplicate."""
    steps, plan = 240, kill_plan(seed, 200, 12)
    with probe_server("ProbeWorld", state=True) as world_server, probe_server("ProbeMind") as mind_server:
        async with CuttingProxy(world_server, plan) as proxy:
            world, mind = RemoteWorld(proxy.url, timeout=30), RemoteMind(mind_server.url)
            settings = RunSettings(steps=steps, timeout=30, retry_pause=0.05, world_wait=300, keepalive=None)
            result = await Runner(mind, world, settings).run()
            await world.aclose()
            await mind.aclose()
    assert [mode for _, mode in proxy.done] == list(plan.values())   # every planned break was made
    assert proxy.restarts == sum(mode != "drop-answer" for mode in plan.values())
    assert result.status == "completed", result.events[-3:]
    assert [s.index for s in result.steps] == list(range(steps))
    assert [(s.state, s.new_state) for s in result.steps] == \
        [(f"n={i}", f"n={i + 1}") for i in range(steps)]                # no gap, no duplicate
    assert result.world_score == float(steps)                         # the World's own count
    recovered = [s.note for s in result.steps if s.note]
    assert any("kept answer" in note for note in recovered)           # acted on, answer lost
    assert all(note.startswith("recovered:") for note in recovered)
    assert len(recovered) == sum(e.kind == "step-recovered" for e in result.events)
