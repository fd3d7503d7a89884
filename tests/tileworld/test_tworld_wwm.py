"""The Tileworld on the WWM network: served by ``wwm serve`` (state = percept JSON, action =
action string), played by a remote Mind, by ``wwm run``, and refusing bad input clearly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest

import wwm
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow
WORLD = "wwm.tileworld.wwm_world:TileworldWorld"
MIND = "wwm.tileworld.wwm_world:TileworldMind"


@pytest.fixture(scope="module")
def servers():
    with ServerProcess(WORLD) as world, ServerProcess(MIND) as mind:
        yield world, mind


async def test_a_remote_mind_plays_the_remote_tileworld(servers):
    world_server, mind_server = servers
    world = wwm.connect(world_server.url, seed=4, time=30, gamma=0.5, opponents="deliberative")
    mind = wwm.connect(mind_server.url, agent="reactive")
    await world.new_run()
    await mind.new_run()
    state = await world.get_state()
    first = json.loads(state)
    assert first["header"] == "start" and len(first["data"]["environment"]["agents"]) == 2
    steps, total = 0, 0.0
    while True:
        suggestion = await mind.get_action(state)
        outcome = await world.execute_action(suggestion.action)
        steps, total, state = steps + 1, total + (outcome.score or 0), outcome.state
        if outcome.finished:
            break
    assert steps == 60 and json.loads(state)["header"] == "end"
    assert total == await world.get_current_score() > 0
    with pytest.raises(Refusal) as info:
        await world.execute_action("north")
    assert info.value.code == "run-ended"


async def test_bad_actions_and_settings_are_refused_with_reasons(servers):
    world_server, mind_server = servers
    world = wwm.connect(world_server.url)
    await world.new_run()
    with pytest.raises(Refusal) as info:
        await world.execute_action("fly away")
    assert info.value.code == "bad-parameters" and 'invalid action "fly away"' in str(info.value)
    outcome = await world.execute_action("team_message:nobody listens")  # not an action: no step
    assert json.loads(outcome.state)["data"]["environment"]["time"] == 0
    bad = wwm.connect(world_server.url, config='{"rows": 0}')
    with pytest.raises(Refusal, match="rows and columns"):
        await bad.new_run()
    mind = wwm.connect(mind_server.url)
    await mind.new_run()
    with pytest.raises(Refusal, match="not a T-World percept"):
        await mind.get_action("hello")


def test_wwm_run_plays_the_tileworld_with_the_built_in_mind(servers):
    world_server, mind_server = servers
    result = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", "--mind", mind_server.url, "--world",
                             world_server.url, "--world-arg", "time=20", "--world-arg", "seed=3"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    score = re.search(r"world's score at End run: (\d+)", result.stdout)
    assert score and int(score.group(1)) > 0


async def test_several_clients_share_one_real_time_tileworld_as_a_team():
    from wwm.tileworld.wwm_world import TileworldMind

    args = {"robots": 2, "teams": "0,1", "time": 12, "speed": 6, "seed": 2}
    with ServerProcess("wwm.tileworld.shared_world:SharedTileworld", args=args) as server:
        bodies = [wwm.connect(server.url) for _ in range(2)]
        for body in bodies:
            await body.new_run()
        extra = wwm.connect(server.url)
        with pytest.raises(Refusal) as info:
            await extra.new_run()
        assert info.value.code == "busy" and "all 2 robots" in str(info.value)

        async def play(body, mind) -> tuple[int, dict]:
            state, moves = await body.get_state(), 0
            while True:
                outcome = await body.execute_action((await mind.get_action(state)).action)
                state, moves = outcome.state, moves + 1
                if outcome.finished:
                    return moves, json.loads(state)

        minds = [TileworldMind("reactive"), TileworldMind("deliberative", seed=1)]
        results = await asyncio.wait_for(asyncio.gather(*(play(b, m) for b, m in zip(bodies, minds, strict=True))), 30)
        (moves0, last0), (moves1, last1) = results
        assert moves0 > 10 and moves1 > 10
        assert moves0 < 12 / 0.35 + 2  # a move costs 350 ms of world time: no faster than that
        ids = {last0["data"]["agent"]["id"], last1["data"]["agent"]["id"]}
        assert ids == {0, 1} and last0["data"]["agent"]["score"] == last1["data"]["agent"]["score"]  # one team
        assert await bodies[0].get_current_score() == last0["data"]["agent"]["score"]
        with pytest.raises(Refusal) as info:
            await bodies[1].execute_action("north")
        assert info.value.code == "run-ended"


@pytest.mark.parametrize("config, words", [
    ("[1]", "config must be a JSON object"),
    ("nope", "config is not JSON"),
    ('{"agents": 3}', r"agents is 1 \+ the number of opponents"),
    ('{"rows": 1, "columns": 1, "initial_state": [["X"]]}', "unknown code 'X'"),
    ('{"rows": 1, "columns": 2, "agents": 3}', "agents must be between 1 and the 2 cells"),
    ('{"rows": 1, "columns": 1, "num_holes": 0, "num_obstacles": 0, "battery": true}', "no free cell left"),
])
def test_bad_world_settings_are_refusals_naming_the_problem(config, words):
    from wwm.tileworld.wwm_world import TileworldWorld

    with pytest.raises(Refusal, match=words) as info:
        TileworldWorld(config=config)
    assert info.value.code == "bad-parameters"


@pytest.mark.parametrize("args, words", [
    ({"speed": float("nan")}, "speed must be a positive number"),
    ({"speed": 0}, "speed must be a positive number"),
    ({"teams": "0;x"}, "shared Tileworld"),
    ({"robots": 2, "teams": "0"}, "teams must put each"),
])
def test_bad_shared_world_settings_are_refusals(args, words):
    from wwm.tileworld.shared_world import SharedTileworld

    with pytest.raises(Refusal, match=words) as info:
        SharedTileworld(**args)
    assert info.value.code == "bad-parameters"


async def test_team_messages_reach_the_teammates_clients_in_their_next_state():
    """Each message rides in every state its robot is given until the robot acts: once in the
    usual loop, again in a state asked again (it used to be lost with a state lost on its way)."""
    import urllib.request

    args = {"robots": 3, "teams": "0,1;2", "time": 60, "seed": 5}
    with ServerProcess("wwm.tileworld.shared_world:SharedTileworld", args=args) as server:
        request = urllib.request.Request(server.url, headers={"accept": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as reply:
            assert '"messages"' in json.load(reply)["state_format"]  # documented at the world's URL
        from wwm.tileworld.forms import decode

        bodies = [wwm.connect(server.url, form=form) for form in ("json", "xml", "prolog")]  # each its own form
        for body in bodies:
            await body.new_run()
        states = [decode(await b.get_state()) for b in bodies]
        assert [s["messages"] for s in states] == [[], [], []] and [s["header"] for s in states] == ["start"] * 3
        sent = decode((await bodies[0].execute_action("team_message:target 3 4")).state)
        assert sent["messages"] == []  # the sender does not hear itself
        heard = decode((await bodies[1].execute_action("message:0:on my way")).state)["messages"]
        assert [(m["n"], m["from"], m["to"], m["team"], m["text"]) for m in heard] == [(0, 0, 1, True, "target 3 4")]
        assert isinstance(heard[0]["step"], int) and heard[0]["time"] >= 0
        again = await bodies[1].get_state()  # a state asked again (its answer lost, a re-query) ...
        assert again.startswith("<?xml") and decode(again)["messages"] == heard  # ... loses no message
        assert decode((await bodies[1].execute_action("none")).state)["messages"] == []  # acted on: read
        assert decode(await bodies[1].get_state())["messages"] == []
        reply = decode((await bodies[0].execute_action("none")).state)["messages"]
        assert [(m["n"], m["from"], m["team"], m["text"]) for m in reply] == [(1, 1, False, "on my way")]
        other_team = await bodies[2].get_state()
        assert other_team.startswith("tw_msg(") and decode(other_team)["messages"] == []  # the other team hears nothing


@pytest.mark.parametrize("form", ["xml", "prolog"])
async def test_a_run_chooses_its_percept_form_and_the_mind_reads_it(servers, form):
    from wwm.tileworld.forms import decode

    world_server, mind_server = servers
    world = wwm.connect(world_server.url, seed=4, time=10, gamma=0.5, form=form)
    mind = wwm.connect(mind_server.url, agent="reactive")
    await world.new_run()
    await mind.new_run()
    state = await world.get_state()
    assert state.startswith("<?xml" if form == "xml" else "tw_msg(header(start), data(")
    total = 0.0
    while True:
        outcome = await world.execute_action((await mind.get_action(state)).action)
        state, total = outcome.state, total + (outcome.score or 0)
        if outcome.finished:
            break
    last = decode(state)
    assert last["header"] == "end" and last["data"]["agent"]["score"] == total > 0
    bad = wwm.connect(world_server.url, form="yaml")
    with pytest.raises(Refusal, match="choose json, xml, prolog or numbers"):
        await bad.new_run()


async def test_a_game_that_ends_between_actions_is_told_once_then_refused():
    """The shared game's clock runs on its own: a client idle past the end is given the final
    state, finished, at its next action, as one whose action waited past the end; only a client
    already given the "end" state is refused with run-ended."""
    args = {"robots": 2, "time": 3, "speed": 10, "seed": 4}       # 0.3 s of wall time
    with ServerProcess("wwm.tileworld.shared_world:SharedTileworld", args=args) as server:
        idle, looker = wwm.connect(server.url), wwm.connect(server.url)
        await idle.new_run()
        await looker.new_run()                                     # both robots taken: the clock runs
        assert json.loads(await idle.get_state())["header"] == "start"
        await asyncio.sleep(1.0)                                   # the game ends meanwhile
        outcome = await idle.execute_action("east")
        assert outcome.finished and json.loads(outcome.state)["header"] == "end"
        with pytest.raises(Refusal) as info:
            await idle.execute_action("east")
        assert info.value.code == "run-ended"
        assert json.loads(await looker.get_state())["header"] == "end"   # told by its state
        with pytest.raises(Refusal) as info:
            await looker.execute_action("east")
        assert info.value.code == "run-ended"


async def test_a_shared_tileworld_serves_three_games_in_a_row_to_different_clients():
    """No restart between games: once a game is over (or its clients have ended their runs), the
    next clients get a fresh one; a client of an old game still sees its own game, over."""
    # a game lasts 3 s of world time, 0.75 s of wall time: "fresh" is a start before its end (its
    # clock runs from the first join, so a loaded machine may see it past 0 already)
    args = {"robots": 1, "time": 3, "speed": 4, "seed": 4}
    with ServerProcess("wwm.tileworld.shared_world:SharedTileworld", args=args) as server:
        finals, old = [], []
        for game in range(3):
            body = wwm.connect(server.url)
            await body.new_run()
            first = json.loads(await body.get_state())
            assert first["header"] == "start" and first["data"]["environment"]["time"] < 3   # a fresh game
            other = wwm.connect(server.url)
            with pytest.raises(Refusal) as info:                            # the one robot is taken
                await other.new_run()
            assert info.value.code == "busy"
            while True:
                outcome = await asyncio.wait_for(body.execute_action("north" if game % 2 else "east"), 10)
                if outcome.finished:
                    break
            finals.append(json.loads(outcome.state))
            if game < 2:
                await body.end_run()
            old.append(body)
        assert all(f["data"]["environment"]["time"] >= 3 for f in finals)
        # the last game's client did not end its run, but its game is over: a fourth game starts
        fourth = wwm.connect(server.url)
        await fourth.new_run()
        assert json.loads(await fourth.get_state())["data"]["environment"]["time"] < 3
        assert json.loads(await old[2].get_state())["header"] == "end"         # its own game, over
