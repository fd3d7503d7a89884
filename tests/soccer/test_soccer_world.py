"""The shared soccer World in process: each step's score is the change of the team's goal
difference, a finished match is recorded (and saved) and the next clients get a new match
without a restart, and a player that leaves before the kick off frees its place."""

from __future__ import annotations

import asyncio
import json

import pytest

from wwm.protocol.errors import Refusal
from wwm.soccer.players import decide
from wwm.soccer.world import SoccerWorld


async def play(world: SoccerWorld, teams: tuple[str, str]) -> list[tuple[float, dict]]:
    bodies = [await world.join(team=t) for t in teams]

    async def one(body, shoot: bool) -> tuple[float, dict]:
        total, first = 0.0, True
        while True:
            state = json.loads(await body.get_state())
            action = decide(state, "chaser") if shoot else "(done)"
            if shoot and first:  # (a move is allowed before the kick off is taken)
                action, first = "(move -1 0)", False
            outcome = await body.execute_action(action)
            total += outcome.score
            if outcome.finished:
                return total, json.loads(outcome.state)
    return await asyncio.gather(one(bodies[0], True), one(bodies[1], False))


async def test_scores_are_goal_differences_and_a_new_match_follows_the_last(tmp_path):
    world = SoccerWorld(players=1, half=100, synch=True, cycle_ms=2000, record=str(tmp_path),
                        config='{"player_rand": 0, "ball_rand": 0, "goal_pause_cycles": 2}')
    (left, last_l), (right, last_r) = await play(world, ("A", "B"))
    goals = last_l["score"]
    assert last_l["playmode"] == "time_over" and goals == last_r["score"]
    assert goals["l"] >= 1  # a chaser against a player who stands still
    assert left == goals["l"] - goals["r"] == -right
    saved = json.loads((tmp_path / "match-1.json").read_text())
    assert saved["score"] == [goals["l"], goals["r"]] and saved["teams"] == ["A", "B"]
    assert world.finished[-1]["match"] == 1
    (again, _), _ = await play(world, ("C", "D"))  # the same server, a new match
    assert world.matches == 2 and world.finished[-1]["teams"] == ["C", "D"]
    assert (tmp_path / "match-2.json").is_file() and again == left  # seeded, the same moves: the same result


async def test_a_player_leaving_before_the_kick_off_frees_its_place_and_its_side():
    world = SoccerWorld(players=1)
    body = await world.join(team="Early")
    await body.end_run()
    late = await world.join(team="Late")
    assert json.loads(await late.get_state())["side"] == "l"
    await world.join(team="Other")
    with pytest.raises(Refusal, match="between Late and Other"):
        await world.join(team="Third")
    with pytest.raises(Refusal, match="cycle_ms"):
        SoccerWorld(cycle_ms=0)
    with pytest.raises(Refusal, match="config must be a JSON object"):
        SoccerWorld(config="[1]")
