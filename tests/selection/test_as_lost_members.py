"""Members that lose their runs, in process (issue 26 item 7): a member whose server says its
run is unknown is given a new run before the next decision and answers again; one that
cannot be given one makes that step's answer "degraded: member X lost at step k", shows on the
AS's display page and status until it is back, and is admitted again once it starts a run."""

from __future__ import annotations

import asyncio
from typing import Any

from society_minds import TableMind

from wwm import Refusal
from wwm.protocol.results import RunStarted, Suggestion
from wwm.selection import ActionSelectionMind


class Forgetful(TableMind):
    """A TableMind whose "server" can forget its run (``forget``) and refuse New run (``down``)."""

    def __init__(self, q: str, url: str) -> None:
        super().__init__(q, url=url)
        self.runs = 0
        self.forgot = False
        self.down = False

    async def new_run(self, client_url: Any = None, world_display_url: Any = None,
                      world_run_id: Any = None) -> RunStarted:
        if self.down:
            raise Refusal("unreachable", f"{self.url} could not be reached")
        self.runs += 1
        self.forgot = False
        return RunStarted()

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        if self.forgot:
            raise Refusal("unknown-run", "no run with ID r1")
        return await super().get_suggestion(state, **step)


async def test_a_member_that_forgot_its_run_gets_a_new_one_before_the_next_decision() -> None:
    low, high = Forgetful("a:1", "local:low"), Forgetful("b:2", "local:high")
    society = ActionSelectionMind([low, high], method="w=q", timeout=1)
    await society.new_run("http://client.example/")
    assert (await society.get_action("x")).action == "b"
    await society.inform("y", 0.0)
    high.forgot = True
    assert (await society.get_action("x")).action == "a"   # this step's round: its run was unknown
    await society.inform("y", 0.0)
    assert (await society.get_action("x")).action == "b"   # reopened first, then asked
    assert high.runs == 2 and low.runs == 1
    assert society.display_details()["decision"]["members' history"] == \
        "step 2: local:high had lost its run; a new run was opened with it"
    assert "degraded" not in society.display_details()["decision"]
    await society.end_run()


async def test_one_that_cannot_be_reopened_is_said_degraded_until_it_is_back() -> None:
    low, high = Forgetful("a:1", "local:low"), Forgetful("b:2", "local:high")
    society = ActionSelectionMind([low, high], method="w=q", timeout=1, retry=0.01)
    await society.new_run("http://client.example/")
    for _ in range(3):
        assert (await society.get_action("x")).action == "b"
        await society.inform("y", 0.0)
    high.forgot, high.down = True, True
    assert (await society.get_action("x")).action == "a"
    await society.inform("y", 0.0)
    said = await society.get_action("x")                   # step 4: New run refused
    assert said.action is None
    assert said.reason == "degraded: member local:high lost at step 4 (local:high could not be reached)"
    await society.inform("y", 0.0)
    shown = society.display_details()
    assert shown["decision"]["degraded"] == said.reason
    assert [row["suggested"] for row in shown["minds"] if row["mind"] == "local:high"] == \
        [f"{said.reason}: tried again every 0.01 s"]
    assert [s["degraded"] for s in society.status()] == [None, said.reason]
    assert (await society.get_action("x")).action == "a"   # the others go on
    await society.inform("y", 0.0)
    high.down = False                                      # its server is back
    for _ in range(200):
        action = (await society.get_action("x")).action
        await society.inform("y", 0.0)
        if action == "b":
            break
        await asyncio.sleep(0.01)
    assert action == "b" and [m.url for m in society.members] == ["local:low", "local:high"]
    decision = society.display_details()["decision"]
    assert "degraded" not in decision and "local:high is back with a new run" in decision["members' history"]
    await society.end_run()
