"""Chains: extending the newest value shares its list, extending an older one forks it, and
every value reads the same forever."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from wwm.meta.chain import Chain


def test_extending_shares_at_the_tip_and_copies_for_a_fork():
    empty = Chain()
    a = empty.extended([1, 2])
    b = a.extended([3])
    fork = a.extended([9])
    assert list(empty) == [] and list(a) == [1, 2] and list(b) == [1, 2, 3] and list(fork) == [1, 2, 9]
    assert b._items is a._items and fork._items is not a._items
    assert b[-1] == 3 and b[0:2] == [1, 2] and len(b) == 3


@given(st.lists(st.tuples(st.integers(0, 20), st.lists(st.integers(), max_size=3)), max_size=40))
def test_any_history_of_extensions_leaves_every_value_unchanged(moves):
    values = [Chain()]
    expected = [[]]
    for source, new in moves:
        i = source % len(values)
        values.append(values[i].extended(new))
        expected.append(expected[i] + new)
    assert [list(v) for v in values] == expected
