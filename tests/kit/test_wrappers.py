"""World_W sub-space wrappers (4.1.1): a sub-space of the wrapped world's state, actions passed
through, chainable; locally and as a chain of servers on loopback."""

from __future__ import annotations

import json
import urllib.request

import pytest

from wwm import Mind, Refusal, Suggestion
from wwm.client.remote import RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.wrappers import SubspaceWorld, parse_keys, project
from wwm.selection.ant import AntWorld
from wwm.server.process import ServerProcess


def test_project_keeps_the_named_items_in_the_worlds_order():
    assert project("i=0 n=3 f=2 p=9", ("f", "i")) == "i=0 f=2"
    assert parse_keys("i, f") == ("i", "f") and parse_keys(["n"]) == ("n",)
    with pytest.raises(Refusal, match="names q, z, which the state does not have"):
        project("i=0 n=3", ("i", "q", "z"))
    for bad, text in [("", "at least one key"), ("i,i", "twice"), ("i=1", "not a key")]:
        with pytest.raises(ValueError, match=text):
            parse_keys(bad)


async def test_a_wrapper_shows_a_sub_space_and_passes_actions_through():
    inner, twin = AntWorld(seed=4), AntWorld(seed=4)
    body = SubspaceWorld(inner, keep="i,f")
    await body.new_run()
    await twin.new_run()
    assert await body.get_state() == project(await twin.get_state(), ("i", "f"))
    for action in ["0", "2", "4", "8", "6"] * 10:
        got, want = await body.execute_action(action), await twin.execute_action(action)
        assert got.state == project(want.state, ("i", "f")) and got.score == want.score
    assert await body.get_current_score() == await twin.get_current_score()


async def test_wrappers_chain_and_each_sees_a_subset():
    chain = SubspaceWorld(SubspaceWorld(AntWorld(seed=2), keep="i,n,f"), keep="n")
    await chain.new_run()
    state = await chain.get_state()
    assert state.startswith("n=") and len(state.split()) == 1
    with pytest.raises(Refusal, match="names p"):  # p was already cut away one level down
        await SubspaceWorld(SubspaceWorld(AntWorld(), keep="i,n"), keep="p").new_run()
    with pytest.raises(ValueError, match="URL of a World server"):
        SubspaceWorld("ant world", keep="i")


class Homing(Mind):
    """Reads only n=<direction>: heads for the nest, then steps off and back on."""

    async def get_action(self, state: str, **step) -> Suggestion:
        assert state.startswith("n=") and len(state.split()) == 1, state
        d = int(state.split("=")[1])
        return Suggestion(str(d) if d < 8 else "0")


def card(url: str) -> dict:
    with urllib.request.urlopen(url + "?format=json", timeout=5) as reply:
        return json.loads(reply.read())


@pytest.mark.slow
async def test_a_chain_of_wrapper_servers_runs_a_mind_and_credits_the_world():
    world = ServerProcess("wwm.selection.ant:AntWorld", args={"seed": 5})
    first = ServerProcess("wwm.kit.wrappers:SubspaceWorld", args={"world": world.url, "keep": "i,n,f"})
    second = ServerProcess("wwm.kit.wrappers:SubspaceWorld", args={"world": first.url, "keep": "n"})
    with world, first, second:
        result = await run(Homing(), RemoteWorld(second.url), RunSettings(steps=40, keepalive=None))
        assert result.status == "completed" and len(result.steps) == 40
        assert all(s.new_state.startswith("n=") for s in result.steps)
        assert "n=8" in {s.new_state for s in result.steps}  # it got home through two bodies
        assert {link["url"] for link in card(second.url)["credit_trail"]["calls"]} == {first.url}
        assert {link["url"] for link in card(first.url)["credit_trail"]["calls"]} == {world.url}
        assert first.url in {link["url"] for link in card(world.url)["credit_trail"]["called_by"]}
        assert "keep" in json.dumps(card(second.url)["arguments"])
