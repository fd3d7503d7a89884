"""The paper's m-by-n grids: a 5x10 torus through the engines, the command line, the served
world (its argument and state) and a mind sitting the test on it."""

import asyncio
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from wwm.cli.main import main
from wwm.lambdastar import vector
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.engine import Episode
from wwm.lambdastar.harness import Setting, play
from wwm.lambdastar.torus import grid_arg, grid_shape, torus
from wwm.server.process import ServerProcess

H_5X10 = math.log2(50 * 49)   # H(μ) = log2 of the ordered placements of Good and Evil, m·n(m·n - 1)


def test_a_5x10_battery_and_both_engines_stay_inside_it():
    episodes = build(BatterySpec((5, 10), 30, 40, seed=1))
    assert (episodes.grid.rows, episodes.grid.cols) == (5, 10) and episodes.entropy == pytest.approx(H_5X10)
    assert episodes.good.max() < 50 and episodes.evil.max() < 50
    g = episodes.grid
    # Good moves by king steps on the 5x10 torus: it wraps at column 10 and at row 5
    assert (g.distance[episodes.good[:, 1:], episodes.good[:, :-1]] <= 1).all()
    assert ((g.col[episodes.good] == 9) | (g.col[episodes.good] == 0)).any()
    env, rng = Episode(episodes, 0, 3), np.random.default_rng(0)
    for _ in range(30):
        before = env.positions.copy()
        actions = rng.integers(0, 9, 3)
        env.step(actions)
        assert env.positions.max() < 50
        assert np.array_equal(env.positions, g.moves[before, actions])
    for agent in ("local", "stigmergy", "qlearning"):
        assert np.array_equal(play(Setting(agent, 2), episodes).scores,
                              vector.play(Setting(agent, 2), episodes).scores)


def test_the_cli_runs_a_5x10_grid(tmp_path, capsys):
    assert main(["lambdastar", "--grid", "5x10,6", "--agents", "local", "--episodes", "30", "--iterations",
                 "20", "--no-plots", "--json", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)
    assert [r["job"]["grid"] for r in rows] == [[5, 10], 6]
    assert rows[0]["entropy"] == pytest.approx(H_5X10) and rows[0]["upsilon"] > 0.2
    assert "5x10" in out.err and "6x6" in out.err
    assert (tmp_path / "results.csv").read_text().splitlines()[1].startswith("local,1,5x10,")


@pytest.mark.parametrize("text, message", [("5x", "ROWSxCOLUMNS such as 5x10"), ("2x10", "at least 3x3")])
def test_a_bad_grid_is_named(text, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["lambdastar", "--grid", text, "--out", str(tmp_path)])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_grid_forms():
    assert grid_shape("5x10") == grid_shape([5, 10]) == grid_shape((5, 10)) == (5, 10)
    assert grid_arg(10) == grid_arg("10x10") == 10 and grid_arg([5, 10]) == "5x10"


@pytest.mark.slow
def test_the_served_world_plays_on_5x10_and_a_mind_sits_it(tmp_path):
    from wwm.client.remote import connect_world
    from wwm.protocol.errors import Refusal

    g = torus(5, 10)

    async def walk(url):
        w = connect_world(url, grid="5x10")
        await w.new_run()
        state = json.loads(await w.get_state())
        for action in [6, 6, 6, 6, 6, 8, 8, 8] * 2:   # right along a row, then down: wraps both ways
            assert state["grid"] == [5, 10] and 1 <= state["cell"] <= 50
            assert state["cells"] == [c + 1 for c in g.neighbourhood(state["cell"] - 1)]
            cell = state["cell"] - 1
            state = json.loads((await w.execute_action(str(action))).state)
            if not state["finished"] and state["iteration"] > 1:
                assert state["cell"] - 1 == g.move(cell, action - 1)
        with pytest.raises(Refusal, match="grid=5x10"):
            await connect_world(url, grid=10).new_run()
        await w.aclose()

    async def hosted(args):  # the world's app in this process: the protocol is the point here
        from wwm.client.inprocess import host
        from wwm.server import make_app
        from wwm.targets import load_target

        app = make_app(load_target("wwm.lambdastar.world:LambdaStarWorld"), url="http://ls-5x10.inprocess.test/",
                       defaults={k: str(v) for k, v in args.items()})
        async with host(app) as url:
            await walk(url)

    args = dict(grid="5x10", iterations=8, episodes=3, agents=1, seed=2)
    asyncio.run(hosted(args))
    with ServerProcess("wwm.lambdastar.world:LambdaStarWorld", args={**args, "iterations": 20, "episodes": 6}) \
            as world, ServerProcess("wwm.lambdastar.minds:LocalSearchMind") as mind:
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--mind", mind.url,
                               "--world", world.url, "--grid", "5x10", "--episodes", "6", "--iterations",
                               "20", "--seed", "2", "--no-plots", "--out", str(tmp_path)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "results.json").read_text())[0]
    assert row["job"]["grid"] == [5, 10] and row["entropy"] == pytest.approx(H_5X10)
    assert len(row["scores"]) == 6 and row["upsilon"] > 0.2


def test_the_portal_challenge_form_takes_a_5x10_grid():
    from starlette.datastructures import FormData

    from wwm.portal.challenges import ChallengeError, lambdastar_settings

    assert lambdastar_settings(FormData({"grid": "5x10", "iterations": "20"}), 10)["grid"] == "5x10"
    assert lambdastar_settings(FormData({"grid": "7"}), 10)["grid"] == 7
    with pytest.raises(ChallengeError, match="ROWSxCOLUMNS"):
        lambdastar_settings(FormData({"grid": "5 by 10"}), 10)
