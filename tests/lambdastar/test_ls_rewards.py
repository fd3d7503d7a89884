"""Reward values around Good and Evil in both profiles, and the order of one iteration."""

import numpy as np
import pytest

from wwm.lambdastar.engine import Episode
from wwm.lambdastar.episodes import EpisodeSet
from wwm.lambdastar.profiles import ORIGINAL, PAPER, profile
from wwm.lambdastar.torus import torus


def handmade(prof, n, good, evil, starts):
    """An episode set with given trajectories (0-based cells) and start cells."""
    g = torus(n)
    good, evil = np.array([good]), np.array([evil])
    s = EpisodeSet(g, prof, good.shape[1] - 1, 0, good, evil,
                   np.array([1]), np.array([2]), np.array([0]))
    s._starts = np.array([starts + [c for c in range(g.size) if c not in starts]])
    return s


@pytest.mark.parametrize("prof", [PAPER, ORIGINAL])
def test_reward_around_each_object(prof):
    s = handmade(prof, 10, [44, 44], [0, 0], [0])
    ep = Episode(s, 0, 1)
    field = ep.field(0) / 2
    g = s.grid
    assert field[44] == 1.0
    assert all(field[c] == 0.5 for c in g.neighbourhood(44) if c != 44)
    assert field[g.index(4, 6)] == 0.0                       # distance 2: nothing
    assert field[0] == -1.0
    assert all(field[c] == -0.5 for c in g.neighbourhood(0) if c != 0)
    assert field.sum() == 0                                  # balanced


def test_original_example_good_7_evil_8_on_5x5():
    s = handmade(ORIGINAL, 5, [6, 6], [7, 7], [0])
    field = Episode(s, 0, 1).field(0) / 2
    assert field[6] == 0.5 and field[7] == -0.5              # overlaps add


def test_original_reward_radius_follows_the_observation_range():
    s = handmade(ORIGINAL, 10, [44, 44], [0, 0], [0])
    field = Episode(s, 0, 1, observation_range=2).field(0) / 2
    assert field[s.grid.index(4, 6)] == 0.5                  # distance 2 pays 0.5 with k = 2
    paper = handmade(PAPER, 10, [44, 44], [0, 0], [0])
    assert Episode(paper, 0, 1, observation_range=2).field(0)[paper.grid.index(4, 6)] == 0


def test_one_iteration_observe_act_move_reward():
    # Good moves from cell 45 to 46; the agent starts next to Good's old cell
    s = handmade(PAPER, 10, [44, 45], [0, 0], [43])
    ep = Episode(s, 0, 1)
    obs = ep.observe()[0]
    assert obs.iteration == 1 and obs.cell == 43
    assert obs.rewards[5] == 1.0                   # sees Good where it is now (index 0)
    reward = ep.step([5])                          # steps right, onto Good's old cell
    assert reward[0] == 0.5                        # paid where Good is after its move
    assert ep.done and ep.score() == 0.5


def test_original_first_observation_shows_only_cell_1():
    s = handmade(ORIGINAL, 5, [12, 12, 12], [20, 20, 20], [1])
    ep = Episode(s, 0, 1)
    first = ep.observe()[0]
    assert dict(zip(first.cells.tolist(), first.rewards.tolist(), strict=True))[0] == -0.5
    assert (first.rewards != 0).sum() == 1
    ep.step([4])
    assert ep.observe()[0].rewards.max() == 0.5   # from iteration 2 on, the true field
    paper = Episode(handmade(PAPER, 5, [12, 12, 12], [20, 20, 20], [1]), 0, 1)
    assert paper.observe()[0].rewards.max() == 0.5


def test_coordination_pays_good_only_to_two_or_more():
    s = handmade(PAPER, 10, [44, 44], [0, 0], [45, 77])
    alone = Episode(s, 0, 2, coordination=True)
    assert alone.step([4, 4]).tolist() == [0.0, 0.0]
    s2 = handmade(PAPER, 10, [44, 44], [0, 0], [45, 43])
    pair = Episode(s2, 0, 2, coordination=True)
    assert pair.step([4, 4]).tolist() == [0.5, 0.5]


def test_bad_actions_are_refused():
    ep = Episode(handmade(PAPER, 5, [12, 12], [0, 0], [3]), 0, 1)
    with pytest.raises(ValueError, match="0..8"):
        ep.step([9])
    with pytest.raises(ValueError, match="expected 1 actions"):
        ep.step([1, 2])


def test_unknown_profile():
    with pytest.raises(ValueError, match="paper.*original"):
        profile("nature")
