"""``wwm serve module:Class --arg k=v`` builds one instance with its defaults at start, so a
value the constructor itself rejects stops the server with exit code 2 and one line naming
the argument and the reason, rather than at the first New run. Which classes are built at
start: own-copy ones that allow it (``build_at_start``), with every required argument given."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import ClassVar

import pytest

from wwm import Refusal, World
from wwm.client import RemoteMind, RemoteWorld
from wwm.server import build_at_start
from wwm.server.process import ServerProcess

AS_MIND = "wwm.selection.mind_as:ActionSelectionMind"


def serve(target: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", "serve", target, "--port", "0", *args],
                          check=False, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "160"})


@pytest.mark.slow
@pytest.mark.parametrize(("args", "named", "reason"), [
    (["--arg", "method=nonsense"], "method=nonsense", "unknown method 'nonsense'"),
    (["--arg", "method=w-learning", "--arg", "timeout=-2"], "timeout=-2", "timeout must be positive"),
    # only together are they wrong: the one whose removal mends it is named
    (["--arg", "timeout=3", "--arg", "candidates=shared"], "candidates=shared", "needs the shared suite"),
    # two wrong values: neither alone mends it, so both are named
    (["--arg", "method=nonsense", "--arg", "timeout=-2"], "method=nonsense, timeout=-2", "unknown method"),
])
def test_a_value_the_constructor_rejects_stops_the_server(args: list[str], named: str, reason: str) -> None:
    done = serve(AS_MIND, *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    them = "them" if "," in named else "it"
    assert lines[0].startswith(f"wwm serve: bad --arg: {named}: ActionSelectionMind rejects {them}: ")
    assert reason in lines[0]


@pytest.mark.slow
async def test_a_good_value_still_serves() -> None:
    with ServerProcess(AS_MIND, args={"method": "w-learning", "timeout": "1.5"}) as server:
        async with RemoteMind(server.url) as mind:
            await mind.new_run()
            assert not (await mind.get_action("x")).can_suggest  # no minds to ask: it says so
            await mind.end_run()


@pytest.mark.slow
async def test_a_class_each_run_must_complete_still_serves() -> None:
    # RegionMind builds only with the region and minds each run gives: a timeout alone is no fault
    with ServerProcess("wwm.kit.region:RegionMind", args={"timeout": "5"}) as server:
        async with RemoteMind(server.url, region="x<3", minds=["action:a", "action:b"]) as mind:
            await mind.new_run()
            assert (await mind.get_action("x=1")).action == "a"
            await mind.end_run()


@pytest.mark.slow
async def test_defaults_may_leave_a_required_argument_to_each_run() -> None:
    # MindAsWorld needs `mind`; a server may default only `opening` (refused at start before)
    with ServerProcess("wwm.kit.mind_as_world:MindAsWorld", args={"opening": "Hi there"}) as server:
        async with RemoteWorld(server.url) as without:
            with pytest.raises(Refusal) as refused:
                await without.new_run()
            assert refused.value.code == "bad-parameters" and "missing argument 'mind'" in refused.value.text
        async with RemoteWorld(server.url, mind="action:wave") as world:
            await world.new_run()
            assert await world.get_state() == "Hi there"
            await world.end_run()


# ---- which classes are built: the rule, in process -----------------------------------------
class Picky(World):
    built: ClassVar[int] = 0

    def __init__(self, size: int = 3) -> None:
        type(self).built += 1
        if size > 10:
            raise ValueError("size must be at most 10")


class SharedPicky(Picky):
    sharing = "shared"


class OptedOut(Picky):
    build_at_start = False


class Needy(Picky):
    def __init__(self, path: str, size: int = 3) -> None:
        super().__init__(size)


class Regional(World):
    """Nothing to judge: its own defaults do not build it either; each run gives a region."""

    def __init__(self, region: str = "", size: int = 3) -> None:
        if not region:
            raise ValueError("needs a region")


class Broken(World):
    def __init__(self, size: int = 3) -> None:
        raise OSError("no such device")


def test_the_rule() -> None:
    with pytest.raises(Refusal) as refused:
        build_at_start(Picky, {"size": "11"})
    assert refused.value.code == "bad-parameters"
    assert refused.value.text == "size=11: Picky rejects it: size must be at most 10"
    Picky.built = 0
    build_at_start(Picky, {"size": "4"})
    build_at_start(Picky, {})                     # no --arg: nothing to check, nothing built
    build_at_start(SharedPicky, {"size": "11"})   # the shared instance is the world itself
    build_at_start(OptedOut, {"size": "11"})      # the class says no
    build_at_start(Needy, {"size": "11"})         # `path` is left to each run
    assert Picky.built == 1
    with pytest.raises(Refusal, match=r": size=11: Needy rejects it: size must"):  # `path` given: judged
        build_at_start(Needy, {"path": "/p", "size": "11"})
    build_at_start(Regional, {"size": "4"})       # a run's own region is still to come
    build_at_start(Broken, {"size": "4"})         # not a rejected value: logged, the server starts
    with pytest.raises(Refusal, match="argument 'size'"):  # a wrong type, refused before building
        build_at_start(Picky, {"size": "big"})


def test_agent_servers_are_not_built_at_start() -> None:
    from wwm.acl.contractnet import Contractor

    # building one would register the agent without its server's URL as its address
    build_at_start(Contractor, {"name": "nobody-at-start"})
    assert not any(name == "nobody-at-start" for _, name in Contractor._agents)
