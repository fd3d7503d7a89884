"""Trained policies as Minds (``wwm serve sb3:ppo model.zip``), over real server processes: a
PPO policy trained with Stable-Baselines3 on a served CartPole through ``WorldEnv``
(examples/sb3/train_and_run.py), served as a Mind, plays in a served Mind_AS exactly as it
plays in process, beats the random mind there, and joins a society of hand-written minds."""

from __future__ import annotations

import asyncio
import importlib.util
import statistics
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from wwm.cli.main import main
from wwm.client.remote import connect_mind
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sb3"
SEEDS = range(4)


def _example():
    spec = importlib.util.spec_from_file_location("sb3_example", EXAMPLE / "train_and_run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example():
    return _example()


@pytest.fixture(scope="module")
def cartpole():
    with ServerProcess("gym:CartPole-v1") as server:
        yield server


@pytest.fixture(scope="module")
def model(example, cartpole, tmp_path_factory):
    # model.save notes the versions of what it finds, trying `import gym` (OpenAI Gym): with
    # tests/ on sys.path that would be tests/gym, a namespace package with no __version__
    # (not mock.patch.dict: it would drop torch's modules, imported meanwhile, from sys.modules)
    before = sys.modules.get("gym")
    sys.modules["gym"] = None  # type: ignore[assignment]  # `import gym` raises ImportError
    try:
        # 3072 steps (12 rollouts): seconds, and well past the random mind already
        return example.train(cartpole.url, tmp_path_factory.mktemp("sb3") / "ppo.zip", steps=3072)
    finally:
        if before is None:
            del sys.modules["gym"]
        else:
            sys.modules["gym"] = before


@pytest.fixture(scope="module")
def society(example, model):
    with example.servers(model) as found:
        yield found


def in_process(model: Path, seeds) -> list[float]:
    """The saved policy's episode lengths on a local CartPole, seed by seed."""
    from stable_baselines3 import PPO

    policy = PPO.load(model, device="cpu")
    env = gym.make("CartPole-v1")
    lengths = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        done, steps = False, 0
        while not done:
            action, _ = policy.predict(observation, deterministic=True)
            observation, _, terminated, truncated, _ = env.step(action)
            steps, done = steps + 1, terminated or truncated
        lengths.append(float(steps))
    return lengths


@pytest.mark.slow
def test_the_served_policy_beats_the_random_mind_in_an_as_run(example, cartpole, model, society):
    as_url = society["as"].url
    trained = asyncio.run(example.episodes(as_url, cartpole.url, [society["sb3"].url], SEEDS))
    randomly = asyncio.run(example.episodes(as_url, cartpole.url, [society["random"].url], SEEDS))
    # through the network it plays exactly as in process (the same seeds, the same episodes)
    assert trained == in_process(model, SEEDS)
    assert statistics.mean(trained) > 2 * statistics.mean(randomly), (trained, randomly)
    card = society["sb3"].card()
    assert card["role"] == "mind" and card["state_space"]["shape"] == [4]
    assert card["action_space"] == {"type": "Discrete", "n": 2, "start": 0}
    assert as_url in [link["url"] for link in card["credit_trail"]["called_by"]]


@pytest.mark.slow
def test_the_policy_plays_in_a_society_of_hand_written_minds(example, cartpole, society):
    minds = example.societies(society)["sb3 + lean + chase + random"]
    assert len(minds) == 4
    scores = asyncio.run(example.episodes(society["as"].url, cartpole.url, minds, SEEDS[:2]))
    assert all(s >= 1 for s in scores)
    calls = [link["url"] for link in society["as"].card()["credit_trail"]["calls"]]
    assert set(minds) <= set(calls)


@pytest.mark.slow
def test_a_world_whose_spaces_are_not_the_policy_s_is_refused_by_name(cartpole, society):
    async def start(world: str) -> None:
        mind = connect_mind(society["sb3"].url, world=world)
        try:
            await mind.new_run("http://me.example/")
            await mind.end_run()
        finally:
            await mind.aclose()

    asyncio.run(start(cartpole.url))  # its own world: the card's forms, checked
    with ServerProcess("grid") as grid, pytest.raises(Refusal) as info:
        asyncio.run(start(grid.url))
    assert info.value.code == "bad-parameters"
    assert "state_space" in info.value.text and "policy" in info.value.text


@pytest.mark.parametrize(("argv", "says"), [
    (["sb3:ppo"], "needs the model file"),
    (["sb3:chess", "x.zip"], "unknown algorithm 'chess'"),
    (["sb3:ppo", "/nonexistent/ppo.zip"], "no model file"),
    (["grid", "model.zip"], "goes with sb3:<algo> only"),
])
def test_serve_sb3_says_what_is_wrong(capsys, argv, says):
    assert main(["serve", *argv, "--port", "0"]) == 2
    assert says in capsys.readouterr().err


@pytest.mark.slow
async def test_a_policy_mind_survives_a_snapshot(model):
    """Pickled (a server's --state snapshot) as its model file and run, restored on the same class."""
    import pickle

    from wwm.gym.sb3 import policy_mind

    mind = policy_mind("ppo", str(model))()
    await mind.new_run("http://me.example/")
    state = "[0.01, 0.2, -0.03, -0.3]"
    before = await mind.get_action(state)
    copy = pickle.loads(pickle.dumps(mind))
    assert type(copy) is type(mind) and copy.steps == 1
    assert await copy.get_action(state) == before
