"""Another package adds an Action Selection method, a World, an ACL protocol and a command to
wwm through its entry points alone (``site/wwm_plugin_demo``: one file each and one line each in its
entry_points.txt), without a change to wwm: ``wwm list`` shows them, ``wwm serve`` serves the
World by name, ``wwm compare`` and a Mind_AS run the method, and an ACL engine holds a
conversation to the protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parent / "site"


def wwm(*argv: str, code: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """``wwm ARGV`` (or ``python -c CODE``) in a process that has the plugin installed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SITE), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "wwm.cli.main", *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


def test_wwm_list_shows_what_the_plugin_adds_and_who_added_it():
    done = wwm("list", "--json")
    assert done.returncode == 0, done.stderr
    found = {kind: {row["name"]: row for row in rows} for kind, rows in json.loads(done.stdout).items()}
    for kind, name, target in [("methods", "last-word", "wwm_plugin_demo.last_word:LastWord"),
                               ("worlds", "coin-line", "wwm_plugin_demo.coin_line:CoinLine"),
                               ("protocols", "fipa-request-when", "wwm.acl.protocols:Protocol")]:
        assert found[kind][name]["from"] == "wwm-plugin-demo" and found[kind][name]["target"] == target
    assert found["worlds"]["grid"]["from"] == "wwm"                     # beside wwm's own
    assert "last mind of the list" in found["methods"]["last-word"]["about"]


def test_without_the_plugin_they_are_not_there():
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "list", "worlds", "--json"],
                          capture_output=True, text=True, timeout=60)
    assert "coin-line" not in done.stdout and "grid" in done.stdout


@pytest.mark.slow
def test_the_plugin_world_is_served_by_name_and_run():
    code = """
import asyncio, subprocess, sys
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.region import FixedAction

server = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "serve", "coin-line", "--port", "0",
                           "--arg", "length=3"], stdout=subprocess.PIPE, text=True)
try:
    url = server.stdout.readline().split(" at ")[1].split()[0]
    async def main():
        async with RemoteWorld(url) as world:
            result = await run(FixedAction("right"), world, RunSettings(steps=6, keepalive=None))
        print(server.stdout and url, result.total_score)
    asyncio.run(main())
finally:
    server.terminate()
"""
    done = wwm(code=code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "3.0"          # a coin every second step right


def test_the_plugin_method_runs_in_compare_and_in_a_mind_as():
    done = wwm("compare", "--world", "ant", "--methods", "last-word,w=q", "--seeds", "1",
               "--steps", "20", "--train", "0", "--json", "-q")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["scores"]) == {"last-word", "w=q"}
    code = """
import asyncio
from wwm.kit.region import FixedAction
from wwm.selection.mind_as import ActionSelectionMind
mind = ActionSelectionMind([FixedAction("left"), FixedAction("right")], method="last-word")
async def main():
    await mind.new_run()
    print((await mind.get_action("x=1")).action)
asyncio.run(main())
"""
    done = wwm(code=code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "right"


def test_the_plugin_protocol_runs_in_an_acl_engine():
    code = """
from wwm.acl.engine import Engine
from wwm.acl.message import AID, ACLMessage
e, a, b = Engine(), AID("a"), AID("b")
for n, (perf, s, r, act) in enumerate([("request-when", a, b, None), ("agree", b, a, None),
                                       ("inform", b, a, None), ("inform", a, b, "declare")]):
    [v] = e.handle(ACLMessage(perf, s, (r,), content="(when rain) (close window)", conversation_id="c",
                              protocol="fipa-request-when", reply_with=f"m{n}",
                              user=(("X-act", act),) if act else ()))
    assert v.accepted, v.reason
print(e.talk("c", "a", "b").state)
"""
    done = wwm(code=code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "acknowledged"


def test_the_plugin_command_is_a_wwm_command():
    listed = wwm("--help")
    assert "tally" in listed.stdout and "count how often each word is given" in listed.stdout
    done = wwm("tally", "b", "a", "b", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["b 2", "a 1"]
    assert "wwm tally: " in wwm("tally").stderr  # its usage errors follow docs/cli.md as wwm's own do
