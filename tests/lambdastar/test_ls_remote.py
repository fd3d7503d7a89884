"""Any mind on the network takes the test: Λ* served as a shared World server, minds served
by ``wwm serve`` and a mind written in JavaScript, alone and as collectives. Where the protocol
is the point and not the process, the servers are the same apps hosted in this process (the
in-process binding, no socket); the command's tests, the JavaScript mind and the probe minds
(which time out, answer nonsense or are not there) use real processes."""

import asyncio
import contextlib
import itertools
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from wwm.client.inprocess import host
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.harness import Setting, play
from wwm.lambdastar.remote import administer
from wwm.lambdastar.service import administer_test
from wwm.server import make_app
from wwm.server.process import ServerProcess, free_port
from wwm.targets import load_target

pytestmark = pytest.mark.slow
WORLD = "wwm.lambdastar.world:LambdaStarWorld"
MINDS = "wwm.lambdastar.minds"
JS = Path(__file__).resolve().parents[2] / "examples" / "lambdastar" / "local_search_mind.js"
HERE = Path(__file__).resolve().parent


_HOSTED = itertools.count()


@contextlib.asynccontextmanager
async def served(target: str, **args):
    """``target`` (module:Class) served in this process with these arguments, as ``wwm serve
    --arg`` gives them; its URL."""
    url = f"http://{target.rpartition(':')[2].lower()}-{next(_HOSTED)}.ls.inprocess.test/"
    async with host(make_app(load_target(target), url=url, defaults={k: str(v) for k, v in args.items()})):
        yield url


def probe(**args) -> ServerProcess:
    """A ProbeMind server (probe_mind.py in this folder) with these arguments."""
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    return ServerProcess("probe_mind:ProbeMind", args=args, env={"PYTHONPATH": path})


def test_remote_oracles_score_exactly_as_in_process():
    """Both oracles over the network: the original one steps towards Good's next cell, the
    paper's intercepts Good on its path ahead (before, a remote oracle only ever stepped
    towards Good's next cell, and scored below the in-process paper oracle)."""
    args = dict(grid=7, iterations=20, episodes=4, agents=2, profile="original", seed=4,
                oracle_hints="true")
    # (real processes: administer_test sits the test in a child process of its own)
    with ServerProcess(WORLD, args=args) as world, ServerProcess(f"{MINDS}:OracleMind") as mind:
        card = json.loads(urllib.request.urlopen(world.url + "?format=json").read())
        text = json.dumps(card)
        assert "up-left" in text and "Moore neighbourhood" in text     # formats documented at its URL
        remote = asyncio.run(administer(world.url, [mind.url, mind.url]))
        paper = asyncio.run(administer_test([mind.url, mind.url], grid=7, iterations=20, episodes=12,
                                            seed=4, oracle_hints=True))
    local = play(Setting("oracle", 2), build(BatterySpec(7, 20, 4, "original", 4)))
    assert remote.scores.tolist() == local.scores.tolist()
    intercepting = play(Setting("oracle", 2), build(BatterySpec(7, 20, 12, "paper", 4)))
    assert paper.scores.tolist() == intercepting.scores.tolist() and paper.complete


async def test_shared_world_refuses_bad_actions_and_other_settings():
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

    async with served(WORLD, grid=7, iterations=5, episodes=2) as world:
        await go(world)


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


async def test_remote_collectives_of_python_minds_sit_the_test():
    args = dict(grid=6, iterations=15, episodes=8, agents=3, seed=1)
    async with served(WORLD, **args) as world, served(f"{MINDS}:QLearningMind", team="blue") as mind, \
            served(f"{MINDS}:StigmergyMind") as stig:
        q = await administer(world, [mind] * 3)
        s = await administer(world, [stig] * 3)
    assert q.per_mind.shape == (8, 3) and -1 <= q.upsilon <= 1
    assert s.upsilon > 0.3


async def test_remote_collectives_play_like_in_process_collectives():
    """Wisdom-of-crowd minds on a server act as the in-process collective does (same
    environments; only the tie-breaking draws differ, so the scores agree within noise)."""
    args = dict(grid=7, iterations=20, episodes=12, agents=3, seed=6)
    async with served(WORLD, **args) as world, served(f"{MINDS}:TeamMind", agent="woc", team="crowd") as woc, \
            served(f"{MINDS}:SarsaMind", team="s") as sarsa:
        remote = await administer(world, [woc] * 3)
        learners = await administer(world, [sarsa] * 3)
    local = play(Setting("woc", 3), build(BatterySpec(7, 20, 12, "paper", 6)))
    assert abs(remote.upsilon - local.upsilon) < 0.12 and remote.upsilon > 0.3
    assert learners.per_mind.shape == (12, 3)


async def test_a_second_sitting_starts_from_scratch():
    """Two cohorts in a row on one world server: the shared-table minds do not carry the
    first sitting's table into the second (states name their cohort)."""
    args = dict(grid=6, iterations=10, episodes=1, agents=2, seed=3)
    async with served(WORLD, **args) as world, served(f"{MINDS}:TeamMind", agent="woc", team="again") as woc:
        first = await administer(world, [woc] * 2)
        second = await administer(world, [woc] * 2)
    assert first.per_mind.shape == second.per_mind.shape == (1, 2)
    local = play(Setting("woc", 2), build(BatterySpec(6, 10, 1, "paper", 3)))
    assert abs(second.upsilon - local.upsilon) < 0.25


def test_unreachable_mind_is_reported_without_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--mind",
                           f"http://127.0.0.1:{free_port()}/", "--episodes", "2", "--iterations", "3",
                           "--no-plots", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "nothing is listening at" in done.stderr and "Traceback" not in done.stderr


async def test_minds_on_different_servers_cooperate_by_marks_in_the_world():
    args = dict(grid=7, iterations=20, episodes=6, agents=3, seed=2)
    async with served(WORLD, **args) as world, served(f"{MINDS}:TrailMind") as one, \
            served(f"{MINDS}:TrailMind") as two:
        trail = await administer(world, [one, two, two])
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


def test_marks_arrive_in_the_iteration_they_belong_to(tmp_path):
    """Two probe minds mark every iteration (r̂ = 7 and 3) and record what they see: the
    marks on a cell are this iteration's reward there plus the highest r̂ of the minds that
    observe it now (before, marks showed up one iteration late)."""
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    with probe(log=logs[0], rhat=7) as a, probe(log=logs[1], rhat=3, seed=1) as b:
        result = asyncio.run(administer_test([a.url, b.url], grid=5,
                                             iterations=12, episodes=3, seed=3))
    assert result.complete and result.agents == 2 and result.episodes == 3
    seen = [{(d["episode"], d["iteration"]): d for d in map(json.loads, log.read_text().split("\n")[:-1])
             if "marks" in d} for log in logs]
    assert set(seen[0]) == set(seen[1]) == {(e, i) for e in (1, 2, 3) for i in range(1, 13)}
    overlaps = 0
    for key, mine in seen[1].items():
        theirs = set(seen[0][key]["cells"])
        for cell, reward, mark in zip(mine["cells"], mine["rewards"], mine["marks"], strict=True):
            assert mark == reward + (7 if cell in theirs else 3), (key, cell)
            overlaps += cell in theirs
    assert overlaps > 20  # the neighbourhoods met often enough to tell
    for mine in seen[0].values():  # A's own (higher) marks are on every cell it sees
        assert mine["marks"] == [r + 7 for r in mine["rewards"]]


def test_minds_that_fail_are_recorded_and_the_test_goes_on():
    """A mind that times out, one that answers nonsense and one that is not there: each
    gets a failure record naming when and why; the test runs to its end, the others play
    on, and progress reaches the last episode."""
    seen: list[tuple[int, int]] = []
    with probe() as good, probe(sleep=5, at=3) as slow, probe(jump=True, at=2) as wrong:
        gone = f"http://127.0.0.1:{free_port()}/"
        result = asyncio.run(administer_test([good.url, slow.url, wrong.url, gone], grid=6,
                                             iterations=6, episodes=3, seed=1, timeout=1.5,
                                             progress=lambda done, total: seen.append((done, total))))
    assert result.episodes == 3 and result.per_mind.shape == (3, 4) and not result.complete
    why = {f.mind: f for f in result.failures}
    assert set(why) == {2, 3, 4}
    assert (why[2].episode, why[2].iteration) == (1, 3) and "within 1.5 s" in why[2].reason
    assert (why[3].episode, why[3].iteration) == (1, 2) and "'jump'" in why[3].reason
    assert why[4].episode is None and "nothing is listening at" in why[4].reason
    assert seen[-1] == (3, 3) and len(seen) == 3
    document = json.dumps(result.as_dict())
    assert '"agents": 4' in document and '"profile": "paper"' in document


def test_comma_separated_minds_through_the_cli(tmp_path):
    with ServerProcess(f"{MINDS}:LocalSearchMind") as one, ServerProcess(f"{MINDS}:TrailMind") as two:
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--mind",
                               f"{one.url},{two.url}", "--episodes", "4", "--iterations", "10",
                               "--grid", "6", "--no-plots", "--out", str(tmp_path)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "results.json").read_text())[0]
    assert row["job"]["size"] == 2 and len(row["scores"]) == 4


def test_a_cancelled_test_stops_every_body_at_once():
    """The service runs in its caller's event loop: cancelling it leaves nothing running."""
    async def go(url: str) -> set:
        sitting = asyncio.create_task(administer_test([url, url], grid=6, iterations=50,
                                                      episodes=50, timeout=10))
        await asyncio.sleep(1.0)
        sitting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sitting
        await asyncio.sleep(0.2)
        return asyncio.all_tasks() - {asyncio.current_task()}

    with probe(sleep=0.05, at=1) as slow:
        assert asyncio.run(go(slow.url)) == set()
