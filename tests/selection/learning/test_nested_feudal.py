"""Nested minds learn whom to call from being told who won (10.17); Feudal minds learn to take
their master to the state it orders (10.18)."""

from __future__ import annotations

import random

import pytest

from wwm import CompetingMind, Outcome, Suggestion, World
from wwm.client.runner import RunSettings, run
from wwm.selection import ActionSelectionMind
from wwm.selection.learning import FeudalQMind, NestedMind


@pytest.fixture(autouse=True)
def knowledge_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))


class Fixed(CompetingMind):
    """Always suggests ``action`` with W = ``w``; named by ``url``."""

    def __init__(self, action: str, w: float, url: str) -> None:
        self.action, self.w, self.url = action, w, url

    async def get_action(self, state: str, **step) -> Suggestion:
        return Suggestion(self.action, q=1.0)

    async def get_suggestion(self, state: str, **step) -> Suggestion:
        return Suggestion(self.action, q=1.0, w=self.w)


class Bandit(World):
    """One state; action "g" scores 1, anything else 0."""

    async def get_state(self) -> str:
        return "s"

    async def execute_action(self, action: str) -> Outcome:
        return Outcome("s", 1.0 if action == "g" else 0.0)


async def test_a_nested_mind_learns_to_call_the_mind_that_won_for_it():
    good = Fixed("g", w=0.3, url="http://good.example/")
    nested = NestedMind(peers=["http://good.example/"], actions="x,y", reward="score", gamma=0.0,
                        w="q", q_temperature=0.0)
    society = ActionSelectionMind([nested, good], method="static-w")
    result = await run(society, Bandit(), RunSettings(steps=20, keepalive=None))
    assert result.steps[0].score == 1.0 and society.last.note == "via http://good.example/"
    # step 1: good won, and nested, told the winner's URL, learnt Q(s, call good) = 1;
    # from then on nested bids W = Q = 1 > 0.3, wins, and answers with good's URL
    assert nested.table.value("s", nested.actions.index("mind:http://good.example/")) == pytest.approx(1.0)
    assert nested.table.value("s", 0) == 0.0
    s = await nested.get_suggestion("s")
    assert s.mind_url == "http://good.example/" and s.action is None and s.w == pytest.approx(1.0)
    assert result.total_score == 20.0
    with pytest.raises(ValueError, match="URL of a Mind server"):
        NestedMind(peers="good")


class Corridor:
    """Cells 0..5 in a row; "left" and "right"."""

    def __init__(self) -> None:
        self.pos = 0

    def step(self, action: str) -> str:
        self.pos = max(0, min(5, self.pos + (1 if action == "right" else -1)))
        return f"pos={self.pos}"


async def test_a_feudal_mind_learns_to_take_its_master_where_it_is_told():
    slave = FeudalQMind(actions="left,right", q_temperature=1.0, run_length=6000, seed=3)
    await slave.new_run("http://lord.example/")
    world, rng = Corridor(), random.Random(0)
    goal = "pos=5"
    for _ in range(6000):
        x = f"pos={world.pos}"
        if x == goal:
            goal = f"pos={rng.choice([p for p in range(6) if p != world.pos])}"
        s = await slave.take_me_to(x, goal)
        await slave.inform(world.step(s.action))
    assert slave.arrivals > 300
    for here in range(6):
        for there in range(6):
            if here == there:
                continue
            s = await slave.take_me_to(f"pos={here}", f"pos={there}", q_temperature=0)
            assert s.action == ("right" if there > here else "left"), (here, there)
            v = await slave.how_good(f"pos={here}", f"pos={there}", s.action)
            assert v.w == 0.0 and v.q > 0
    await slave.end_run()
    again = FeudalQMind(actions="left,right")
    await again.new_run("http://someone.example/", other_client_url="http://lord.example/")
    assert (await again.take_me_to("pos=1", "pos=4", q_temperature=0)).action == "right"


async def test_a_bad_run_length_or_temperature_is_a_bad_parameters_refusal():
    """Not a ValueError (which a server reports as its own failure, "server-error")."""
    from wwm import Refusal
    from wwm.selection.learning import QLearningMind

    feudal = FeudalQMind(actions="a,b")
    society = ActionSelectionMind([Fixed("a", 1.0, "http://a.example/")], method="hierarchical-q")
    for mind in (feudal, society, QLearningMind(actions="a,b")):
        await mind.new_run()
        for call in (lambda m=mind: m.reset_q_temperature(run_length=-5),
                     lambda m=mind: m.send_q_temperature(1.0, run_length=0),
                     lambda m=mind: m.send_q_temperature(-1.0)):
            with pytest.raises(Refusal) as info:
                await call()
            assert info.value.code == "bad-parameters", (mind, info.value)
