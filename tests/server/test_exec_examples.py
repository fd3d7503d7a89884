"""The example minds in C, JavaScript and POSIX shell (examples/exec/), each served by
``wwm serve-exec`` and driving a real run in the Python grid world over HTTP; and the
command's own errors."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.grid import ACTIONS
from wwm.kit.random_mind import RandomMind
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "exec"
BEHAVE = Path(__file__).with_name("behave.sh")
STEPS = 25


def serve_exec(mode: str, *program: str, options: tuple[str, ...] = ()) -> ServerProcess:
    cmd = [sys.executable, "-m", "wwm.cli.main", "serve-exec", "--mode", mode, "--port", "0",
           "--timeout", "5", *options, "--", *program]
    return ServerProcess("serve-exec", port=0, command=cmd)  # its port read from its ready line


@pytest.fixture(scope="module")
def c_mind(tmp_path_factory) -> str:
    binary = tmp_path_factory.mktemp("c") / "mind"
    subprocess.run(["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", str(binary),
                    str(EXAMPLES / "mind.c")], check=True, capture_output=True)
    return str(binary)


@pytest.fixture(scope="module")
def grid_world():
    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        yield server


async def drive(mind_server: ServerProcess, world_server: ServerProcess, seed: int = 7):
    mind = RemoteMind(mind_server.url, encoding="xml")
    world = RemoteWorld(world_server.url, seed=seed, steps=STEPS)
    try:
        return await run(mind, world, RunSettings(steps=None, keepalive=None, timeout=10.0))
    finally:
        await mind.aclose()
        await world.aclose()


def check_run(result) -> None:
    assert result.status == "ended by world", result.events
    assert len(result.steps) == STEPS and all(s.action in ACTIONS for s in result.steps)
    eaten = sum(1 for s in result.steps if (s.score or 0) > 0)
    assert eaten >= 2                                       # it goes for the food
    # the mind's own tally, kept across queries (on disk, or in its process), matches the world's
    assert result.mind_score == result.total_score == result.world_score


@pytest.mark.parametrize("mode", ["per-query", "persistent"])
async def test_c_mind_in_both_modes(c_mind, grid_world, mode):
    with serve_exec(mode, c_mind) as server:
        check_run(await drive(server, grid_world))


async def test_shell_mind_per_query(grid_world):
    with serve_exec("per-query", "sh", str(EXAMPLES / "mind.sh")) as server:
        check_run(await drive(server, grid_world))


async def test_javascript_mind_persistent(grid_world):
    with serve_exec("persistent", "node", str(EXAMPLES / "mind.js")) as server:
        result = await drive(server, grid_world)
        check_run(result)
        # two runs at once on one server: two processes, neither disturbs the other
        first, second = await asyncio.gather(drive(server, grid_world, seed=1), drive(server, grid_world, seed=1))
        assert [s.action for s in first.steps] == [s.action for s in second.steps]


SEED_NEW_RUN = b"""<xml>
<query name="New run">
<data name="world run ID"> 40031 </data>
<data name="world display URL"> http://worldserver/currentruns/40031.html </data>
</query>
</xml>
"""


def post(url: str, body: bytes) -> str:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/xml"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return reply.read().decode()


def test_the_seeds_own_xml_reaches_a_shell_mind_and_back():
    """Section 11.2.1's queries, sent verbatim over HTTP to a shell script behind serve-exec."""
    with serve_exec("per-query", "sh", str(EXAMPLES / "mind.sh")) as server:
        started = post(server.url, SEED_NEW_RUN)
        assert started.startswith("<xml>\n<response name=\"New run\">")
        run_id = re.search(r'<data name="mind run ID">([^<]+)</data>', started).group(1)
        assert len(run_id) >= 20                                  # the server's secret, not the script's
        state = "size=8 step=0 x=4 y=4 fd=2 hd=6 food=4,6 hazard=0,0"
        action = post(server.url, f"""<xml>
<query name="Get action">
<data name="mind run ID"> {run_id} </data>
<data name="state">
{state}
</data>
</query>
</xml>
""".encode())
        assert re.search(r'<response name="Get action">\s*<data name="action">north</data>', action), action


async def test_a_program_may_declare_further_query_sets(tmp_path):
    with serve_exec("persistent", "sh", str(BEHAVE), options=("--query-sets", "Mind_i")) as server:
        card = json.load(urllib.request.urlopen(server.url + "?format=json"))
        assert card["query_sets"] == ["Mind", "Mind_i"]
        mind = RemoteMind(server.url)
        await mind.new_run()
        assert await mind.get_strength() is None                  # answered by the program
        with pytest.raises(Refusal) as refused:
            await mind.get_q_temperature()                        # Mind_L: not declared
        assert refused.value.code == "unsupported-query"
        await mind.end_run()
        await mind.aclose()


async def test_a_program_that_crashes_mid_run_is_a_clear_refusal_over_http(tmp_path):
    with serve_exec("persistent", "sh", str(BEHAVE), "crash") as server:
        mind = RemoteMind(server.url, encoding="xml")
        await mind.new_run()
        with pytest.raises(Refusal) as refused:
            await mind.get_action("x=1")
        assert refused.value.code == "server-error" and "exited with status 3" in refused.value.text
        with pytest.raises(Refusal) as ended:
            await mind.get_action("x=1")
        assert ended.value.code == "run-ended"
        await mind.aclose()


async def test_a_world_program_served_with_role_world():
    world_program = Path(__file__).with_name("counter_world.sh")
    options = ("--role", "world", "--arg", "goal=4")
    with serve_exec("persistent", "sh", str(world_program), options=options) as server:
        for args, goal in [({}, 4), ({"goal": 7}, 7)]:         # --arg, or the run's own argument
            world = RemoteWorld(server.url, **args)
            result = await run(RandomMind(actions="+1,+2", seed=0), world,
                               RunSettings(steps=None, keepalive=None, timeout=10.0))
            await world.aclose()
            assert result.status == "ended by world"
            assert result.steps[-1].new_state == f"n={int(result.total_score)}"
            assert goal <= result.total_score <= goal + 1 and result.world_score == result.total_score


async def test_a_restarted_server_resumes_per_query_runs_and_ends_persistent_ones(tmp_path, grid_world):
    """11.4.1's save-to-disk state outlives even the server: killed and restarted with the
    same --state and --state-dir, it carries on each per-query run where it was."""
    def options(name: str) -> tuple[str, ...]:
        return ("--state", str(tmp_path / f"{name}.db"), "--state-dir", str(tmp_path / name))

    with serve_exec("per-query", "sh", str(EXAMPLES / "mind.sh"), options=options("q")) as server, \
            serve_exec("persistent", "sh", str(BEHAVE), options=options("p")) as persistent:
        mind, world = RemoteMind(server.url, encoding="xml"), RemoteWorld(grid_world.url, seed=7, steps=STEPS)
        other = RemoteMind(persistent.url)
        for remote in (mind, world, other):
            await remote.new_run()
        total = 0.0
        for step in range(8):
            if step == 4:
                await asyncio.gather(asyncio.to_thread(server.restart), asyncio.to_thread(persistent.restart))
            outcome = await world.execute_action((await mind.get_action(await world.get_state())).action)
            await mind.inform(outcome.state, outcome.score)
            total += outcome.score
        assert await mind.end_run(total) == total           # its tally spans the restart
        with pytest.raises(Refusal) as gone:
            await other.get_action("x")
        assert gone.value.code == "run-ended" and "server restarted" in gone.value.text
        for remote in (mind, world, other):
            await remote.aclose()


def test_serve_exec_names_what_is_wrong_with_its_command_line(capsys):
    from wwm.cli.main import main

    for command, words in [(["--", "no-such-program-xyz"], "cannot find the program 'no-such-program-xyz'"),
                           ([], "no command given"),
                           (["--", "./nowhere/mind"], "cannot find the program './nowhere/mind'"),
                           (["--", str(EXAMPLES / "README.md")], "is not executable"),
                           (["--timeout", "0", "--", "sh"], "--timeout must be positive"),
                           (["--state", "x.db", "--", "sh"], "--state needs --state-dir"),
                           (["--query-sets", "Mind_i,Mind_X", "--", "sh"], "Mind_X is not a mind query set"),
                           (["--role", "world", "--query-sets", "Mind_L", "--", "sh"],
                            "Mind_L is not a world query set")]:
        assert main(["serve-exec", *command]) == 2
        assert words in capsys.readouterr().err
