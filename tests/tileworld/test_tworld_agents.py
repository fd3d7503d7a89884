"""Built-in agents and the measures: agents that push tiles well, effectiveness that falls as
γ grows (Kinny and Georgeff's curve), and per-agent / per-team measures that add up."""

from __future__ import annotations

import pytest

from wwm.tileworld.agents import (
    DeliberativeAgent,
    ReactiveAgent,
    View,
    make_agent,
    plan_push,
)
from wwm.tileworld.batch import play, sweep
from wwm.tileworld.config import Config, Team
from wwm.tileworld.engine import Engine
from wwm.tileworld.percepts import full


def test_the_deliberative_planner_finds_a_push_around_a_corner():
    rows = [list("A    "), list("  T  "), list("     "), list("    1")]
    state = tuple(tuple(int(c) if c.isdigit() else c for c in r) for r in rows)
    e = Engine(Config(rows=4, columns=5, initial_state=state, dynamic=0, end={}))
    plan = plan_push(View.parse(full(e, 0)), (1, 2), (3, 4))
    assert plan is not None
    for move in plan:
        e.act(0, move)
    assert e.agents[0].stats["filled_holes"] == 1 and e.teams[0].score == 10


@pytest.mark.parametrize("agent", ["reactive", "deliberative"])
def test_built_in_agents_fill_most_holes_when_the_world_is_slow(agent):
    totals = play(Config(seed=3, gamma=0.1, end={"neutral": {"time": 60}}), [agent])["totals"]
    assert totals["effectiveness"] > 0.4 and totals["filled_holes"] >= 5


def test_effectiveness_falls_as_gamma_grows():
    points = sweep(Config(end={"neutral": {"time": 60}}), ["reactive"], [0.1, 1.0, 4.0], [6], trials=2)
    eff = [p.effectiveness for p in points]
    assert eff[0] > eff[1] > eff[2] and eff[0] > 0.4 and eff[2] < 0.2


def test_planning_time_costs_the_deliberative_agent_more_in_a_faster_world():
    def eff(gamma: float, agent: str) -> float:
        return sum(play(Config(seed=s, gamma=gamma, end={"neutral": {"time": 60}}), [agent])["totals"]["effectiveness"]
                   for s in range(3))
    assert eff(0.35, "reactive") > eff(0.35, "deliberative")


def test_measures_per_agent_and_team_add_up():
    cfg = Config(agents=3, seed=4, gamma=0.2, end={"neutral": {"time": 40}},
                 teams=(Team("pair", (0, 1)), Team("solo", (2,))))
    m = play(cfg, ["reactive", "deliberative", "reactive"])
    pair, solo = m["teams"]
    assert pair["filled_holes"] == m["agents"][0]["filled_holes"] + m["agents"][1]["filled_holes"]
    assert pair["value_filled"] == m["agents"][0]["value_filled"] + m["agents"][1]["value_filled"]
    assert m["totals"]["filled_holes"] == pair["filled_holes"] + solo["filled_holes"] > 0
    assert m["totals"]["effectiveness"] == pytest.approx(pair["effectiveness"] + solo["effectiveness"])
    assert 0 < m["totals"]["holes_fraction"] <= 1
    assert pair["score"] == m["agents"][0]["total_score"] + m["agents"][1]["total_score"]  # no batteries here


def test_play_and_make_agent_name_their_mistakes():
    with pytest.raises(ValueError, match="no built-in agent 'smart'"):
        make_agent("smart")
    with pytest.raises(ValueError, match="1 agents but 2 were named"):
        play(Config(), ["reactive", "reactive"])
    assert isinstance(make_agent("reactive"), ReactiveAgent)
    assert isinstance(make_agent("deliberative"), DeliberativeAgent)


@pytest.mark.parametrize("agent", ["reactive", "deliberative"])
def test_built_in_agents_play_easy_mode_too(agent):
    totals = play(Config(seed=2, easy=True, gamma=0.2, end={"neutral": {"time": 60}}), [agent])["totals"]
    assert totals["effectiveness"] > 0.4


def test_a_bold_agent_beats_a_cautious_one_when_the_world_changes_fast():
    def eff(agent: str) -> float:
        return sum(play(Config(seed=s, gamma=0.35, end={"neutral": {"time": 60}}), [agent])["totals"]["effectiveness"]
                   for s in range(3))
    assert eff("deliberative") > eff("cautious") > 0


def test_a_batch_game_can_be_recorded_and_replayed(tmp_path):
    from wwm.tileworld.recording import Recording, replay

    totals = play(Config(seed=5, end={"neutral": {"time": 20}}), ["deliberative"], record=tmp_path / "g.json")["totals"]
    rec = Recording.load(tmp_path / "g.json")
    assert replay(rec) == len(rec.percepts_sent()) > 50
    assert totals == play(Config(seed=5, end={"neutral": {"time": 20}}), ["deliberative"])["totals"]


@pytest.mark.parametrize("agent", ["reactive", "deliberative", "cautious"])
def test_built_in_agents_restore_an_empty_battery_and_play_on(agent):
    cfg = Config(seed=4, battery=True, gamma=0.1, end={"neutral": {"time": 60}})
    result = play(cfg, [agent])["agents"][0]
    assert result["battery_restore"] >= 1  # 60 s at γ 0.1 is 600 steps: more than one battery
    assert result["good_moves"] > 60        # so they kept moving after it ran out
    flat = Engine(cfg)
    flat.teams[0].battery = 0
    assert make_agent(agent).act(full(flat, 0)) == "restore"
    without = Engine(Config(seed=4, battery=False))
    without.teams[0].battery = 0  # no batteries in this run: nothing to restore
    assert make_agent(agent).act(full(without, 0)) != "restore"
