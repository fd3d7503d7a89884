"""The region Mind_M wrapper: the region language, choosing a mind, and a wrapper that beats
both of its minds -- locally, and served, calling its minds over the network."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from wwm import Mind, Refusal, Suggestion
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.grid import GridWorld
from wwm.kit.grid_minds import FoodSeeker, HazardAvoider
from wwm.kit.region import FixedAction, RegionError, RegionMind, parse_region, state_variables
from wwm.server.process import ServerProcess

FREE = RunSettings(steps=None, keepalive=None, timeout=10.0)
GRID = "size=8 step=3 x=2 y=5 fd=3 hd=1 food=1,2;6,6 hazard=2,4"


def test_state_variables_of_key_value_text_and_json():
    v = state_variables(GRID)
    assert v["x"] == 2.0 and v["hd"] == 1.0 and v["food"] == "1,2;6,6"
    assert state_variables('{"x": 3, "mood": "calm", "ok": true, "deep": {"a": 1}}') == {"x": 3.0, "mood": "calm"}
    assert state_variables("just words") == {}


@pytest.mark.parametrize("text,expected", [
    ("x<3", True), ("x < 2", False), ("x<=2", True), ("x>=2 and y>4", True), ("x>2 or y>4", True),
    ("not x<3", False), ("not (x<3 and hd==1)", False), ("1<=x<3", True), ("3<=x<5", False),
    ("hd=1", True), ("hd!=1", False), ("size==8 and (fd>5 or hd<=1)", True), ("x>-1.5e0", True),
    ("food=='1,2;6,6'", True), ('food!="none"', True),
])
def test_region_language(text, expected):
    assert parse_region(text)(GRID) is expected


@pytest.mark.parametrize("text,message", [
    ("", "non-empty"), ("x<", "ends too early"), ("x<<3", "expected a name or a number"),
    ("x", "comparison such as"), ("(x<3", "ends too early"), ("x<3)", "unexpected '\\)'"),
    ("x<3 and", "ends too early"), ("x$3", "cannot read '\\$3'"), ("__import__('os')", "comparison such as"),
])
def test_bad_regions_are_refused_with_the_reason(text, message):
    with pytest.raises(RegionError, match=message):
        parse_region(text)


def test_a_region_on_items_the_state_lacks_is_refused_by_name():
    with pytest.raises(Refusal) as refused:
        parse_region("z<3")(GRID)
    assert refused.value.code == "bad-parameters"
    assert "z" in refused.value.text and "has: fd, food" in refused.value.text
    with pytest.raises(Refusal, match="only numbers can be ordered"):
        parse_region("food<3")(GRID)


class Named(Mind):
    def __init__(self, name: str) -> None:
        self.name, self.started, self.informed, self.ended = name, 0, [], 0

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None):
        self.started += 1

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion(self.name)

    async def inform(self, state, score=None):
        self.informed.append(state)

    async def end_run(self, score=None):
        self.ended += 1


async def test_first_region_that_holds_picks_the_mind_and_every_mind_is_informed():
    a, b, c = Named("a"), Named("b"), Named("c")
    mind = RegionMind([a, b, c], "x<2; y>=5")
    await mind.new_run(world_run_id="w1")
    assert (a.started, b.started, c.started) == (1, 1, 1)
    assert (await mind.get_action("x=1 y=9")).action == "a"      # both hold: the first wins
    assert (await mind.get_action("x=4 y=9")).action == "b"
    assert (await mind.get_action("x=4 y=0")).action == "c"      # neither: the last mind
    assert mind.chosen == {0: 1, 1: 1, 2: 1}
    await mind.inform("x=0 y=0", 1.0)
    assert a.informed == b.informed == c.informed == ["x=0 y=0"]
    await mind.end_run()
    assert (a.ended, b.ended, c.ended) == (1, 1, 1)


async def test_a_fixed_action_overrides_one_region():
    """2.3: "if input is x then take this action a, otherwise do what the old server does"."""
    mind = RegionMind(["action:stay", FoodSeeker()], region="hd<=1")
    assert isinstance(mind.minds[0], FixedAction)
    assert (await mind.get_action(GRID)).action == "stay"
    far = GRID.replace("hd=1", "hd=4")
    assert (await mind.get_action(far)).action == (await FoodSeeker().get_action(far)).action


async def test_minds_and_regions_may_come_as_one_text_each():
    mind = RegionMind("action:north, action:south action:stay", "x<1;\n y<1")
    assert [m.action for m in mind.minds] == ["north", "south", "stay"]
    assert [r.text for r in mind.regions] == ["x<1", "y<1"]
    assert [(await mind.get_action(s)).action for s in ("x=0 y=0", "x=5 y=0", "x=5 y=5")] == ["north", "south", "stay"]


@pytest.mark.parametrize("minds,region,message", [
    (["action:a"], "x<1", "2 minds, 1 given"),
    (["action:a", "action:b", "action:c"], "x<1", "2 minds, 3 given"),
    (["action:a", "ftp://x"], "x<1", "neither an http"),
    (["action:a", "action:b"], "x<<1", "expected a name"),
    (["action:a", "action:b"], " ; ", "at least one region"),
])
def test_bad_wrappers_are_refused_with_the_reason(minds, region, message):
    with pytest.raises(ValueError, match=message):
        RegionMind(minds, region)


async def average(make_mind, seeds=range(10)) -> float:
    scores = [(await run(make_mind(), GridWorld(seed=s, steps=100), FREE)).total_score for s in seeds]
    return sum(scores) / len(scores)


async def test_the_wrapper_beats_both_of_its_minds():
    """2.3: one mind is good near hazards, one elsewhere; the wrapper is better than either."""
    seeker = await average(FoodSeeker)
    avoider = await average(HazardAvoider)
    wrapper = await average(lambda: RegionMind([HazardAvoider(), FoodSeeker()], "hd<=2"))
    assert wrapper > seeker + 2 and wrapper > avoider + 2, (wrapper, seeker, avoider)


@pytest.mark.slow
async def test_served_wrapper_calls_its_minds_over_the_network():
    servers = [ServerProcess("wwm.kit.grid_minds:HazardAvoider"),
               ServerProcess("wwm.kit.grid_minds:FoodSeeker"),
               ServerProcess("wwm.kit.grid:GridWorld")]
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in servers))
        avoider, seeker, world_server = servers
        wrapper = ServerProcess("wwm.kit.region:RegionMind", args={"timeout": 5}, state=True)
        with wrapper:
            # the wrapper's minds are run arguments: "mind URL", repeated, and the region
            mind = RemoteMind(wrapper.url, encoding="xml", minds=[avoider.url, seeker.url], region="hd<=2")
            world = RemoteWorld(world_server.url, seed=3, steps=40)
            result = await run(mind, world, FREE)
            await mind.aclose(), await world.aclose()
            local = await run(RegionMind([HazardAvoider(), FoodSeeker()], "hd<=2"),
                              GridWorld(steps=40, seed=3), FREE)
            assert result.status == "ended by world" and len(result.steps) == 40
            assert [s.action for s in result.steps] == [s.action for s in local.steps]
            assert result.total_score == local.total_score
            card = json.load(urllib.request.urlopen(wrapper.url + "trail"))
            calls = {link["url"]: link["queries"] for link in card["calls"]}
            assert set(calls) == {avoider.url, seeker.url}
            assert calls[seeker.url] > 40 and calls[avoider.url] > 40   # New run, informs, End run
            for server in (avoider, seeker):                            # and they know who called
                called_by = json.load(urllib.request.urlopen(server.url + "trail"))["called_by"]
                assert [c["url"] for c in called_by] == [wrapper.url]
            # killed and restarted mid-run, the wrapper resumes its run from its snapshot, still
            # speaking to its minds' runs; the client waits it out and the run is the same
            halfway = asyncio.Event()
            mind = RemoteMind(wrapper.url, minds=[avoider.url, seeker.url], region="hd<=2", timeout=2.0)
            world = RemoteWorld(world_server.url, seed=3, steps=40)
            settings = RunSettings(steps=None, keepalive=None, timeout=2.0, retry_pause=0.05)
            task = asyncio.create_task(run(mind, world, settings,
                                           on_step=lambda step, _: step.index == 20 and halfway.set()))
            await halfway.wait()
            await asyncio.to_thread(wrapper.restart)
            resumed = await task
            await mind.aclose(), await world.aclose()
            assert resumed.status == "ended by world"
            assert [s.action for s in resumed.steps] == [s.action for s in local.steps]
            assert any(e.kind == "mind-down" for e in resumed.events)
            # a region it cannot read is refused by name, before any mind is called
            bad = RemoteMind(wrapper.url, encoding="xml", minds=[avoider.url, seeker.url], region="hd<<2")
            with pytest.raises(Refusal) as refused:
                await bad.new_run()
            assert refused.value.code == "bad-parameters" and "region 'hd<<2'" in refused.value.text
            await bad.aclose()
            # a wrapper given a dead mind refuses clearly instead of hanging
            avoider.kill()
            mind = RemoteMind(wrapper.url, minds=[avoider.url, seeker.url], region="hd<=2")
            with pytest.raises(Refusal) as refused:
                await mind.new_run()
            assert refused.value.code in ("unreachable", "server-error")
            assert "nothing is listening at" in refused.value.text
            await mind.aclose()
    finally:
        for server in servers:
            server.stop()
