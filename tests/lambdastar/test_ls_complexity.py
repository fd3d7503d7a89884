"""Lempel-Ziv complexity against the reference values of the authors' unit tests, and test
batteries built per Definition 3."""

import numpy as np
import pytest

from wwm.lambdastar.battery import BatterySpec, bands, build
from wwm.lambdastar.complexity import (
    lempel_ziv,
    lempel_ziv_periodic,
    lempel_ziv_rows,
    normalised_lempel_ziv,
    search_entropy,
)

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


def test_many_rows_at_once_count_as_one_at_a_time():
    rng = np.random.default_rng(7)
    texts = [[int(x) for x in text] for text, _, _ in REFERENCE]
    width = max(map(len, texts))
    padded = np.array([t + [0] * (width - len(t)) for t in texts])
    assert lempel_ziv_rows(padded, np.array([len(t) for t in texts])).tolist() == \
        [c for _, c, _ in REFERENCE]
    for _ in range(200):  # short alphabets make long repeats; cut rows anywhere, empty too
        rows = rng.integers(-2, int(rng.integers(1, 4)), (6, int(rng.integers(1, 40))))
        cut = rng.integers(0, rows.shape[1] + 1, 6)
        one_by_one = [lempel_ziv(r[:n].tolist()) for r, n in zip(rows, cut, strict=True)]
        assert lempel_ziv_rows(rows, cut).tolist() == one_by_one
        periods = rng.integers(1, 7, 6)
        n = 2 * int(periods.max()) + int(rng.integers(0, 9))
        base = rng.integers(0, 3, (6, n))
        periodic = np.take_along_axis(base, np.arange(n)[None, :] % periods[:, None], axis=1)
        assert lempel_ziv_periodic(periodic, periods).tolist() == [lempel_ziv(r.tolist()) for r in periodic]


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
