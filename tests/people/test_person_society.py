"""A person as a member of a society: a Mind_AS over a person-mind and a food seeker, by
rotation (3.3), runs a grid World over real servers. On the person's turns the person's
action is taken; when the person presses "Cannot suggest action" the AS takes the next
mind's, as for any member that cannot suggest."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.grid_minds import FoodSeeker
from wwm.server.process import ServerProcess, free_port

pytestmark = pytest.mark.slow


async def person(desk: str, asked: list[str], stop: asyncio.Event) -> None:
    """Answers "stay" to the first question, and declines the second."""
    async with aiohttp.ClientSession() as http:
        while not stop.is_set():
            async with http.get(desk + "api/seats") as reply:
                seats = (await reply.json())["seats"]
            for seat in seats:
                question = seat["question"]
                if question is not None:
                    form = {"action": "stay"} if not asked else {"cannot": True}
                    asked.append(question["shown"])
                    async with http.post(f"{desk}api/seat/{seat['token']}",
                                         json={"question": question["number"], **form}) as reply:
                        assert reply.status == 200, await reply.text()
            await asyncio.sleep(0.01)


async def test_a_person_takes_turns_in_an_action_selection_society():
    page_port = free_port()
    with ServerProcess("wwm.kit.grid:GridWorld", args={"size": 6, "seed": 2}) as grid, \
            ServerProcess("wwm.people:PersonMind", args={"actions": "north,south,east,west,stay",
                                                         "page_port": page_port}) as you, \
            ServerProcess("wwm.kit.grid_minds:FoodSeeker") as seeker, \
            ServerProcess("wwm.selection.mind_as:ActionSelectionMind",
                          args={"minds": f"{you.url},{seeker.url}", "method": "rotation", "timeout": 20}) as society:
        asked: list[str] = []
        stop = asyncio.Event()
        sitting = asyncio.ensure_future(person(f"http://127.0.0.1:{page_port}/", asked, stop))
        try:
            result = await run(RemoteMind(society.url), RemoteWorld(grid.url), RunSettings(steps=4, timeout=30))
        finally:
            stop.set()
            await sitting
    assert result.status == "completed" and len(result.steps) == 4
    states = [s.state for s in result.steps]
    assert asked == [states[0], states[2]]                 # asked on its turns only, shown the world's state
    assert result.steps[0].action == "stay"                # the person's action taken
    seeker_said = [(await FoodSeeker().get_action(states[i])).action for i in (1, 2, 3)]
    assert [result.steps[i].action for i in (1, 2, 3)] == seeker_said   # declined: the next mind's
