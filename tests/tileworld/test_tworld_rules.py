"""T-World's rules on small hand-drawn grids: pushing rows, filling holes, rewards, bounds,
batteries, chargers, messages, stochastic moves, environment kinds and every end condition."""

from __future__ import annotations

import pytest

from wwm.tileworld.config import (
    DYNAMIC,
    FAILURE,
    NEUTRAL,
    SEMIDYNAMIC,
    STATIC,
    SUCCESS,
    Config,
    ConfigError,
    Range,
    StochasticModel,
    Team,
)
from wwm.tileworld.engine import Engine
from wwm.tileworld.percepts import full, grid


def board(*rows: str, **settings) -> Engine:
    """An engine from a drawing: ' ' empty, T tile, # obstacle, A agent, C charger, digit = hole id."""
    state = [[int(ch) if ch.isdigit() else ch for ch in row] for row in rows]
    settings.setdefault("dynamic", STATIC)
    settings.setdefault("end", {})
    agents = settings.pop("agents", sum(row.count("A") for row in rows))
    return Engine(Config(rows=len(rows), columns=len(rows[0]), initial_state=tuple(map(tuple, state)),
                         agents=agents, **settings))


def drawn(engine: Engine) -> list[str]:
    return ["".join("H" if isinstance(c, int) else c for c in row) for row in grid(engine)]


def test_pushing_a_row_of_tiles_moves_every_tile_and_the_robot():
    e = board("ATT  ")
    assert e.act(0, "east").kind == "good_move"
    assert drawn(e) == [" ATT "]
    e.act(0, "1")  # east by number
    assert drawn(e) == ["  ATT"]
    assert e.agents[0].stats["good_moves"] == 2


@pytest.mark.parametrize("rows", [("ATT#",), ("ATT",), ("ATTA",)], ids=["obstacle", "edge", "robot"])
def test_a_blocked_push_is_a_bad_move_and_nothing_moves(rows):
    e = board(*rows)
    before = drawn(e)
    assert e.act(0, "east").kind == "bad_move"
    assert drawn(e) == before
    assert e.agents[0].stats == {**e.agents[0].stats, "bad_moves": 1, "good_moves": 0}


def test_walking_into_walls_holes_and_obstacles_is_a_bad_move():
    e = board("A1", "# ")
    assert [e.act(0, d).kind for d in ("north", "west", "east", "south")] == ["bad_move"] * 4


def test_a_tile_falls_into_a_hole_cell_and_both_vanish():
    e = board("AT1 ")
    result = e.act(0, "east")
    assert result.kind == "good_move" and result.points == 10 and len(result.filled) == 1
    assert drawn(e) == [" A  "]
    assert e.teams[0].score == 10
    assert e.agents[0].stats["filled_holes"] == 1 and e.agents[0].stats["filled_cells"] == 1


def test_completing_a_hole_pays_its_value_after_partial_rewards():
    e = board("A T1", "  T1", "  T1")
    points = [sum(e.act(0, m).points for m in moves)
              for moves in (["east", "east"], ["west", "south", "east"], ["west", "south", "east"])]
    assert points == [2, 4, 30]  # 2k for the k-th cell, then the full value 10 x size
    assert e.teams[0].score == 36 and not e.holes


def test_without_partial_rewards_only_the_completed_hole_scores():
    e = board("ATT11", partial_rewards=False)
    assert [e.act(0, "east").points for _ in range(3)] == [0, 0, 20]


def test_the_multiplier_grows_with_each_hole_and_resets_after_its_timeout():
    e = board("AT1T2T3", multiplier=True, partial_rewards=False)
    assert [e.act(0, "east").points for _ in range(3)] == [10, 0, 20]  # x1, a walk, x2
    e.advance(7)                               # the 6 s timeout passes
    assert e.teams[0].multiplier == 1
    assert [e.act(0, "east").points for _ in range(2)] == [0, 10]


def test_hole_values_vary_with_scores_variability():
    values = {Engine(Config(seed=s, scores_variability=1.0)).holes[h].value
              for s in range(20) for h in Engine(Config(seed=s, scores_variability=1.0)).holes}
    assert len(values) > 5 and all(v >= 0 for v in values)
    assert all(h.value == 10 * h.size for h in Engine(Config(seed=3)).holes.values())


def test_hard_bounds_remove_the_whole_hole_at_its_timeout():
    e = board("A   ", "    ", " 11 ", dynamic=DYNAMIC, dynamism=Range(3, 3), num_holes=Range(0, 0))
    (hole,) = e.holes.values()
    assert hole.expires == 5  # lifetime 3 + the 2 s tile delay
    e.advance(4.9)
    assert hole.id in e.holes
    e.advance(0.1)
    assert hole.id not in e.holes and not e.hole_at


def test_soft_bounds_shrink_the_hole_one_cell_and_revalue_it():
    e = board("A   ", "    ", " 111", dynamic=DYNAMIC, dynamism=Range(3, 3), num_holes=Range(0, 0), hard_bounds=False)
    (hole,) = e.holes.values()
    e.advance(5)
    assert hole.id in e.holes and hole.size == 2 and len(hole.cells) == 2 and hole.value == 20
    assert hole.expires == 8  # a new lifetime is drawn
    e.advance(3)
    assert hole.size == 1
    e.advance(3)
    assert hole.id not in e.holes


def test_dynamic_holes_get_their_tiles_two_seconds_later_at_the_difficulty_distance():
    e = Engine(Config(rows=12, columns=12, seed=4, difficulty=Range(3, 3), num_obstacles=Range(0, 0), end={}))
    before = set(e.holes)
    while set(e.holes) <= before:
        e.advance(1)
    born = e.time
    new = [h for i, h in e.holes.items() if i not in before]
    tiles_before = set(e.tiles)
    e.advance(2)
    assert e.time == born + 2
    fresh = set(e.tiles) - tiles_before
    assert len(fresh) == sum(h.size for h in new)
    cells = [c for h in new for c in h.cells]
    assert all(min(abs(t[0] - c[0]) + abs(t[1] - c[1]) for c in cells) <= 3 for t in fresh)


def test_obstacles_and_tiles_expire_in_a_dynamic_world_but_never_in_a_static_one():
    dyn = Engine(Config(seed=2, end={}))
    first_obstacles = {o.id for o in dyn.obstacles.values()}
    first_tiles = {t.id for t in dyn.tiles.values()}
    assert first_obstacles and first_tiles
    seen_obstacles, seen_tiles = set(), set()
    for _ in range(40):  # lifetimes are at most 13 + 1 s
        dyn.advance(1)
        seen_obstacles |= {o.id for o in dyn.obstacles.values()}
        seen_tiles |= {t.id for t in dyn.tiles.values()}
    assert first_obstacles.isdisjoint(o.id for o in dyn.obstacles.values())
    assert first_tiles.isdisjoint(t.id for t in dyn.tiles.values())
    assert seen_obstacles - first_obstacles and seen_tiles - first_tiles  # and new ones came
    static = Engine(Config(seed=2, dynamic=STATIC, end={}))
    snapshot = drawn(static)
    static.advance(100)
    assert drawn(static) == snapshot


def test_semidynamic_holes_halve_their_value_and_nothing_spawns():
    e = Engine(Config(seed=1, dynamic=SEMIDYNAMIC, dynamism=Range(4, 4), end={}))
    values = {i: h.value for i, h in e.holes.items()}
    e.advance(4)
    assert {i: h.value for i, h in e.holes.items()} == {i: v // 2 for i, v in values.items()}
    assert e.total_holes == len(values)


def test_battery_costs_moves_pushes_and_bad_moves():
    e = board("ATT  ", battery=True, chargers=0)
    e.act(0, "east")                      # good move pushing two tiles: 20 + 2 x 10
    assert e.teams[0].battery == 1000 - 40
    e.act(0, "north")                     # bad move: 5
    assert e.teams[0].battery == 1000 - 45
    assert e.agents[0].stats["battery_used"] == 45


def test_an_empty_battery_stops_the_robot_until_restore_which_costs_half_the_score():
    e = board("AT1  ", battery=True, chargers=0)
    e.act(0, "east")
    assert e.teams[0].score == 10
    e.teams[0].battery = 0
    assert e.act(0, "east").kind == "bad_move" and e.agents[0].cell == (0, 1)
    e.act(0, "restore")
    assert e.teams[0].battery == 1000 and e.teams[0].score == 5
    e.act(0, "restore")  # ignored when the battery is not empty
    assert e.teams[0].score == 5 and e.agents[0].stats["battery_restore"] == 1
    assert e.act(0, "east").kind == "good_move"


def test_a_charger_refills_for_ten_points_and_ten_more_every_ten_seconds():
    e = board("AT1 C", "     ", battery=True)
    e.teams[0].score = 100
    for _ in range(4):
        assert e.act(0, "east").kind == "good_move"
    assert e.agents[0].cell == (0, 4)
    assert e.teams[0].battery == 1000 and e.teams[0].score == 100  # +10 for the hole, -10 to charge
    assert e.agents[0].stats["battery_recharge"] == 1
    e.advance(10)
    assert e.teams[0].score == 90
    e.act(0, "south")                      # leaving stops the fee
    e.advance(20)
    assert e.teams[0].score == 90


def test_teams_share_score_and_battery_and_messages_reach_only_teammates():
    teams = (Team("a", (0, 1)), Team("b", (2,)))
    e = board("AT1", "A  ", "A  ", teams=teams, battery=True, chargers=0)
    e.act(0, "east")
    assert e.teams[0].score == 10 and e.teams[0].battery == 970
    assert e.act(1, "team_message:hello").deliveries == ((0, "hello"),)
    assert e.act(0, "message:1:hi").deliveries == ((1, "hi"),)
    assert e.act(0, "message:2:spy").deliveries == ()       # not a teammate: dropped
    assert e.act(2, "team_message:alone").deliveries == ()
    assert [m["text"] for m in e.messages] == ["hello", "hi"]


def test_stochastic_moves_follow_the_model_of_action():
    backward = board("   ", " A ", "   ", model_of_action=StochasticModel(intended=0, backward=1000))
    backward.act(0, "north")
    assert backward.agents[0].cell == (2, 1)
    refuses = board("   ", " A ", "   ", model_of_action=StochasticModel(intended=0, refuses=1000))
    refuses.act(0, "north")
    assert refuses.agents[0].cell == (1, 1)
    left = board("   ", " A ", "   ", model_of_action=StochasticModel(intended=0, left=1000))
    left.act(0, "north")
    assert left.agents[0].cell == (1, 0)


@pytest.mark.parametrize("key, value, play", [
    ("filled_holes", 1, ["east"]),
    ("filled_cells", 1, ["east"]),
    ("score", 10, ["east"]),
    ("good_moves", 2, ["east", "south"]),
    ("bad_moves", 1, ["north"]),
    ("battery_used", 25, ["north", "south"]),
    ("battery_restore", 1, ["restore"]),
    ("battery_recharge", 1, ["south", "south"]),
    ("agents_location", [{"row": 2, "column": 0}], ["south", "south"]),
])
def test_each_end_condition_ends_the_run(key, value, play):
    for group, code in (("neutral", NEUTRAL), ("failure", FAILURE), ("success", SUCCESS)):
        e = board("AT1", "   ", "C  ", battery=True, end={group: {key: value}})
        if key == "battery_restore":
            e.teams[0].battery = 0
        for move in play[:-1]:
            e.act(0, move)
            assert not e.finished
        e.act(0, play[-1])
        assert e.result == code, (group, key)


def test_the_time_limit_ends_the_run_and_success_needs_every_condition():
    e = board("AT1T2", end={"neutral": {"time": 5}})
    e.advance(4.99)
    assert not e.finished
    e.advance(0.01)
    assert e.result == NEUTRAL and e.time_left() == 0
    e = board("AT1T2", end={"success": {"filled_holes": 2, "score": 20}, "failure": {"time": 100}})
    e.act(0, "east")
    e.act(0, "east")
    assert not e.finished  # one success condition holds, not both
    e.act(0, "east")
    assert e.result == SUCCESS


def test_gamma_is_world_seconds_per_agent_step():
    fast = Engine(Config(seed=1, gamma=2.0, end={"neutral": {"time": 100}}))
    slow = Engine(Config(seed=1, gamma=0.25, end={"neutral": {"time": 100}}))
    for e in (fast, slow):
        steps = 0
        while not e.finished:
            e.step({0: "none"})
            steps += 1
        e.steps = steps
    assert (fast.steps, slow.steps) == (50, 400)


def test_one_seed_one_world():
    a, b, c = Engine(Config(seed=9)), Engine(Config(seed=9)), Engine(Config(seed=10))
    for e in (a, b, c):
        e.advance(60)
    assert drawn(a) == drawn(b) and drawn(a) != drawn(c)


def test_bad_settings_are_named():
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        Config.from_dict({"colour": 3})
    with pytest.raises(ConfigError, match="rows and columns"):
        Config.from_dict({"rows": 0})
    with pytest.raises(ConfigError, match="dynamism"):
        Config.from_dict({"dynamism": [9, 2]})
    with pytest.raises(ConfigError, match="unknown end condition 'lives'"):
        Config.from_dict({"end": {"neutral": {"lives": 3}}})
    with pytest.raises(ConfigError, match="teams must put each"):
        Config.from_dict({"agents": 2, "teams": [{"name": "a", "members": [0]}]})
    with pytest.raises(ConfigError, match="gamma"):
        Config.from_dict({"gamma": 0})
    with pytest.raises(ConfigError, match="battery must be true or false"):
        Config.from_dict({"battery": "maybe"})
    with pytest.raises(ConfigError, match="unknown code 'X'"):
        board("AX")
    for settings, words in (({"gamma": "nan"}, "gamma must be a finite number"),
                            ({"seed": float("inf")}, "seed must be a finite number"),
                            ({"end": {"neutral": {"time": "soon"}}}, "end condition time in neutral"),
                            ({"end": {"neutral": {"time": float("nan")}}}, "must be a finite number"),
                            ({"end": {"success": {"agents_location": 3}}}, "agents_location in success"),
                            ({"partial": True, "radius": 10**6}, "radius must be in 0..100"),
                            ({"dynamism": [-3, 2]}, "dynamism must not go below 0"),
                            ({"agents": 10**9}, "agents must be between 1 and the 90 cells"),
                            ({"agents": 0}, "agents must be between 1"),
                            ({"dynamism": [0, 10**9]}, r"dynamism: range \[0, 1000000000\] has more than 1000")):
        with pytest.raises(ConfigError, match=words):
            Config.from_dict(settings)
    cfg = Config.from_dict({"rows": 7, "holes size": [2, 4], "dynamism": {"range": [3, 4], "prob": [250, 750]}})
    assert Config.from_dict(cfg.to_dict()) == cfg


def test_partial_observability_shows_a_window_around_the_robot():
    e = board("A T  ", " 1   ", "    T", "   # ", partial=True, radius=1)
    data = full(e, 0)
    env = data["environment"]
    assert env["grid"] == [["#", "#", "#"], ["#", "A", " "], ["#", " ", e.hole_at[(1, 1)].id]]
    assert data["agent"]["location"] == {"row": 1, "column": 1}
    assert [(h["cells"], h["size"]) for h in env["holes"]] == [([{"row": 2, "column": 2}], 1)]
    assert env["tiles"] == [] and env["obstacles"] == []  # both outside the window
    assert data["builtin_knowledge"]["grid_total_rows"] == 3
    e.act(0, "east")
    env = full(e, 0)["environment"]
    assert [(t["row"], t["column"]) for t in env["tiles"]] == [(1, 2)]


def test_noise_drops_objects_from_the_partial_view_only():
    rows = ("TTT", "TAT", "T1#")
    assert full(board(*rows, partial=True, radius=1, noise=True, noise_prob=0.0), 0)["environment"]["tiles"]
    blind = full(board(*rows, partial=True, radius=1, noise=True, noise_prob=1.0), 0)["environment"]
    assert blind["tiles"] == [] and blind["holes"] == [] and blind["obstacles"] == []
    assert blind["grid"] == [[" ", " ", " "], [" ", "A", " "], [" ", " ", " "]]
    some = [len(full(board(*rows, partial=True, radius=1, noise=True, seed=s), 0)["environment"]["tiles"])
            for s in range(30)]
    assert min(some) < max(some) <= 6  # a different draw of the six tiles dropped per seed


def test_asynchronous_tiles_draw_their_own_lifetimes():
    settings = {"seed": 3, "dynamism": Range(20, 20), "num_obstacles": Range(0, 0), "end": {}}
    coupled = Engine(Config(**settings))
    apart = Engine(Config(**settings, async_tiles=True, dynamism_tiles=Range(1, 1)))
    for e in (coupled, apart):
        assert e.tiles and e.holes
        e.advance(2)
    assert coupled.tiles and not apart.tiles  # tiles live 1 + 1 s, apart from their holes
    assert apart.holes and {h.id for h in apart.holes.values()} == {h.id for h in coupled.holes.values()}


def test_the_first_mover_rotates_in_the_discrete_core():
    e = board("A A", "   ", agents=2)
    e.step({0: "east", 1: "west"})  # robot 0 moves first and takes the middle cell
    assert e.agents[0].cell == (0, 1) and e.agents[1].cell == (0, 2)
    e = board("A A", "   ", agents=2)
    e.step({0: "none", 1: "none"})
    e.step({0: "east", 1: "west"})  # now robot 1 moves first
    assert e.agents[1].cell == (0, 1) and e.agents[0].cell == (0, 0)


def test_easy_mode_has_no_tiles_and_walking_onto_a_hole_fills_it():
    e = board("A11", "   ", easy=True)
    assert [e.act(0, "east").points for _ in range(2)] == [2, 20]
    assert e.agents[0].cell == (0, 2) and not e.holes and e.agents[0].stats["filled_holes"] == 1
    dynamic = Engine(Config(seed=1, easy=True, end={}))
    dynamic.advance(30)
    assert dynamic.total_holes > 2 and not dynamic.tiles


def test_every_tile_outlives_its_hole_by_one_second_the_first_ones_too():
    e = Engine(Config(seed=5, num_obstacles=Range(0, 0), end={}))
    first = {h.id: h.expires for h in e.holes.values()}
    assert first and e.tiles
    assert {t.expires - 1 for t in e.tiles.values()} <= set(first.values())
    while e.time < 40:  # and the later batches, whose tiles come 2 s after their hole
        holes = {h.id: h.expires for h in e.holes.values()}
        before = set(e.tiles)
        e.advance(1)
        for cell in set(e.tiles) - before:
            assert e.tiles[cell].expires - 1 in holes.values()
