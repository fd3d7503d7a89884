"""Agent behaviours on hand-made episodes: the intercepting oracle of the paper against the
code's follower, local search's tie-breaking, and stigmergy drawing a far agent in."""

import numpy as np

from wwm.evaluation.agents import make
from wwm.evaluation.harness import Setting, play
from wwm.worlds.lambdastar.episodes import EpisodeSet
from wwm.worlds.lambdastar.profiles import ORIGINAL, PAPER
from wwm.worlds.lambdastar.torus import torus


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
    obs = s.episode(0, 1).observe()
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
    obs = s.episode(0, 2).observe()
    assert obs[1].rewards.max() == obs[1].rewards.min() == 0.0
    for u in np.linspace(0, 0.999, 7):
        draws = np.array([[u, 0.0], [u, 0.0]])
        stig = make("stigmergy", 2, g, PAPER, 2)
        stig.begin(s.episode(0, 2))
        assert stig.act(obs, draws)[1] in (2, 5, 8)    # up-right, right or down-right
    lone = {make("local", 2, g, PAPER, 2).act(obs, np.array([[0.0, 0], [u, 0]]))[1]
            for u in np.linspace(0, 0.999, 9)}
    assert lone == set(range(9))                     # alone it would wander at random
