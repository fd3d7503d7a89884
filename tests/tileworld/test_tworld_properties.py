"""Properties of the engine under any sequence of actions (Hypothesis): objects never overlap
or leave the grid, holes and their cells agree, scores and batteries stay in range, and
replaying the log rebuilds the same world."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.tileworld.config import Config, Range, StochasticModel, Team
from wwm.tileworld.engine import Engine
from wwm.tileworld.percepts import grid

ACTIONS = st.sampled_from(["north", "south", "east", "west", "none", "restore", "team_message:hi", "2", "0"])


def check(e: Engine) -> None:
    cfg = e.config
    occupied = [*e.tiles, *e.obstacles, *e.hole_at, *e.agent_at]
    assert len(occupied) == len(set(occupied)), "two objects share a cell"
    assert all(e.in_bounds(c) for c in occupied + e.chargers)
    assert not set(e.chargers) & (set(e.obstacles) | set(e.hole_at))
    assert {c for h in e.holes.values() for c in h.cells} == set(e.hole_at)
    assert all(e.hole_at[c] is h for h in e.holes.values() for c in h.cells)
    assert all(1 <= len(h.cells) <= h.size for h in e.holes.values())
    assert {a.cell for a in e.agents} == set(e.agent_at) and all(e.agent_at[a.cell] is a for a in e.agents)
    for team in e.teams:
        assert team.score >= 0 and 0 <= team.battery <= 1000
    filled = sum(a.stats["filled_holes"] for a in e.agents)
    assert filled <= e.total_holes and sum(a.value_filled for a in e.agents) <= e.total_value
    assert len(grid(e)) == cfg.rows


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.lists(st.tuples(ACTIONS, ACTIONS, ACTIONS), min_size=1, max_size=120),
       battery=st.booleans(), hard=st.booleans(), gamma=st.sampled_from([0.1, 0.35, 1.0, 3.0]),
       stochastic=st.booleans(), easy=st.booleans())
def test_any_play_keeps_the_world_consistent_and_replayable(seed, steps, battery, hard, gamma, stochastic, easy):
    cfg = Config(rows=6, columns=7, agents=3, teams=(Team("a", (0, 1)), Team("b", (2,))), seed=seed,
                 battery=battery, hard_bounds=hard, gamma=gamma, easy=easy, dynamism=Range(2, 5),
                 hostility=Range(1, 4), end={"neutral": {"time": 60}},
                 model_of_action=StochasticModel(700, 100, 100, 100, 0) if stochastic else StochasticModel())
    e = Engine(cfg)
    check(e)
    for actions in steps:
        if e.finished:
            break
        e.step(dict(enumerate(actions)))
        check(e)
    again = Engine.replay(cfg, e.log)
    assert grid(again) == grid(e) and again.time == e.time
    assert [t.score for t in again.teams] == [t.score for t in e.teams]
