"""Any mind on the network takes the test: Λ* served as a shared World server, minds served
by ``wwm serve`` and a mind written in JavaScript, alone and as collectives."""

import asyncio
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.harness import Setting, play
from wwm.lambdastar.remote import administer
from wwm.server.process import ServerProcess, free_port

pytestmark = pytest.mark.slow
WORLD = "wwm.lambdastar.world:LambdaStarWorld"
MINDS = "wwm.lambdastar.minds"
JS = Path(__file__).resolve().parents[2] / "examples" / "lambdastar" / "local_search_mind.js"


def test_remote_oracles_score_exactly_as_in_process():
    args = dict(grid=7, iterations=20, episodes=4, agents=2, profile="original", seed=4,
                oracle_hints="true")
    with ServerProcess(WORLD, args=args) as world, ServerProcess(f"{MINDS}:OracleMind") as mind:
        card = json.loads(urllib.request.urlopen(world.url + "?format=json").read())
        text = json.dumps(card)
        assert "up-left" in text and "Moore neighbourhood" in text     # formats documented at its URL
        remote = asyncio.run(administer(world.url, [mind.url, mind.url]))
    local = play(Setting("oracle", 2), build(BatterySpec(7, 20, 4, "original", 4)))
    assert remote.scores.tolist() == local.scores.tolist()


def test_shared_world_refuses_bad_actions_and_other_settings():
    from wwm.client.remote import connect_world
    from wwm.protocol.errors import Refusal

    async def go(url):
        w = connect_world(url)
        await w.new_run()
        with pytest.raises(Refusal, match="not 1..9"):
            await w.execute_action("jump")
        state = json.loads(await w.get_state())
        assert state["iteration"] == 1 and len(state["cells"]) == 9 and state["reward"] is None
        out = await w.execute_action("right")
        assert out.score is not None and json.loads(out.state)["iteration"] == 2
        other = connect_world(url, grid=9)
        with pytest.raises(Refusal, match="grid=7"):
            await other.new_run()
        await w.aclose(), await other.aclose()

    with ServerProcess(WORLD, args=dict(grid=7, iterations=5, episodes=2)) as world:
        asyncio.run(go(world.url))


def test_javascript_mind_takes_the_test_through_the_cli(tmp_path):
    port = free_port()
    node = subprocess.Popen(["node", str(JS), "--port", str(port)])
    try:
        url = f"http://127.0.0.1:{port}/"
        from wwm.server.process import wait_until_up
        wait_until_up(url, 10, node)
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--mind", url, url,
                               "--episodes", "6", "--iterations", "25", "--grid", "7", "--no-plots",
                               "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    finally:
        node.terminate()
        node.wait(5)
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "results.json").read_text())[0]
    assert row["job"]["size"] == 2 and len(row["scores"]) == 6
    assert row["upsilon"] > 0.3          # local search, far above random


def test_remote_collectives_of_python_minds_sit_the_test():
    args = dict(grid=6, iterations=15, episodes=8, agents=3, seed=1)
    with ServerProcess(WORLD, args=args) as world, ServerProcess(f"{MINDS}:QLearningMind",
                                                                args={"team": "blue"}) as mind, \
            ServerProcess(f"{MINDS}:StigmergyMind") as stig:
        q = asyncio.run(administer(world.url, [mind.url] * 3))
        s = asyncio.run(administer(world.url, [stig.url] * 3))
    assert q.per_mind.shape == (8, 3) and -1 <= q.upsilon <= 1
    assert s.upsilon > 0.3


def test_remote_collectives_play_like_in_process_collectives():
    """Wisdom-of-crowd minds on a server act as the in-process collective does (same
    environments; only the tie-breaking draws differ, so the scores agree within noise)."""
    args = dict(grid=7, iterations=20, episodes=12, agents=3, seed=6)
    with ServerProcess(WORLD, args=args) as world, \
            ServerProcess(f"{MINDS}:TeamMind", args={"agent": "woc", "team": "crowd"}) as woc, \
            ServerProcess(f"{MINDS}:SarsaMind", args={"team": "s"}) as sarsa:
        remote = asyncio.run(administer(world.url, [woc.url] * 3))
        learners = asyncio.run(administer(world.url, [sarsa.url] * 3))
    local = play(Setting("woc", 3), build(BatterySpec(7, 20, 12, "paper", 6)))
    assert abs(remote.upsilon - local.upsilon) < 0.12 and remote.upsilon > 0.3
    assert learners.per_mind.shape == (12, 3)


def test_a_second_sitting_starts_from_scratch():
    """Two cohorts in a row on one world server: the shared-table minds do not carry the
    first sitting's table into the second (states name their cohort)."""
    args = dict(grid=6, iterations=10, episodes=1, agents=2, seed=3)
    with ServerProcess(WORLD, args=args) as world, \
            ServerProcess(f"{MINDS}:TeamMind", args={"agent": "woc", "team": "again"}) as woc:
        first = asyncio.run(administer(world.url, [woc.url] * 2))
        second = asyncio.run(administer(world.url, [woc.url] * 2))
    assert first.per_mind.shape == second.per_mind.shape == (1, 2)
    local = play(Setting("woc", 2), build(BatterySpec(6, 10, 1, "paper", 3)))
    assert abs(second.upsilon - local.upsilon) < 0.25


def test_unreachable_mind_is_reported_without_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--mind",
                           f"http://127.0.0.1:{free_port()}/", "--episodes", "2", "--iterations", "3",
                           "--no-plots", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "could not be reached" in done.stderr and "Traceback" not in done.stderr


def test_minds_on_different_servers_cooperate_by_marks_in_the_world():
    args = dict(grid=7, iterations=20, episodes=6, agents=3, seed=2)
    with ServerProcess(WORLD, args=args) as world, \
            ServerProcess(f"{MINDS}:TrailMind") as one, ServerProcess(f"{MINDS}:TrailMind") as two:
        trail = asyncio.run(administer(world.url, [one.url, two.url, two.url]))
    assert trail.per_mind.shape == (6, 3) and trail.upsilon > 0.3


def test_a_world_set_up_for_another_test_is_refused_by_name(tmp_path):
    """--world with settings other than the command's: the world names its own settings
    (before, the test ran on the world's settings and the per-K table crashed)."""
    args = dict(grid=7, iterations=5, episodes=3)
    with ServerProcess(WORLD, args=args) as world, ServerProcess(f"{MINDS}:LocalSearchMind") as mind:
        common = ["--mind", mind.url, "--world", world.url, "--iterations", "5", "--no-plots"]
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", *common,
                               "--grid", "10", "--episodes", "10", "--out", str(tmp_path / "a")],
                              check=False, capture_output=True, text=True, timeout=60)
        same = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", *common,
                               "--grid", "7", "--episodes", "3", "--out", str(tmp_path / "b")],
                              check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    text = done.stderr
    assert "set up as grid=7" in text and "'grid': 10" in text and "'episodes': 10" in text
    assert same.returncode == 0, same.stdout + same.stderr
    row = json.loads((tmp_path / "b" / "results.json").read_text())[0]
    assert len(row["scores"]) == 3 and sum(b["episodes"] for b in row["bands"]) == 3
