"""The soccer world's rules in process: body and ball physics, stamina, kicking, the referee's
calls, the view cone and its distance noise, the command language, a player finding itself
from flags, and seeded reproducibility."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wwm.soccer.commands import CommandError, parse, parse_init
from wwm.soccer.match import Match
from wwm.soccer.params import FLAGS, ParamError, Params
from wwm.soccer.players import localise
from wwm.soccer.sensing import quantise, see


def match(players: int = 1, **settings) -> Match:
    m = Match(Params(players=players, player_rand=0.0, ball_rand=0.0, **settings))
    for side in (0, 1):
        for unum in range(1, players + 1):
            m.add_player(side, unum)
    m.start()
    return m


def do(m: Match, i: int, text: str, cycles: int = 1) -> None:
    for _ in range(cycles):
        for c in parse(text):
            m.command(i, c)
        m.step()


def test_a_dash_accelerates_along_the_body_up_to_the_top_speed_and_then_decays():
    m = match()
    x0 = m.pos[0, 0]
    do(m, 0, "(dash 100)")
    # 100 x dash_power_rate 0.006 x effort 1 = 0.6 m/cycle, then decay 0.4
    assert m.pos[0, 0] - x0 == pytest.approx(0.6)
    assert m.vel[0, 0] == pytest.approx(0.24)
    do(m, 0, "(dash 100)", 30)
    assert np.hypot(*m.vel[0]) <= 1.05 * 0.4 + 1e-9  # player_speed_max before the decay
    speed = m.vel[0, 0]
    do(m, 0, "(done)")
    assert m.vel[0, 0] == pytest.approx(speed * 0.4)
    assert m.pos[0, 1] == pytest.approx(0.0)


def test_stamina_pays_for_dashes_and_recovers_and_effort_falls_when_tired():
    m = match()
    do(m, 0, "(dash 100)")
    assert m.stamina[0] == pytest.approx(8000 - 100 + 45)
    do(m, 0, "(dash -50)")  # a backward dash costs twice its power
    assert m.stamina[0] == pytest.approx(8000 - 100 + 45 - 100 + 45)
    m.stamina[0] = 1000.0  # below effort_dec_thr (0.3 x 8000)
    do(m, 0, "(dash 100)")
    assert m.effort[0] == pytest.approx(0.995) and m.recovery[0] < 1.0
    m.stamina[0] = 30.0  # a dash is cut down to what the stamina pays for
    v = m.vel[0, 0]
    do(m, 0, "(dash 100)")
    assert m.stamina[0] == pytest.approx(0.0 + m.recovery[0] * 45, rel=1e-6)
    assert (m.vel[0, 0] / 0.4 - v) < 0.6 * 0.31


def test_a_turn_is_slowed_by_speed_and_a_move_is_only_in_its_own_half_before_play():
    m = match()
    do(m, 0, "(turn 90)")
    assert m.body[0] == pytest.approx(90)
    do(m, 0, "(turn -90)")
    do(m, 0, "(dash 100)", 5)
    speed = float(np.hypot(*m.vel[0]))
    do(m, 0, "(turn 60)")
    assert m.body[0] == pytest.approx(60 / (1 + 5 * speed))
    m.mode = "before_kick_off"
    do(m, 1, "(move -20 5)")  # the right side's own coordinates are the field's mirrored
    assert tuple(m.pos[1]) == pytest.approx((20, -5))
    do(m, 1, "(move 30 0)")  # the own half only
    assert m.pos[1, 0] == pytest.approx(0.0)
    m.mode = "play_on"
    do(m, 1, "(move -40 0)")
    assert m.pos[1, 0] == pytest.approx(0.0)


def test_a_kick_reaches_only_the_ball_in_the_kickable_margin_and_loses_power_with_distance_and_angle():
    def kick(offset: tuple[float, float], direction: float = 0) -> float:
        m = match()
        m.mode = "play_on"
        m.pos[0] = (0.0, 0.0)
        m.ball[:] = offset
        do(m, 0, f"(kick 100 {direction})")
        return float(np.hypot(*m.ball_vel)) / 0.94

    close = kick((0.4, 0))
    assert close == pytest.approx(100 * 0.027 * (1 - 0.25 * 0.015 / 0.7))
    assert kick((1.0, 0)) < close            # farther in the margin: weaker
    assert kick((0, 0.4)) < close            # at the side: weaker
    assert kick((1.2, 0)) == 0.0             # beyond the kickable margin: nothing
    m = match()  # the other side cannot kick at our kick off
    m.pos[1] = (0.5, 0.0)
    do(m, 1, "(kick 100 0)")
    assert m.mode == "kick_off_l" and not m.ball_vel.any()
    m.pos[0] = (-0.5, 0.0)
    do(m, 0, "(kick 100 0)")
    assert m.mode == "play_on" and m.ball_vel[0] > 0


def test_the_ball_is_capped_and_decays():
    m = match()
    m.mode = "play_on"
    m.ball_vel[:] = (10.0, 0.0)
    m.step()
    assert m.ball[0] == pytest.approx(3.0) and m.ball_vel[0] == pytest.approx(3.0 * 0.94)


@pytest.mark.parametrize("ball, touched, call, place", [
    ((10.0, 34.5), 0, "kick_in_r", (10.0, 34.0)),
    ((-20.0, -34.5), 1, "kick_in_l", (-20.0, -34.0)),
    ((52.7, 12.0), 0, "goal_kick_r", (47.0, 9.16)),
    ((52.7, -12.0), 1, "corner_kick_l", (51.5, -33.0)),
    ((-52.7, 12.0), 0, "corner_kick_r", (-51.5, 33.0)),
])
def test_the_referee_calls_the_ball_out(ball, touched, call, place):
    m = match()
    m.mode = "play_on"
    m.ball[:] = ball
    m.last_touch = touched
    m.step()
    assert m.mode == call and tuple(m.ball) == pytest.approx(place)
    assert m.events[-1].text == call


def test_a_goal_counts_then_the_side_that_conceded_kicks_off_and_the_clock_ends_each_half():
    m = match(half_cycles=60, goal_pause_cycles=5)
    m.mode = "play_on"
    m.ball[:] = (52.6, 2.0)
    m.ball_vel[:] = (0.5, 0)
    m.step()
    assert m.score == [1, 0] and m.mode == "goal_l" and m.events[-1].text == "goal_l_1"
    for _ in range(5):
        m.step()
    assert m.mode == "kick_off_r" and tuple(m.ball) == (0.0, 0.0)
    m.pos[0] = (5.0, 0.0)  # the left side stays in its half at the right's kick off
    m.step()
    assert m.pos[0, 0] <= 0.0
    while m.mode != "half_time":
        m.step()
    assert m.time == 60
    while not m.finished:
        m.step()
    assert m.time == 120 and m.mode == "time_over"
    assert [e.text for e in m.events] == ["kick_off_l", "goal_l_1", "kick_off_r", "half_time", "kick_off_r",
                                          "time_over"]


def test_a_set_piece_nobody_takes_ends_in_a_dropped_ball():
    m = match(drop_ball_cycles=10)
    for _ in range(10):
        m.step()
    assert [e.text for e in m.events] == ["kick_off_l", "drop_ball", "play_on"] and m.mode == "play_on"


def test_at_a_set_piece_the_other_side_keeps_its_distance():
    m = match()
    m.mode = "play_on"
    m.pos[0] = (20.0, 30.0)
    m.ball[:] = (20.0, 34.5)
    m.last_touch = 1
    m.step()
    assert m.mode == "kick_in_l"
    m.pos[1] = (21.0, 33.0)
    m.step()
    assert np.hypot(*(m.pos[1] - m.ball)) >= 9.15 and np.hypot(*(m.pos[0] - m.ball)) < 9.15


def test_a_player_sees_its_view_cone_and_what_is_close_behind_with_noise_growing_with_distance():
    m = match()
    m.mode = "play_on"
    m.pos[0], m.body[0] = (0.0, 0.0), 0.0
    m.ball[:] = (-2.0, 0.0)   # behind, but within visible_distance
    m.pos[1] = (-10.0, 0.0)   # behind, too far
    names = {o["name"] for o in see(m, 0)}
    assert "b" in names and not any(n.startswith("p") for n in names)
    assert "g r" in names and "g l" not in names
    m.view[0] = "wide"
    m.body[0] = 90.0
    assert any(o["name"] == "g l" for o in see(m, 0))  # 180° now: left goal at -90
    d = np.array([1.0, 5.0, 20.0, 80.0])
    assert np.all(np.abs(quantise(d, 0.1) - d) <= d * 0.051 + 0.05)
    far = np.linspace(40, 60, 200)
    near = np.linspace(2, 3, 200)
    assert np.abs(quantise(far, 0.1) - far).max() > 10 * np.abs(quantise(near, 0.1) - near).max()
    m.body[0] = 180.0
    m.pos[1] = (-25.0, 0.0)   # beyond unum_far_length: the team only
    assert any(o["name"] == 'p "r"' for o in see(m, 0))
    m.pos[1] = (-15.0, 0.0)
    assert any(o["name"] == 'p "r" 1 goalie' for o in see(m, 0))


def test_a_player_finds_its_place_and_facing_from_the_flags_it_sees():
    m = match()
    m.pos[0], m.body[0] = (-20.0, 10.0), 35.0
    pose = localise(see(m, 0))
    assert pose is not None
    assert (pose.x, pose.y) == pytest.approx((-20, 10), abs=0.5) and pose.body == pytest.approx(35, abs=1.5)
    assert localise([{"name": "b", "dist": 2, "dir": 0}]) is None


def test_the_same_seed_and_commands_make_the_same_match_and_another_seed_another():
    def play(seed: int) -> list:
        m = Match(Params(players=1, seed=seed))
        m.add_player(0, 1), m.add_player(1, 1)
        m.start()
        for k in range(50):
            m.command(0, parse("(dash 100)")[0] if k % 5 else parse("(turn 20)")[0])
            m.step()
        return m.frames

    assert play(3) == play(3)
    assert play(3) != play(4)


@pytest.mark.parametrize("text, code, words", [
    ("(fly 3)", "unknown_command", "unknown command (fly"),
    ("(dash)", "illegal_command_form", "(dash ...) takes 1"),
    ("(dash fast)", "illegal_command_form", "power must be a number"),
    ("(kick 100 nan)", "illegal_command_form", "direction must be finite"),
    ("(dash 10", "illegal_command_form", "unbalanced '('"),
    ("dash 10", "illegal_command_form", "expected commands like (dash 80)"),
    ("(change_view huge)", "illegal_command_form", "narrow, normal or wide"),
])
def test_bad_commands_are_named(text, code, words):
    with pytest.raises(CommandError) as info:
        parse(text)
    assert info.value.code == code and words in str(info.value)


def test_init_and_settings():
    assert parse_init("(init Nodes (version 15) (goalie))") == parse_init("(init Nodes (goalie) (version 15))")
    assert parse_init("(init Nodes)").goalie is False
    with pytest.raises(CommandError, match="TEAM is 1-15"):
        parse_init('(init "two words")')
    with pytest.raises(ParamError, match="players"):
        Params(players=12)
    with pytest.raises(ParamError, match="unknown soccer setting"):
        Params.from_dict({"gravity": 1})
    assert len(FLAGS) == 55 and math.isclose(FLAGS["f p r b"][1], 20.16)


def test_the_simple_players_decide_from_what_they_sense():
    from wwm.soccer.players import decide
    from wwm.soccer.sensing import sense_body

    m = match()
    m.mode = "play_on"
    m.view[0] = "narrow"

    def state(i: int = 0) -> dict:
        side, unum = m.side_unum(i)
        return {"time": m.time, "side": "lr"[side], "unum": unum, "playmode": m.mode, "sense_body": sense_body(m, i),
                "see": {"time": m.time, "age": 0, "objects": see(m, i)}}

    m.pos[0], m.body[0], m.ball[:] = (0.0, 0.0), 0.0, (20.0, 0.0)
    assert decide(state(), "chaser") == "(dash 100)"       # the ball ahead: run
    m.stamina[0] = 1500.0
    assert decide(state(), "chaser") == "(dash 40)"        # tired: no harder than it recovers
    m.ball[:] = (0.0, 20.0)
    assert decide(state(), "chaser") == "(turn 40)"        # out of its narrow view: look around
    m.view[0] = "wide"
    assert decide(state(), "chaser") == "(turn 90)"        # wide, it sees it to the right (y down): turn
    m.ball[:] = (0.5, 0.0)
    m.body[0] = 90.0
    kick = decide(state(), "chaser")                        # kickable: at the right goal, 90° to its left
    assert kick.startswith("(kick 100 ") and abs(float(kick[10:-1]) + 90) < 3
    m.mode = "before_kick_off"
    assert decide(state(), "goalie") == "(done)"


def test_bodies_that_run_into_each_other_are_pushed_apart_and_bounce():
    m = match()
    m.mode = "play_on"
    m.pos[0], m.body[0] = (0.0, 0.0), 0.0
    m.pos[1], m.body[1] = (1.0, 0.0), 180.0
    for k in range(3):
        m.command(0, parse("(dash 100)")[0])
        m.command(1, parse("(dash 100)")[0])
        m.step()
        assert np.hypot(*(m.pos[1] - m.pos[0])) >= 0.6 - 1e-9  # never inside each other
        if k == 0:
            assert m.vel[0, 0] < 0.0 < m.vel[1, 0]  # bounced back
