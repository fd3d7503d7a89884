"""The sub-problem minds: each prefers what its goal needs, reports Q and W (its loss) for any
action, learns W when asked to, and every Action Selection method of section 10 combines the
fourteen of them over a short life."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.selection.mind_as import ActionSelectionMind
from wwm.tyrrell import GOALS, society
from wwm.tyrrell.compare import default_methods, one_life
from wwm.tyrrell.minds import FelineMind, HawkMind, MateMind, NutrientMind, SleepMind
from wwm.tyrrell.state import SCALARS, VECTORS

N, E, S = 1, 3, 5   # direction indices


def state(**items) -> str:
    """A state text: every scalar 0 and every vector empty unless given; a vector is given as
    {direction: value}."""
    parts = ["step:0", "fitness:0", "alive:1"]
    parts += [f"{k}:{items.get(k, 0)}" for k in SCALARS]
    for k in VECTORS:
        vec = [0.0] * 9
        for d, v in items.get(k.removesuffix("PerceptionStimulus"), {}).items():
            vec[d] = v
        parts.append(f"{k}:{','.join(map(str, vec))}")
    return ";".join(parts) + ";"


async def test_a_hungry_mind_eats_what_is_here_and_heads_for_what_it_needs():
    carb = NutrientMind("carbohydrate")
    here = state(perceivedCarbohydrateShortage=0.8, fruit={0: 1.0})
    assert (await carb.get_suggestion(here)).action == "eat"
    away = state(perceivedCarbohydrateShortage=0.8, fruit={E: 0.3}, prey={N: 0.5})
    assert (await carb.get_suggestion(away)).action == "move-E"     # fruit holds carbohydrate, prey none
    protein = NutrientMind("protein")
    hunting = state(perceivedProteinShortage=0.8, fruit={E: 0.3}, prey={N: 0.2})
    assert (await protein.get_suggestion(hunting)).action == "move-N"
    sated = await carb.get_suggestion(state(perceivedCarbohydrateShortage=0.0, fruit={0: 1.0}))
    assert sated.q == 0.0


async def test_fleeing_minds_run_away_or_hide():
    cat = FelineMind()
    s = await cat.get_suggestion(state(predator1={N: 0.3}))
    assert s.action in ("run-S", "run-SE", "run-SW") and s.q > 0.5
    assert (await cat.get_suggestion(state(predator1={N: 0.3}, inDen=1))).q == 0.0
    hawk = HawkMind()
    assert (await hawk.get_suggestion(state(predator2={E: 0.2}, onCover=1))).action == "freeze"
    assert (await hawk.get_suggestion(state(predator2={E: 0.2}, cover={S: 0.3}))).action == "run-S"


async def test_sleep_and_courtship_follow_the_day():
    sleep = SleepMind()
    assert (await sleep.get_suggestion(state(nightProximity=1, night=1, inDen=1))).action == "sleep"
    assert (await sleep.get_suggestion(state(nightProximity=1, night=1, den={E: 0.2}))).action == "run-E"
    mate = MateMind()
    assert (await mate.get_suggestion(state(mate={E: 0.5}))).action == "court"
    assert (await mate.get_suggestion(state(mate={E: 0.5}, mateCourted=1))).action == "mate"
    assert (await mate.get_suggestion(state(mate={E: 0.5}, night=1))).q == 0.0


async def test_values_are_q_and_the_loss_and_learned_w_follows_the_losses():
    carb = NutrientMind("carbohydrate", w="learned")
    x = state(perceivedCarbohydrateShortage=0.8, fruit={0: 1.0})
    s = await carb.get_suggestion(x)
    assert s.action == "eat" and s.w == 0.0                         # W starts at 0 and is learnt
    v = await carb.get_values(x, "sleep")
    assert v.q == 0.0 and v.w == pytest.approx(s.q)                # its loss by sleeping: all of it
    assert (await carb.get_values(x, "fly")) .q is None            # not an action: no values
    for _ in range(30):
        await carb.get_suggestion(x)
        await carb.inform_winner(x, obeyed=False, action="sleep")
    assert (await carb.get_suggestion(x)).w == pytest.approx(s.q, rel=0.01)
    with pytest.raises(Refusal) as info:
        await carb.get_suggestion("n=4")                             # another world's state
    assert info.value.code == "bad-parameters" and "not a Tyrrell world state" in info.value.text
    with pytest.raises(ValueError, match="w must be"):
        NutrientMind("fat", w="loud")
    with pytest.raises(ValueError, match="nutrient must be"):
        NutrientMind("sugar")


async def test_mwu_finds_a_compromise_that_winner_take_all_does_not():
    """A hungry animal with fruit to the east and a cat to the north: W=Q obeys the strongest
    mind (flee: run south); MWU picks the suggested action whose worst loss over the minds
    is least, here east (towards the fruit, sideways from the cat)."""
    x = state(perceivedCarbohydrateShortage=0.7, fruit={E: 0.5}, predator1={N: 0.2})
    minds = society()
    wta = (await ActionSelectionMind(society(), method="w=q").get_action(x)).action
    mwu = (await ActionSelectionMind(society(), method="min-worst-unhappiness").get_action(x)).action
    strongest = max([await m.get_suggestion(x) for m in minds], key=lambda s: s.q)
    assert wta == strongest.action and mwu != wta

    async def worst(action: str) -> float:
        return max([(await m.get_values(x, action)).w for m in minds])
    suggested = {(await m.get_suggestion(x)).action for m in minds}
    assert await worst(mwu) == min([await worst(a) for a in suggested]) < await worst(wta)


@pytest.mark.parametrize("method", default_methods())
async def test_every_as_method_combines_the_goal_minds(method):
    fitness, lived, cause = await one_life(method, seed=2, lifetime=40)
    assert 1 <= lived <= 40 and fitness >= 0 and cause
    assert len(GOALS) == len(society()) == 14
