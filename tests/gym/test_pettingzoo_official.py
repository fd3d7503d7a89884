"""PettingZoo's own four tests -- ``parallel_api_test``, ``api_test`` over
``parallel_to_aec``, ``parallel_seed_test`` and ``seed_test`` -- on every shared World the
package lists (the registry), each served in its own process and reached through
``SharedWorldEnv``: numeric observation spaces from the cards, and ``reset(seed=)`` reaching
the world, so two environments seeded alike see alike (and seeded apart, apart). A shared
World added to the registry and not named below fails here."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from pettingzoo.utils.conversions import parallel_to_aec

from wwm.gym.parallel import SharedWorldEnv
from wwm.registry import WORLDS
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

#: How each shared World is served for the tests: its target, its arguments, and whether
#: PettingZoo's seed tests apply (a world on the server's wall clock never plays twice alike).
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "lambdastar": ("lambdastar", {"agents": 2, "grid": 6, "iterations": 4, "episodes": 2}, True),
    "tileworld-stepped": ("wwm.gym.tileworld:SteppedTileworld", {}, True),
    "tileworld-shared": ("tileworld-shared", {"robots": 2, "teams": "0,1", "speed": 40, "time": 20}, False),
}
SHARED = sorted({n for n in WORLDS if getattr(WORLDS[n], "sharing", "own") == "shared"} | set(CASES))


def test_every_shared_world_the_registry_lists_is_covered():
    assert set(SHARED) == set(CASES), f"name how to test {sorted(set(SHARED) - set(CASES))} in CASES"


@pytest.fixture(scope="module", params=SHARED)
def served(request):
    target, args, seeded = CASES[request.param]
    with ServerProcess(target, args) as server:
        yield server.url, seeded


def make(url: str) -> SharedWorldEnv:
    return SharedWorldEnv(url, agents=2)


def test_the_api_tests_pass_on_numeric_observations(served):
    url, _ = served
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # (PettingZoo's notes on optional features)
        parallel = make(url)
        parallel_api_test(parallel, num_cycles=20)
        parallel.close()                            # (its bodies leave the world to the next env)
        aec = parallel_to_aec(make(url))
        api_test(aec, num_cycles=20)
        aec.close()
    env = make(url)
    observations, _ = env.reset()
    assert all(not isinstance(o, str) and o in env.observation_space(a) for a, o in observations.items())
    env.close()


def test_the_seed_tests_pass_and_the_seed_reaches_the_world(served):
    url, seeded = served
    if not seeded:  # only a world on the server's wall clock is excused: what a robot sees depends
        # on when its actions arrive, so no two runs play alike whatever their seed
        excused = [n for n, case in CASES.items() if not case[2]]
        assert all(WORLDS[n].clock == "asynchronous" for n in excused), excused
        return
    parallel_seed_test(lambda: make(url), num_cycles=20)
    seed_test(lambda: parallel_to_aec(make(url)), num_cycles=20)

    def first_steps(seed: int) -> list[Any]:
        env = make(url)
        seen = [env.reset(seed=seed)[0]]
        for _ in range(3):
            if env.agents:
                seen.append(env.step(dict.fromkeys(env.agents, 4))[0])
        env.close()
        return seen

    def same(a: list[Any], b: list[Any]) -> bool:
        flat = [[np.asarray(v).tolist() for o in step.values() for v in o.values()] for step in a]
        other = [[np.asarray(v).tolist() for o in step.values() for v in o.values()] for step in b]
        return flat == other

    assert same(first_steps(3), first_steps(3))
    assert not same(first_steps(3), first_steps(4))       # the seed reached the world
