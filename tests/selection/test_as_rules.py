"""The pure decision rules of section 10 against hand-computed answers, and the properties
the reference notes list: MCU and MCH always agree; copying a mind leaves individual-driven
methods alone (section 6 item 5) but can move collective ones; negotiation terminates."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.selection import rules

# Three minds, three shared actions. Hand-computed below each test.
Q = [[5.0, 4.0, 0.0],   # mind 0 likes a0, a1 nearly as much
     [0.0, 3.0, 4.0],   # mind 1 likes a2, a1 is fine
     [1.0, 2.0, 0.0]]   # mind 2 mildly prefers a1
U = rules.unhappiness(Q)  # [[0,1,5],[4,1,0],[1,0,2]]


def test_unhappiness_is_loss_against_own_best():
    assert U == [[0.0, 1.0, 5.0], [4.0, 1.0, 0.0], [1.0, 0.0, 2.0]]


def test_four_global_decisions_by_hand():
    # MBH: column maxima 5, 4, 4 -> a0
    assert rules.max_best_happiness(Q) == 0
    # MWU: worst losses per action 4, 1, 5 -> a1 (a compromise nobody asked for first)
    assert rules.min_worst_unhappiness(U) == 1
    # MCU: total losses 5, 2, 7 -> a1; MCH: totals 6, 9, 4 -> a1
    assert rules.min_collective_unhappiness(U) == 1
    assert rules.max_collective_happiness(Q) == 1


def test_damn_weights_and_equal_weights_equal_mch():
    assert rules.damn(Q, [1, 1, 1]) == rules.max_collective_happiness(Q)
    # weight mind 1 by 5: totals 5+0+1=6, 4+15+2=21, 0+20+0=20 -> a1; by 10: 6, 36, 40 -> a2
    assert rules.damn(Q, [1, 5, 1]) == 1
    assert rules.damn(Q, [1, 10, 1]) == 2
    with pytest.raises(ValueError, match="3 minds but 2 weights"):
        rules.damn(Q, [1, 1])


def test_collective_equality_by_hand():
    # spreads of U per action: a0 {0,4,1} -> 4; a1 {1,1,0} -> 1; a2 {5,0,2} -> 5
    assert rules.collective_equality(U) == 1
    # equal spreads break to the lower total loss
    assert rules.collective_equality([[1.0, 2.0], [1.0, 2.0]]) == 0


def test_product_mch_shifts_to_positive_and_differs_from_sum():
    # shifted by -min+1 = +1: a0 6*1*2=12, a1 5*4*3=60, a2 1*5*1=5 -> a1
    assert rules.product_max_collective_happiness(Q) == 1
    # a product punishes one unhappy mind harder than a sum does
    q = [[10.0, 6.0], [0.0, 3.5]]
    assert rules.max_collective_happiness(q) == 0           # 10 vs 9.5
    assert rules.product_max_collective_happiness(q) == 1   # 11*1=11 vs 7*4.5=31.5


def test_highest_bid_ties_go_to_the_action_not_the_position():
    bids = [rules.Bid("b", 2.0), rules.Bid("a", 2.0), rules.Bid("c", 1.0)]
    assert rules.highest(bids) == 1
    assert rules.lowest([3.0, 1.0, 1.0]) == 1


def test_boltzmann_zero_temperature_is_strict_and_high_temperature_explores():
    rng = random.Random(1)
    assert rules.boltzmann([1.0, 3.0, 2.0], 0.0, rng) == 1
    assert rules.boltzmann([1.0, 3.0, 2.0], 0.0, rng, lowest_wins=True) == 0
    picks = [rules.boltzmann([1.0, 3.0, 2.0], 0.5, rng) for _ in range(3000)]
    share = picks.count(1) / len(picks)
    # e^6 / (e^2 + e^6 + e^4) = 0.867
    assert 0.83 < share < 0.90
    assert {0, 2} <= set(picks)
    lows = [rules.boltzmann([1.0, 3.0], 1.0, rng, lowest_wins=True) for _ in range(2000)]
    assert 0.84 < lows.count(0) / 2000 < 0.92  # 1/(1+e^-2) = 0.881


def test_most_popular_and_rotation():
    rng = random.Random(0)
    assert rules.most_popular(["n", "e", "n", "s"], rng) == "n"
    seen = {rules.most_popular(["n", "e", "s"], rng) for _ in range(60)}
    assert seen == {"n", "e", "s"}  # nothing appears twice: a random one
    assert [rules.rotation(t, 3, period=2) for t in range(8)] == [0, 0, 1, 1, 2, 2, 0, 0]
    with pytest.raises(ValueError):
        rules.rotation(0, 0)


def test_negotiation_by_hand_and_its_start_dependence():
    # u_of[i][k]: what mind i loses if mind k's action is taken
    u_of = [[0.0, 3.0, 1.0],
            [2.0, 0.0, 5.0],
            [4.0, 1.0, 0.0]]
    # start 0: losses (-, 2, 4) -> 2 leads with W=4; vs a2: (1, 5, -) -> 1 leads with 5;
    # vs a1: (3, -, 1) -> max 3 < 5: stop. Leader 1, W 5, 3 rounds.
    assert rules.negotiate(u_of, 0) == rules.Negotiated(1, 5.0, 3)
    # start 1: (3, -, 1) -> 0 leads with 3; vs a0: (-, 2, 4) -> 2 with 4; vs a2: (1, 5, -) -> 1 with 5
    assert rules.negotiate(u_of, 1).leader == 1
    # an outcome that depends on the start: two minds that each lose 1 by the other
    assert rules.negotiate([[0.0, 1.0], [1.0, 0.0]], 0).leader == 1
    assert rules.negotiate([[0.0, 1.0], [1.0, 0.0]], 1).leader == 0


def test_negotiated_collective_by_hand():
    u_of = [[0.0, 3.0, 1.0], [2.0, 0.0, 5.0], [4.0, 1.0, 0.0]]
    # W_k = column sums without the diagonal: 6, 4, 6 -> mind 1
    assert rules.negotiated_collective(u_of) == 1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="every mind needs a value"):
        rules.min_worst_unhappiness([[1.0, 2.0], [1.0]])
    with pytest.raises(ValueError, match="no minds"):
        rules.max_collective_happiness([])


# ---- properties over random Q tables ---------------------------------------------------------

values = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False)


@st.composite
def q_tables(draw, min_minds=1):
    n = draw(st.integers(min_minds, 5))
    a = draw(st.integers(1, 6))
    return [[draw(values) for _ in range(a)] for _ in range(n)]


@st.composite
def duplicated(draw):
    """A Q table and the same table with mind j copied m times, at random positions."""
    q = draw(q_tables())
    j = draw(st.integers(0, len(q) - 1))
    m = draw(st.integers(1, 6))
    dup = [list(r) for r in q]
    for _ in range(m):
        dup.insert(draw(st.integers(0, len(dup))), list(q[j]))
    return q, dup


@settings(max_examples=300, deadline=None)
@given(duplicated())
def test_mwu_and_w_eq_q_ignore_copies_of_a_mind(pair):
    q, dup = pair
    assert rules.min_worst_unhappiness(rules.unhappiness(dup)) == rules.min_worst_unhappiness(rules.unhappiness(q))
    assert rules.max_best_happiness(dup) == rules.max_best_happiness(q)
    # the AS_s form of W=Q: each mind bids its best action with its Q; same winning action
    def winning_action(table):
        bids = [rules.Bid(str(row.index(max(row))), max(row)) for row in table]
        return bids[rules.highest(bids)].action
    assert winning_action(dup) == winning_action(q)


@settings(max_examples=300, deadline=None)
@given(q_tables())
def test_mcu_and_mch_always_agree(q):
    """The same action, up to floating-point rounding in near-ties: SUM_i Q_i(x,a_i) does not
    depend on a, so the action minimising total unhappiness maximises total happiness."""
    mcu = rules.min_collective_unhappiness(rules.unhappiness(q))
    mch = rules.max_collective_happiness(q)
    totals = [sum(row[c] for row in q) for c in range(len(q[0]))]
    assert totals[mcu] == pytest.approx(totals[mch], rel=1e-12, abs=1e-12)
    if max(totals) - sorted(totals)[-2 if len(totals) > 1 else -1] > 1e-9 or len(totals) == 1:
        assert mcu == mch  # no near-tie: exactly the same action


def test_a_collective_method_changes_its_choice_when_a_mind_is_copied():
    q_a, q_b = [1.0, 0.0], [0.0, 0.6]
    assert rules.max_collective_happiness([q_a, q_b]) == 0          # 1.0 vs 0.6
    assert rules.max_collective_happiness([q_a, q_b, q_b]) == 1     # 1.0 vs 1.2
    assert rules.min_collective_unhappiness(rules.unhappiness([q_a, q_b, q_b])) == 1
    # ... while Minimize the Worst Unhappiness keeps a0 (worst losses 0.6 vs 1.0)
    assert rules.min_worst_unhappiness(rules.unhappiness([q_a, q_b])) == 0
    assert rules.min_worst_unhappiness(rules.unhappiness([q_a, q_b, q_b])) == 0
    # copying a mind m times is making it m times as strong (reference notes 7)
    assert rules.damn([q_a, q_b], [1, 2]) == rules.max_collective_happiness([q_a, q_b, q_b])


@settings(max_examples=200, deadline=None)
@given(q_tables(min_minds=2), st.data())
def test_negotiation_terminates_and_no_one_loses_more_than_the_leader(q, data):
    # shared actions: mind k proposes its best action; u_of[i][k] = U_i(x, a_k)
    n = len(q)
    best = [row.index(max(row)) for row in q]
    u = rules.unhappiness(q)
    u_of = [[u[i][best[k]] for k in range(n)] for i in range(n)]
    start = data.draw(st.integers(0, n - 1))
    result = rules.negotiate(u_of, start)
    assert result.rounds <= n * (n - 1) + 1
    assert all(u_of[i][result.leader] <= result.w + 1e-12 for i in range(n) if i != result.leader)


@settings(max_examples=300, deadline=None)
@given(q_tables(min_minds=2), st.data())
def test_negotiation_from_a_fixed_start_ignores_copies_of_a_mind(q, data):
    """Reference notes 7, test 4: with a fixed start (the first mind), copying a mind
    changes neither the winning action nor the leader's W."""
    def walk(table):
        best = [row.index(max(row)) for row in table]
        u = rules.unhappiness(table)
        result = rules.negotiate([[u[i][best[k]] for k in range(len(table))] for i in range(len(table))], 0)
        return best[result.leader], result.w
    j = data.draw(st.integers(0, len(q) - 1))
    copies = data.draw(st.integers(1, 4))
    assert walk(q + [list(q[j]) for _ in range(copies)]) == walk(q)
