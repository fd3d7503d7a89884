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


@pytest.mark.slow
def test_wwm_soccer_picture_draws_a_recording_and_names_a_file_that_is_none(tmp_path):
    import subprocess
    import sys

    from wwm.soccer.match import Match
    from wwm.soccer.params import Params
    from wwm.soccer.recording import recording

    m = Match(Params(players=2, half_cycles=5))
    for side in (0, 1):
        for unum in (1, 2):
            m.add_player(side, unum)
    m.start()
    while not m.finished:
        m.step()
    (tmp_path / "match.json").write_text(json.dumps(recording(m, 1)))
    (tmp_path / "other.json").write_text("{}")
    wwm_soccer = [sys.executable, "-m", "wwm.cli.main", "soccer", "picture"]
    done = subprocess.run([*wwm_soccer, str(tmp_path / "match.json"), "--out", str(tmp_path / "field.png"),
                           "--cycle", "3"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "field.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([*wwm_soccer, str(tmp_path / "other.json"), "--out", str(tmp_path / "x.png")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a soccer recording" in bad.stderr
