"""The vectorised engine gives exactly the plain engine's scores for the same seed, for every
built-in agent, in both profiles, with and without the coordination rule."""

import numpy as np
import pytest

from wwm.lambdastar import vector
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.harness import Setting, play


@pytest.fixture(scope="module", params=["paper", "original"])
def battery(request):
    return build(BatterySpec(6, 16, 12, request.param, seed=11))


@pytest.mark.parametrize("agent", vector.SUPPORTED)
def test_same_scores_as_plain(battery, agent):
    for size in (1, 3):
        setting = Setting(agent, size, replays=3)
        plain, fast = play(setting, battery), vector.play(setting, battery)
        assert np.array_equal(plain.scores, fast.scores), (agent, size)


def test_same_scores_with_coordination_and_wider_range():
    s = build(BatterySpec(7, 20, 10, "paper", seed=5))
    for agent in ("local", "stigmergy", "woc"):
        setting = Setting(agent, 3, observation_range=2, coordination=True)
        assert np.array_equal(play(setting, s).scores, vector.play(setting, s).scores)


def test_chunks_give_the_same_scores():
    s = build(BatterySpec(6, 12, 30, "original", seed=2))
    whole = vector.play(Setting("stigmergy", 2), s)
    chunked = vector.play(Setting("stigmergy", 2), s, chunk=7)
    assert np.array_equal(whole.scores, chunked.scores)


def test_bad_settings_are_refused_clearly():
    s = build(BatterySpec(5, 5, 2, "paper"))
    with pytest.raises(ValueError, match="observation range 3 does not fit"):
        play(Setting("local", 1, observation_range=3), s)
    with pytest.raises(ValueError, match="unknown agent type 'genius'"):
        play(Setting("genius"), s)
    with pytest.raises(ValueError, match="γ"):
        play(Setting("stigmergy", gamma=1.5), s)


def test_both_engines_refuse_bad_gamma_and_replays_alike():
    s = build(BatterySpec(5, 5, 2, "paper"))
    for engine in (play, vector.play):
        with pytest.raises(ValueError, match="γ must be in"):
            engine(Setting("stigmergy", gamma=0.0), s)
        with pytest.raises(ValueError, match="replays must be 0 or more"):
            engine(Setting("qlearning", replays=-1), s)


def test_learners_chunked_to_bound_the_q_tables_give_the_same_scores(monkeypatch):
    s = build(BatterySpec(6, 10, 9, "original", seed=3))
    for agent in ("qlearning", "shared-sarsa"):
        setting = Setting(agent, 2, replays=4)
        whole = vector.play(setting, s)
        monkeypatch.setattr(vector, "Q_TABLE_BYTES", 2 * 2 * 10 * 36 * 9 * 8)  # two episodes
        assert np.array_equal(vector.play(setting, s).scores, whole.scores)
        monkeypatch.undo()
