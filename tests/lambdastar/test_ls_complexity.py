"""Lempel-Ziv complexity against the reference values of the authors' unit tests, and test
batteries built per Definition 3."""

import numpy as np
import pytest

from wwm.lambdastar.battery import BatterySpec, bands, build
from wwm.lambdastar.complexity import lempel_ziv, normalised_lempel_ziv, search_entropy

REFERENCE = [("111111111", 2, 0.7044), ("111121111", 3, 1.0566), ("123456789", 9, 3.1699),
             ("1212121212", 3, 0.9966), ("123123123123", 4, 1.1950),
             ("12312312312312", 4, 1.0878), ("123589431898354158313", 13, 2.7191)]


@pytest.mark.parametrize("text, c, normalised", REFERENCE)
def test_lempel_ziv_reference_values(text, c, normalised):
    assert lempel_ziv(text) == c
    assert normalised_lempel_ziv(text) == pytest.approx(normalised, abs=5e-5)


def test_symbols_are_whole_cell_ids():
    assert lempel_ziv([7, 3, 4, 9, 8] * 4) == lempel_ziv("73498" * 4)
    assert lempel_ziv([12, 1, 2]) == 3 and lempel_ziv("1212") == 3
    assert lempel_ziv([]) == 0 and lempel_ziv([5]) == 1
    with pytest.raises(ValueError):
        normalised_lempel_ziv([1])


def test_entropy_of_tiny_grids():
    assert search_entropy(1, 2) == 1.0
    with pytest.raises(ValueError):
        search_entropy(1, 1)


def test_bands_cover_the_range():
    assert bands(2, 19, 4) == [(2, 5), (6, 10), (11, 15), (16, 19)]
    assert bands(3, 4, 8) == [(3, 3), (4, 4)]


def test_stratified_battery_spreads_k_evenly_with_one_entropy():
    s = build(BatterySpec(10, 60, 40, "paper", seed=1, k_range=(4, 20), bins=4))
    assert len(s) == 40 and s.complexity.min() >= 4 and s.complexity.max() <= 20
    counts = [int(((s.complexity >= lo) & (s.complexity <= hi)).sum()) for lo, hi in bands(4, 20, 4)]
    assert counts == [10, 10, 10, 10]
    again = build(BatterySpec(10, 60, 40, "paper", seed=1, k_range=(4, 20), bins=4))
    assert np.array_equal(s.good, again.good)


def test_impossible_complexity_range_is_explained():
    with pytest.raises(ValueError, match=r"cannot fill the complexity range.*K in \[2, 9\]"):
        build(BatterySpec(5, 20, 10, "original", seed=0, k_range=(30, 40)))
