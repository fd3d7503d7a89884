"""Agent behaviours on hand-made episodes: the intercepting oracle of the paper against the
code's follower, local search's tie-breaking, and stigmergy drawing a far agent in."""

import numpy as np
import pytest

from wwm.lambdastar.agents import make
from wwm.lambdastar.engine import Episode, Observation
from wwm.lambdastar.episodes import EpisodeSet
from wwm.lambdastar.harness import Setting, play
from wwm.lambdastar.profiles import ORIGINAL, PAPER
from wwm.lambdastar.torus import torus


def runaway(profile, n=10, steps=30, start=(0, 3)):
    """Good runs right along row 0 at one cell per iteration; the agent starts two cells
    behind it, so following means chasing it for ever."""
    g = torus(n)
    good = np.array([[g.index(0, 5 + t) for t in range(steps + 1)]])
    evil = np.array([[g.index(5, 5 + t) for t in range(steps + 1)]])
    s = EpisodeSet(g, profile, steps, 0, good, evil, np.array([n]), np.array([2]), np.array([0]))
    start = g.index(*start)
    s._starts = np.array([[start] + [c for c in range(g.size) if c != start]])
    return s


def test_paper_oracle_intercepts_a_runaway_good():
    paper = play(Setting("oracle"), runaway(PAPER)).upsilon
    follower = play(Setting("oracle"), runaway(ORIGINAL)).upsilon
    assert follower == 0.0           # always two cells behind: never paid
    assert paper > 0.85              # it turned round, met Good, then stayed on it


def test_local_search_ties_use_the_agent_draws():
    s = runaway(PAPER, start=(3, 0))
    team = make("local", 1, s.grid, PAPER, s.iterations)
    obs = Episode(s, 0, 1).observe()
    assert obs[0].rewards.max() == 0.0             # Good is two cells away: all equal
    chosen = {team.act(obs, np.array([[u, 0.0]]))[0] for u in np.linspace(0, 0.999, 9)}
    assert chosen == set(range(9))                 # each of the nine actions for some draw


def test_stigmergy_draws_a_far_agent_towards_the_one_near_good():
    g = torus(10)
    good = np.array([[g.index(5, 5)] * 3])
    evil = np.array([[g.index(0, 0)] * 3])
    s = EpisodeSet(g, PAPER, 2, 0, good, evil, np.array([1]), np.array([2]), np.array([0]))
    near, far = g.index(5, 4), g.index(5, 2)          # far sees nothing but shares column 3
    s._starts = np.array([[near, far] + [c for c in range(g.size) if c not in (near, far)]])
    obs = Episode(s, 0, 2).observe()
    assert obs[1].rewards.max() == obs[1].rewards.min() == 0.0
    for u in np.linspace(0, 0.999, 7):
        draws = np.array([[u, 0.0], [u, 0.0]])
        stig = make("stigmergy", 2, g, PAPER, 2)
        stig.begin(Episode(s, 0, 2))
        assert stig.act(obs, draws)[1] in (2, 5, 8)    # up-right, right or down-right
    lone = {make("local", 2, g, PAPER, 2).act(obs, np.array([[0.0, 0], [u, 0]]))[1]
            for u in np.linspace(0, 0.999, 9)}
    assert lone == set(range(9))                     # alone it would wander at random


def test_original_stigmergy_and_crowd_follow_the_reference_formulas():
    """Reference notes section 2: F(c) <- (F(c) + R(c) + f)/3 with f = 0.4 (r_max + r_min),
    only when f != 0, F kept across iterations; the crowd's A(c) <- (A(c) + R(c))/2 where R != 0."""
    g = torus(5)
    good, evil = np.array([[12, 12, 12]]), np.array([[24, 24, 24]])
    s = EpisodeSet(g, ORIGINAL, 2, 0, good, evil, np.array([5]), np.array([2]), np.array([0]))
    s._starts = np.array([[6] + [c for c in range(25) if c != 6]])
    draws = np.array([[0.0, 0.0]])
    stig, crowd = make("stigmergy", 1, g, ORIGINAL, 2), make("woc", 1, g, ORIGINAL, 2)
    env = Episode(s, 0, 1)
    stig.begin(env), crowd.begin(env)
    first = env.observe()                       # the iteration-1 quirk: only R(cell 1) = -0.5
    stig.act(first, draws), crowd.act(first, draws)
    cells = first[0].cells
    expected = np.zeros(25)
    expected[cells] = (first[0].rewards + 0.4 * (0 - 0.5)) / 3
    assert np.allclose(stig.fake, expected) and stig.fake[0] == (-0.5 - 0.2) / 3
    assert crowd.map[0] == -0.25 and np.count_nonzero(crowd.map) == 1
    env.step([4])                               # stay on cell 7, next to Good (cell 13)
    second = env.observe()
    r = second[0].rewards
    assert r.max() == 1.0 and r[0] == -0.5      # the true field now (Evil on 25 touches cell 1)
    stig.act(second, draws), crowd.act(second, draws)
    expected[cells] = (expected[cells] + r + 0.4 * (r.max() + r.min())) / 3   # on top: persistent
    assert np.allclose(stig.fake, expected)
    assert crowd.map[12] == 0.5 and crowd.map[0] == (-0.25 - 0.5) / 2   # averaged where seen
    assert crowd.map[1] == 0.0                   # seen, but R = 0 there: left alone


def test_original_bidding_ratchets_and_paper_bidding_starts_afresh():
    g = torus(7)
    around = g.neighbourhood_table(1)
    obs_high = [Observation(8, around[8], np.array([0, 0, 0, 0, 0, 1.0, 0, 0, 0]), 1)]
    obs_low = [Observation(30, around[30], np.array([0, 0.5, 0, 0, 0, 0, 0, 0, 0]), 2)]
    draws = np.array([[0.0, 0.0]])
    for prof, target_after in ((ORIGINAL, 9), (PAPER, int(around[30][1]))):
        team = make("bidding", 1, g, prof, 2)
        team.begin(None)
        team.act(obs_high, draws)
        assert team.target == 9                    # its best cell, right of cell 8
        team.act(obs_low, draws)                   # a lower bid next iteration
        assert team.target == target_after, prof.name


def test_q_learning_update_in_both_profiles():
    """original: Q0 = 2, training reward x10, bootstrap from (cell', iteration 1); paper
    (Algorithm 1): Q0 = 0, the reward itself, bootstrap from (cell', i+1)."""
    g = torus(5)
    around = g.neighbourhood_table(1)
    obs = [Observation(6, around[6], np.zeros(9), 3)]          # iteration 3: time slice 2
    for prof, q0, expected in ((ORIGINAL, 2.0, 2 + 0.3 * (10 * 0.5 + 0.3 * 5.0 - 2)),
                               (PAPER, 0.0, 0 + 0.3 * (0.5 + 0.3 * 7.0 - 0))):
        team = make("qlearning", 1, g, prof, 5, replays=1)
        team.begin(None)
        assert (team.q == q0).all()
        team.q[0, 0, 7, :] = 5.0                               # (cell 8, iteration 1)
        team.q[0, 3, 7, :] = 7.0                               # (cell 8, iteration 4)
        team.training = True
        a = team.act(obs, np.array([[0.0, 0.0]]))[0]
        assert a == 0                                          # all equal: the first, u = 0
        team.feedback(np.array([0.5]), np.array([7]))
        assert team.q[0, 2, 6, a] == pytest.approx(expected), prof.name
        team.training = False
        team.feedback(np.array([0.5]), np.array([7]))          # the scored run does not learn
        assert team.q[0, 2, 6, a] == pytest.approx(expected)
