"""Over the persistent bindings a query is answered at once, inside the callback that read it,
when its method does not wait; it still runs as a task, in a context of its own, as over HTTP:
``asyncio.timeout`` and ``TaskGroup`` work in a method, and a context variable one answer sets
is not seen by the next. Each query below is pipelined behind the others, over TCP and over
WebSocket, to a real server process."""

from __future__ import annotations

import time

import pytest
from probes import probe_server

from wwm.client import RemoteWorld
from wwm.protocol.errors import Refusal

pytestmark = pytest.mark.slow

ACTIONS = ["a", "timeout", "b", "group", "c", "sleep", "d", "late", "e", "expired", "f"]


@pytest.fixture(scope="module")
def server():
    with probe_server("TaskMindedWorld", extra=["--tcp-port", "0"]) as process:
        yield process


@pytest.mark.parametrize("binding", ["tcp", "ws"])
async def test_methods_see_a_task_and_a_context_of_their_own(server, binding):
    async with RemoteWorld(server.url, transport=binding) as world:
        await world.new_run()
        started = time.monotonic()
        replies = await world.query_in_order(*[("execute_action", {"action": a}) for a in ACTIONS])
        took = time.monotonic() - started
        one_by_one = [await world.execute_action(a) for a in ("f", "timeout", "g")]
        started = time.monotonic()
        with pytest.raises(Refusal) as expired:  # answered first, not behind another
            await world.execute_action("expired")
        took_alone = time.monotonic() - started
        after = await world.execute_action("h")
    states = [r.state if not isinstance(r, Refusal) else r for r in replies]
    # no answer saw another's note, however it ran (at once, or after waiting)
    for action, state in zip(ACTIONS, states, strict=True):
        if action not in ("late", "expired"):
            assert state == f"{action} after nothing", (action, state)
    for action in ("late", "expired"):
        late = states[ACTIONS.index(action)]
        assert isinstance(late, Refusal) and late.code == "server-error" and "TimeoutError" in (late.text or "")
    assert took < 3  # the time-outs were kept: no method slept its 5 s
    assert [o.state for o in one_by_one] == ["f after nothing", "timeout after nothing", "g after nothing"]
    assert expired.value.code == "server-error" and "TimeoutError" in (expired.value.text or "") and took_alone < 3
    assert after.state == "h after nothing"
