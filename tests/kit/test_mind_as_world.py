"""Two minds where each serves as the other's world (section 3.2), locally and over HTTP."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from wwm import Mind, Suggestion
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.eliza import ElizaMind
from wwm.kit.mind_as_world import MindAsWorld
from wwm.kit.random_mind import RandomMind
from wwm.server.process import ServerProcess

SETTINGS = RunSettings(steps=6, keepalive=None, timeout=10.0)


class Recording(Mind):
    """Says "reply to <state>"; keeps what it was asked and told; gives up on "bye"."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.informed: list[str] = []
        self.started = self.ended = 0

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None):
        self.started += 1

    async def get_action(self, state: str) -> Suggestion:
        self.asked.append(state)
        return Suggestion.cannot("done") if state == "bye" else Suggestion(f"reply to {state}")

    async def inform(self, state, score=None):
        self.informed.append(state)

    async def end_run(self, score=None):
        self.ended += 1


async def test_each_mind_hears_what_the_other_says():
    a, b = ElizaMind(), ElizaMind()
    world = MindAsWorld(b, opening="I feel nervous about my exams.")
    result = await run(a, world, SETTINGS)
    assert result.status == "completed" and len(result.steps) == 6
    assert a.heard[0] == "I feel nervous about my exams."
    assert b.heard == [s.action for s in result.steps]          # b hears what a says ...
    assert a.heard == [s.state for s in result.steps]           # ... and a hears what b says
    assert result.steps[0].action == "When did you first notice feeling nervous about your exams?"
    assert result.total_score == 6.0 and result.world_score == 6.0


async def test_the_wrapped_mind_is_informed_and_its_end_ends_the_run():
    inner = Recording()
    world = MindAsWorld(inner, opening="hi")
    await world.new_run()
    assert inner.started == 1 and await world.get_state() == "hi"
    first = await world.execute_action("one")
    assert first.state == "reply to one" and first.score == 1.0 and not first.finished
    await world.execute_action("two")
    assert inner.asked == ["one", "two"] and inner.informed == ["two"]   # told what followed its answer
    last = await world.execute_action("bye")
    assert last.finished and last.state == "reply to two"
    assert await world.end_run() == 2.0 and inner.ended == 1


async def test_a_random_mind_can_be_a_world_too():
    world = MindAsWorld(RandomMind(actions="cooperate,defect", seed=2), opening="cooperate")
    result = await run(RandomMind(actions="cooperate,defect", seed=3), world, SETTINGS)
    assert {s.new_state for s in result.steps} <= {"cooperate", "defect"}
    assert len(result.steps) == 6


async def test_a_snapshot_keeps_the_wrapped_mind():
    import pickle

    local = MindAsWorld(Recording(), opening="hi")
    await local.execute_action("one")
    copy = pickle.loads(pickle.dumps(local))
    assert copy.mind.asked == ["one"] and copy.said == "reply to one" and copy.answered
    remote = MindAsWorld("http://127.0.0.1:9/", opening="hi")
    remote.mind.run_id = "r-17"
    again = pickle.loads(pickle.dumps(remote))
    assert isinstance(again.mind, RemoteMind) and again.mind.url == "http://127.0.0.1:9/"
    assert again.mind.run_id == "r-17"


@pytest.mark.slow
async def test_two_served_minds_talk_through_a_served_mind_as_world():
    listener, speaker = ServerProcess("wwm.kit.eliza:ElizaMind"), ServerProcess("wwm.kit.eliza:ElizaMind")
    wrapper = ServerProcess("wwm.kit.mind_as_world:MindAsWorld")
    servers = [listener, speaker, wrapper]
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in servers))
        world = RemoteWorld(wrapper.url, encoding="xml", mind=speaker.url, opening="I am afraid of the dark.")
        mind = RemoteMind(listener.url, encoding="xml")
        result = await run(mind, world, SETTINGS)
        await mind.aclose(), await world.aclose()
        assert result.status == "completed" and len(result.steps) == 6
        assert result.steps[0].state == "I am afraid of the dark."
        assert result.steps[0].action == "What is it about the dark that frightens you?"
        local = await run(ElizaMind(), MindAsWorld(ElizaMind(), opening="I am afraid of the dark."), SETTINGS)
        assert [(s.state, s.action) for s in result.steps] == [(s.state, s.action) for s in local.steps]
        trail = json.load(urllib.request.urlopen(wrapper.url + "trail"))
        assert [c["url"] for c in trail["calls"]] == [speaker.url]
    finally:
        for server in servers:
            server.stop()
