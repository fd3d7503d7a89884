"""The rules of Tyrrell's world, each checked on the engine: predators kill (not in the den),
starvation and thirst kill, night hides hawks and mates and shrinks sight, courting then
mating raises fitness (and the World reports it as score), the same seed gives the same life,
and bad actions and states are refused by name."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.tyrrell import TyrrellWorld
from wwm.tyrrell.engine import TyrrellEngine
from wwm.tyrrell.rules import COURT, EAT, INDEX, MATE, OPEN, REST, Rules, parse_action
from wwm.tyrrell.state import format_state, parse_state


def quiet(**changes) -> TyrrellEngine:
    """A world with nothing that moves unless the test puts it there."""
    base = dict(felines=0, hawks=0, irrelevant=0, mates=0, preys=0)
    return TyrrellEngine(Rules(**(base | changes)), seed=1)


def open_cell_near(e: TyrrellEngine) -> tuple[int, int]:
    """An open cell with open cells all round it, away from the den."""
    n = e.rules.size
    for y in range(2, n - 2):
        for x in range(2, n - 2):
            if (e.ground[y - 1:y + 2, x - 1:x + 2] == OPEN).all() and e.distance((x, y), e.den) > 3:
                return x, y
    raise AssertionError("no open cell")


def test_a_feline_that_reaches_the_animal_kills_it_but_not_in_the_den():
    e = quiet(felines=1, feline_kill=1.0)
    e.pos = open_cell_near(e)
    e.felines[0] = (e.pos[0] + 1, e.pos[1])
    fitness = e.fitness
    e.step(REST)
    assert not e.alive and e.cause == "killed by a feline" and e.fitness == fitness
    with pytest.raises(ValueError, match="dead"):
        e.step(REST)
    safe = quiet(felines=1, feline_kill=1.0)
    assert safe.in_den
    safe.felines[0] = (safe.den[0] + 1, safe.den[1])
    for _ in range(20):
        safe.step(REST)
    assert safe.alive


def test_a_hawk_strikes_in_the_open_by_day_only():
    e = quiet(hawks=1, hawk_kill=1.0)
    e.pos = open_cell_near(e)
    e.hawks[0] = (e.pos[0], e.pos[1] - 1)
    e.step(REST)
    assert not e.alive and e.cause == "killed by a hawk"
    night = quiet(hawks=1, hawk_kill=1.0)
    night.step_count = night.rules.day - night.rules.night      # dusk: night begins
    night.pos = open_cell_near(night)
    night.hawks[0] = (night.pos[0], night.pos[1] - 1)
    assert night.is_night and parse_state(format_state(night)).vector("predator2") == (0.0,) * 9
    night.step(REST)
    assert night.alive


def test_starvation_and_thirst_end_the_life():
    e = quiet()
    e.levels[2] = 0.0005
    e.step(REST)
    assert not e.alive and e.cause == "starvation (protein)"
    thirsty = quiet()
    thirsty.levels[3] = 0.001
    thirsty.step(INDEX["move-N"])
    assert not thirsty.alive and thirsty.cause == "thirst"


def test_eating_gives_the_food_s_nutrients_and_the_food_grows_again_elsewhere():
    e = quiet(preys=1)
    e.pos = open_cell_near(e)
    e.food["prey"][0] = e.pos
    before = e.levels.copy()
    e.step(EAT)
    assert e.levels[2] > before[2] + 0.25 and "ate prey" in e.events
    assert tuple(e.food["prey"][0]) != e.pos and e.food_ready["prey"][0] > e.step_count


def test_night_shrinks_sight_and_brings_cold():
    e = quiet(cereals=1)
    e.pos = open_cell_near(e)
    e.food["cereal"][0] = (e.pos[0], e.pos[1] - 4)
    by_day = parse_state(format_state(e)).vector("cereal")
    assert by_day[1] > 0                                        # north, four cells off
    e.step_count = e.rules.day - e.rules.night
    e._percept = None
    x = parse_state(format_state(e))
    assert x["night"] == 1 and x["nightProximity"] == 1 and x.vector("cereal")[1] == 0
    t = e.temperature
    for _ in range(10):
        e.step(REST)
    assert e.temperature < t


def test_courting_then_mating_raises_fitness_and_the_world_scores_it():
    e = quiet(mates=1)
    e.pos = open_cell_near(e)
    e.mates[0] = (e.pos[0] + 1, e.pos[1])
    assert e.step(MATE) == 0                                    # not courted yet: no mating
    for _ in range(e.rules.courtship):
        e.step(COURT)
    assert parse_state(format_state(e))["mateCourted"] == 1
    assert e.step(MATE) == 1 and e.fitness == 1
    assert e.step(MATE) == 0                                    # the mate is refractory now
    assert e.fitness == 1


async def test_the_world_reports_matings_as_score():
    world = TyrrellWorld(seed=1)
    e = world.engine
    e.pos = open_cell_near(e)
    e.mates[0] = (e.pos[0] + 1, e.pos[1])
    e.felines[:] = e.hawks[:] = e.animals[:] = (0, 0)
    for _ in range(e.rules.courtship):
        await world.execute_action("court")
    out = await world.execute_action(str(MATE))               # by index, as w2mind's worlds take it
    assert out.score == 1.0 and "fitness:1;" in out.state and await world.get_current_score() == 1.0


def test_the_same_seed_gives_the_same_life_and_another_seed_another():
    lives = []
    for seed in (4, 4, 5):
        e = TyrrellEngine(seed=seed)
        for k in range(300):
            if not e.alive:
                break
            e.step(k % 25)
        lives.append(format_state(e))
    assert lives[0] == lives[1] and lives[0] != lives[2]


async def test_bad_actions_and_states_are_refused_by_name():
    world = TyrrellWorld(seed=0)
    with pytest.raises(Refusal) as info:
        await world.execute_action("fly")
    assert info.value.code == "bad-parameters" and "'fly'" in info.value.text and "move-N" in info.value.text
    with pytest.raises(Refusal):
        await world.execute_action("25")
    assert parse_action(" Run-ne ") == INDEX["run-NE"]
    with pytest.raises(ValueError, match="bad pair 'fruitPerceptionStimulus:1,2'"):
        parse_state("step:1;fruitPerceptionStimulus:1,2;")
    with pytest.raises(ValueError, match="missing"):
        parse_state("step:1;")
    with pytest.raises(ValueError, match="lifetime"):
        TyrrellWorld(lifetime=0)
    world.engine.levels[3] = 0.0
    world.engine.step(REST)
    with pytest.raises(Refusal) as info:
        await world.execute_action("rest")
    assert info.value.code == "run-ended" and "thirst" in info.value.text
