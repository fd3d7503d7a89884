"""Architectures from the queries alone (seed 000, sections 10.2-10.3.1; issue 17 item 4),
each over real ``wwm serve`` processes on loopback, each beating a naive baseline:

- a Subsumption society of three layer servers (wander < avoid < seek) in the grid World
  scores more than its bottom layer alone, and its lower layers still work with the top removed;
- a serial Mind_M over three step minds that know their preconditions ("Ready to suggest
  action?") reaches the goal of the key-and-door World, which a random mind does not;
- a Maes network over the same step minds and a distractor, with activation carried by
  "Change mind strength", reaches the goal in fewer steps than the same network without
  spreading activation.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from wwm import Refusal
from wwm.client.members import MemberSpec, connect_member
from wwm.client.remote import connect_world
from wwm.client.runner import RunSettings, run
from wwm.selection.maes import MaesNetwork
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

SEL = "wwm.selection"
SPECS: dict[str, tuple[str, dict]] = {
    "grid": ("wwm.kit.grid:GridWorld", {}),
    "keydoor": (f"{SEL}.keydoor:KeyDoorWorld", {}),
    "wander": (f"{SEL}.subsumption:SubsumptionLayer", {}),
    "avoid": (f"{SEL}.subsumption:SubsumptionLayer", {}),
    "seek": (f"{SEL}.subsumption:SubsumptionLayer", {}),
    "fetch": (f"{SEL}.keydoor:FetchKey", {}),
    "open": (f"{SEL}.keydoor:OpenDoor", {}),
    "goal": (f"{SEL}.keydoor:ReachGoal", {}),
    "serial": (f"{SEL}.serial:SerialMind", {}),
    "link": (f"{SEL}.serial:SuccessorMind", {}),
    "random": ("wwm.kit.random_mind:RandomMind", {}),
    "explore": (f"{SEL}.keydoor:Explore", {}),
    "maes": (f"{SEL}.maes:MaesNetwork", {}),
}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ServerProcess]]:
    procs = {name: ServerProcess(target, args=args) for name, (target, args) in SPECS.items()}
    with ThreadPoolExecutor(len(procs)) as pool:
        list(pool.map(lambda p: p.start(), procs.values()))
    try:
        yield procs
    finally:
        with ThreadPoolExecutor(len(procs)) as pool:
            list(pool.map(lambda p: p.stop(), procs.values()))


async def score(mind_url: str, args: dict, world_url: str, world_args: dict, steps: int | None) -> tuple[float, int]:
    """One run of the mind at ``mind_url`` (New run carrying ``args``) in the served world."""
    mind = connect_member(MemberSpec(mind_url, args), timeout=10.0)
    world = connect_world(world_url, run_args=world_args, timeout=10.0)
    result = await run(mind, world, RunSettings(steps=steps, keepalive=None, timeout=10.0))
    assert result.status in ("completed", "ended by world"), result.events
    return result.total_score, len(result.steps)


def layers(s: dict[str, ServerProcess], top: str, seed: int) -> tuple[str, dict]:
    """The URL and New run arguments of a Subsumption stack up to ``top``: each layer is sent
    its behaviour and the layer below it, as a member ``{url, args}``."""
    stack: tuple[str, dict] = (s["wander"].url, {"behaviour": "wander", "seed": seed})
    for name in ("avoid", "seek")[: ("wander", "avoid", "seek").index(top)]:
        stack = (s[name].url, {"behaviour": name, "below": json.dumps({"url": stack[0], "args": stack[1]})})
    return stack


async def test_a_subsumption_society_beats_its_bottom_layer(servers):
    seeds, steps = (0, 1, 3), 120
    totals: dict[str, float] = {}
    for top in ("wander", "avoid", "seek"):
        runs = [await score(*layers(servers, top, seed), servers["grid"].url, {"seed": seed}, steps)
                for seed in seeds]
        totals[top] = sum(points for points, _ in runs)
    # the naive baseline is the bottom layer alone; each layer added does better, and the
    # lower layers still work (beat wandering) with the top one removed
    assert totals["wander"] < totals["avoid"] < totals["seek"], totals
    assert totals["seek"] > 0 > totals["wander"], totals
    # each layer called the one below it over the network: its credit trail says so
    for upper, lower in (("seek", "avoid"), ("avoid", "wander")):
        with urllib.request.urlopen(servers[upper].url + "?format=json", timeout=5) as reply:
            calls = {link["url"] for link in json.loads(reply.read())["credit_trail"]["calls"]}
        assert servers[lower].url in calls, (upper, calls)
    bad = connect_member(MemberSpec(servers["avoid"].url, {"behaviour": "sing"}))
    with pytest.raises(Refusal) as info:
        await bad.new_run()
    assert info.value.code == "bad-parameters" and "behaviour must be one of" in info.value.text


async def test_a_serial_model_runs_the_mind_that_is_ready(servers):
    chain = {"mind URL": [servers[n].url for n in ("goal", "fetch", "open")]}  # order of the chain
    seeds = (0, 1, 2)
    serial = [await score(servers["serial"].url, chain, servers["keydoor"].url, {"seed": s}, None) for s in seeds]
    actions = {"actions": "north,south,east,west,pick,open,stay"}
    naive = [await score(servers["random"].url, {**actions, "seed": s}, servers["keydoor"].url, {"seed": s}, None)
             for s in seeds]
    assert all(points == 1.0 and n < 30 for points, n in serial), serial   # goal reached, and soon
    assert sum(points for points, _ in naive) < len(seeds), naive
    # a step mind answers "Ready to suggest action?" from its preconditions
    fetch = connect_member(MemberSpec(servers["fetch"].url))
    opener = connect_member(MemberSpec(servers["open"].url))
    await fetch.new_run()
    await opener.new_run()
    start = "size=7 step=0 x=0 y=0 key=2,2 door=3,1 goal=5,5 has_key=0 door_open=0 at_goal=0"
    assert await fetch.ready_to_suggest(start) and not await opener.ready_to_suggest(start)
    held = start.replace("key=2,2", "key=-").replace("has_key=0", "has_key=1")
    assert not await fetch.ready_to_suggest(held) and await opener.ready_to_suggest(held)
    with pytest.raises(Refusal) as info:
        await fetch.ready_to_suggest("size=7 x=0")
    assert info.value.code == "bad-parameters" and "not a key-and-door state" in info.value.text
    empty = connect_member(MemberSpec(servers["serial"].url, {"mind URL": []}))
    with pytest.raises(Refusal) as info:
        await empty.new_run()
    assert "needs a chain of at least one mind" in info.value.text


async def test_a_chain_without_a_master_passes_requests_on_to_each_successor(servers):
    """10.3, third variant: the client talks to the first link only; each link, its goal
    completed, hands every later request to the next (one link server, three runs of it,
    each with its own step mind and successor as a member {url, args})."""
    last = {"url": servers["link"].url, "args": {"mind": servers["goal"].url}}
    second = {"url": servers["link"].url, "args": {"mind": servers["open"].url, "successor": json.dumps(last)}}
    first = {"mind": servers["fetch"].url, "successor": json.dumps(second)}
    seeds = (0, 1, 2)
    chain = [await score(servers["link"].url, first, servers["keydoor"].url, {"seed": s}, None) for s in seeds]
    master = {"mind URL": [servers[n].url for n in ("fetch", "open", "goal")]}
    serial = [await score(servers["serial"].url, master, servers["keydoor"].url, {"seed": s}, None) for s in seeds]
    assert all(points == 1.0 for points, _ in chain), chain
    assert chain == serial   # the same steps as the master that knows the order: none wasted

    # one run step by step: the first link hands over once the key is held, the second once
    # the door is open, and from then on the goal mind, two links down, acts
    link = connect_member(MemberSpec(servers["link"].url, first))
    world = connect_world(servers["keydoor"].url, run_args={"seed": 0})
    await link.new_run()
    await world.new_run()
    handed: list[bool] = []
    state = await world.get_state()
    while "at_goal=0" in state:
        out = await world.execute_action((await link.get_action(state)).action)
        await link.inform(out.state, out.score)
        state = out.state
        with urllib.request.urlopen(await link.get_display_url() + ".json", timeout=5) as reply:
            handed.append(json.loads(reply.read())["details"]["handed over"])
    assert handed[0] is False and handed[-1] is True and handed == sorted(handed)  # once, for good
    assert not await link.ready_to_suggest(state)   # the last link's goal is done: nobody is ready
    assert not (await link.get_action(state)).can_suggest
    await link.end_run()
    await world.end_run()
    bad = connect_member(MemberSpec(servers["link"].url, {"mind": "ftp://nowhere/"}))
    with pytest.raises(Refusal) as info:
        await bad.new_run()
    assert info.value.code == "bad-parameters" and "ftp://nowhere/" in info.value.text


async def test_a_maes_network_finds_the_order_by_spreading_activation(servers):
    # the distractor first: with equal strengths a network has no reason to prefer the chain
    members = {"mind URL": [servers[n].url for n in ("explore", "goal", "open", "fetch")], "goal": "at_goal"}
    seeds = (0, 1, 2)
    maes = [await score(servers["maes"].url, {**members, "seed": s}, servers["keydoor"].url, {"seed": s}, None)
            for s in seeds]
    naive = [await score(servers["maes"].url, {**members, "seed": s, "spreading": "false"}, servers["keydoor"].url,
                         {"seed": s}, None) for s in seeds]
    assert all(points == 1.0 for points, _ in maes + naive), (maes, naive)
    # the serial model's steps (it knows the order; the network found it): no step wasted
    chain = {"mind URL": [servers[n].url for n in ("fetch", "open", "goal")]}
    serial = [await score(servers["serial"].url, chain, servers["keydoor"].url, {"seed": s}, None) for s in seeds]
    assert [n for _, n in maes] == [n for _, n in serial]
    assert sum(n for _, n in maes) * 2 < sum(n for _, n in naive), (maes, naive)
    bad = connect_member(MemberSpec(servers["maes"].url, {**members, "goal": "treasure"}))
    await bad.new_run()
    with pytest.raises(Refusal) as info:
        await bad.get_action("size=7 step=0 x=0 y=0 key=2,2 door=3,1 goal=5,5 has_key=0 door_open=0 at_goal=0")
    assert info.value.code == "bad-parameters" and "goal treasure is not a 0/1 item" in info.value.text

    # the activations live in the mind servers: the network's Change mind strength set them
    net = MaesNetwork([servers[n].url for n in ("explore", "goal", "open", "fetch")], goal="at_goal")
    world = connect_world(servers["keydoor"].url, run_args={"seed": 0})
    await net.new_run()
    await world.new_run()
    for _ in range(3):
        await world.execute_action((await net.get_action(await world.get_state())).action)
    held = [await m.get_strength() for m in net.minds]  # type: ignore[attr-defined]
    assert held == pytest.approx(net.activation, abs=1e-5)
    assert held[0] < min(held[1:3]), held  # the distractor below the steps still to come
    assert [sorted(link.pre) for link in net.links or []] == [[], ["door_open"], ["has_key"], []]
    await net.end_run()
