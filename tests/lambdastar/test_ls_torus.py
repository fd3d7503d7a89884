"""Λ* mechanics: cell numbering, the nine actions, Moore neighbourhoods, toroidal Chebyshev
distance and the one-step approach (reference notes 1.1)."""

import numpy as np
import pytest

from wwm.lambdastar.torus import ACTION_NAMES, Torus, torus


def ids(cells):
    return [c + 1 for c in cells]


def test_cells_are_numbered_row_major_from_one():
    g = torus(5)
    assert g.index(0, 0) + 1 == 1
    assert g.index(0, 1) + 1 == 2
    assert g.index(1, 0) + 1 == 6          # paper figure 3: (2, 1) is cell 6
    assert g.index(4, 4) + 1 == 25


def test_actions_from_cell_7_on_5x5():
    g = torus(5)
    assert [g.move(6, a) + 1 for a in range(9)] == [1, 2, 3, 6, 7, 8, 11, 12, 13]
    assert ACTION_NAMES[4] == "stay" and ACTION_NAMES[0] == "up-left" and ACTION_NAMES[8] == "down-right"


def test_neighbourhood_wraps_around_the_torus():
    assert ids(torus(5).neighbourhood(24, 1)) == [19, 20, 16, 24, 25, 21, 4, 5, 1]
    assert len(torus(7).neighbourhood(0, 2)) == 25


def test_toroidal_chebyshev_distance():
    g = torus(5)
    assert g.distance[g.index(0, 2), g.index(4, 2)] == 1   # (1,3) and (5,3): 1 cell apart
    assert g.distance[g.index(0, 0), g.index(2, 2)] == 2
    assert g.distance[g.index(0, 0), g.index(4, 4)] == 1
    assert g.distance[g.index(0, 0), g.index(2, 3)] == 2


@pytest.mark.parametrize("n", range(3, 13))
def test_approach_of_a_neighbour_is_the_action_to_it(n):
    g = Torus(n)
    for cell in range(g.size):
        for a, target in enumerate(g.neighbourhood(cell, 1)):   # nine distinct cells, n >= 3
            assert g.approach[target, cell] == a                 # the centre: a = 4, stay


@pytest.mark.parametrize("n", [4, 7, 10])
def test_approach_shortens_the_distance_by_one(n):
    g = Torus(n)
    src, dst = np.meshgrid(np.arange(g.size), np.arange(g.size))
    moved = g.moves[src, g.approach[dst, src]]
    d0, d1 = g.distance[src, dst], g.distance[moved, dst]
    assert np.all(d1 == np.maximum(d0 - 1, 0))


def test_too_small_grid_is_refused_clearly():
    with pytest.raises(ValueError, match="at least 3x3"):
        Torus(2)
