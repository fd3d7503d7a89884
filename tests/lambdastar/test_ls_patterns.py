"""Movement patterns of Good and Evil: period, moves, complexity, in both profiles."""

import numpy as np
import pytest

from wwm.lambdastar.complexity import lempel_ziv, search_entropy
from wwm.lambdastar.episodes import generate


def test_original_patterns_are_palindromic_walks():
    s = generate(10, 100, 300, "original", seed=1)
    n, g = 10, s.grid
    assert s.segment.min() >= n and s.segment.max() <= 2 * n - 1
    steps = g.distance[s.good[:, 1:], s.good[:, :-1]]
    assert steps.max() <= 1                                    # a king move or a stay
    for e in range(20):
        L = int(s.segment[e])
        seq = s.good[e]
        assert np.array_equal(seq[:L], seq[2 * L - 1:L - 1:-1])  # seg then reverse(seg)
        assert np.array_equal(seq[: 101 - 2 * L], seq[2 * L:101])  # period 2L
        assert s.complexity[e] == lempel_ziv(seq[:L].tolist())   # K on the segment
    assert np.array_equal(s.evil, (s.good + 1 + 100 // 3) % 100)   # linear shift by N/3 + 1
    assert np.all(g.distance[s.good, s.evil] == 4)                 # always 4 apart on 10x10
    assert s.complexity.min() >= 2 and s.complexity.max() <= 2 * n - 1


def test_paper_patterns_repeat_a_closed_segment_cyclically():
    from wwm.lambdastar.episodes import paper_pattern_pair
    s = generate(10, 60, 300, "paper", seed=2, k_max=None)           # the rule itself, no K limit
    g = s.grid
    good, evil, length = paper_pattern_pair(g, 60, 300, 2)       # the patterns, before collisions
    assert np.array_equal(length, s.segment)
    assert s.segment.min() == 1 and s.segment.max() == 30          # 1..⌊ϑ/2⌋
    assert (g.distance[good[:, 1:], good[:, :-1]] <= 1).all()      # king moves or stays
    for e in range(300):
        L = int(length[e])
        assert np.array_equal(good[e, :61 - L], good[e, L:])        # period L: a closed segment
    # the played trajectories are the patterns except where a collision held an object back
    clashed = (good == evil).any(axis=1)
    assert np.array_equal(s.good[~clashed], good[~clashed])
    assert np.array_equal(s.evil[~clashed], evil[~clashed])
    assert (s.good != s.evil).all()                                 # never on one cell
    assert all(s.complexity[e] == lempel_ziv(s.good[e, 1:].tolist())  # K on the ϑ-long sequence
               for e in range(300))
    one = int(np.flatnonzero(length == 1)[0])
    assert s.complexity[one] == 2                                   # a standing object: c = 2


def test_paper_evil_is_a_different_but_equally_complex_pattern():
    from wwm.lambdastar.episodes import paper_pattern_pair
    from wwm.lambdastar.torus import torus
    g = torus(7)
    good, evil, _ = paper_pattern_pair(g, 40, 200, 3)
    assert all(lempel_ziv(good[e].tolist()) == lempel_ziv(evil[e].tolist()) for e in range(200))
    assert (good != evil).any(axis=1).all()
    assert (g.distance[evil[:, 1:], evil[:, :-1]] <= 1).all()      # Evil moves like Good does
    assert (good[:, 0] != evil[:, 0]).all()


def test_the_same_seed_gives_the_same_battery():
    a, b = generate(10, 50, 50, "paper", seed=9), generate(10, 50, 50, "paper", seed=9)
    assert np.array_equal(a.good, b.good) and np.array_equal(a.starts(3), b.starts(3))
    c = generate(10, 50, 50, "paper", seed=10)
    assert not np.array_equal(a.good, c.good)


def test_start_cells_are_distinct_and_stable_across_group_sizes():
    s = generate(5, 10, 40, "original", seed=4)
    four = s.starts(4)
    assert all(len(set(row)) == 4 for row in four.tolist())
    assert np.array_equal(s.starts(2), four[:, :2])
    with pytest.raises(ValueError, match="do not fit"):
        s.starts(26)


def test_search_entropy_for_small_grids():
    assert search_entropy(3) == pytest.approx(np.log2(9 * 8))
    assert search_entropy(5) == pytest.approx(np.log2(600))
    assert generate(10, 5, 1).entropy == pytest.approx(np.log2(9900))


def test_original_profile_needs_a_square_grid():
    with pytest.raises(ValueError, match="square"):
        generate((5, 7), 10, 3, "original")


def test_original_patterns_match_the_reference_statistics():
    """Reference notes 1.2-1.3 (20,000 patterns per size from the authors' generator): the
    range and mean of the segments' LZ complexity and the Good-Evil distance per grid size."""
    reference = {5: (5.93, (1, 2)), 7: (8.10, (3, 3)), 10: (11.27, (4, 4)), 12: (13.38, (4, 5))}
    for n, (mean_c, (d_lo, d_hi)) in reference.items():
        s = generate(n, 2 * n, 10_000, "original", seed=n)
        assert s.complexity.mean() == pytest.approx(mean_c, abs=0.08), n
        assert s.complexity.min() >= 2 and s.complexity.max() <= 2 * n - 1
        d = s.grid.distance[s.good, s.evil]
        assert (d.min(), d.max()) == (d_lo, d_hi), n
