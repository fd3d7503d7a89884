"""The search space document and the societies a trial turns into (no servers needed: a
FixedTrial stands for the sampler)."""

from __future__ import annotations

import asyncio

import optuna
import pytest

from wwm.search import SearchSettings, SpaceError, build, search
from wwm.search.candidates import TooFewMembers, propose

BED = "wwm.search.testbed"
BASE = {"name": "s", "world": {"class": f"{BED}:SignalWorld"},
        "mind": {"class": "wwm.selection.mind_as:ActionSelectionMind", "args": {"seed": 0}},
        "minds": {"ab": {"class": f"{BED}:SpecialistMind", "args": {"knows": "a,b"}},
                  "cd": {"class": f"{BED}:SpecialistMind", "args": {"knows": "c,d"}},
                  "bad": {"class": f"{BED}:SaboteurMind"}},
        "run": {"steps": 10}}


def space(**changes):
    return build({**BASE, **changes}, "test")


def test_a_trial_becomes_a_society_with_its_members_method_strengths_and_arguments():
    s = space(choose={"methods": ["w=q", "static-w"], "strengths": {"low": 0.5, "high": 4},
                      "args": {"q_temperature": {"low": 0.1, "high": 1.0}, "cd.q": {"choices": [1.0, 3.0]}}})
    trial = optuna.trial.FixedTrial({"use.ab": 1, "use.cd": 1, "use.bad": 0, "method": "static-w",
                                     "strength.ab": 2.0, "strength.cd": 0.5, "strength.bad": 1.0,
                                     "q_temperature": 0.3, "cd.q": 3.0})
    p = propose(trial, s)
    args = p.document["mind"]["args"]
    assert p.members == ["ab", "cd"] and args["method"] == "static-w"
    assert args["strengths"] == [2.0, 0.5] and args["q_temperature"] == 0.3
    assert [m["args"] for m in args["minds"]] == [{"knows": "a,b"}, {"knows": "c,d", "q": 3.0}]
    assert p.document["world"]["class"] == f"{BED}:SignalWorld"


def test_too_few_members_is_refused_before_any_run():
    s = space(choose={"members": {"min": 2}})
    with pytest.raises(TooFewMembers, match="at least 2"):
        propose(optuna.trial.FixedTrial({"use.ab": 1, "use.cd": 0, "use.bad": 0}), s)


def test_the_society_document_s_members_are_candidates_too():
    s = build({"name": "from a society", "world": {"class": f"{BED}:SignalWorld"},
               "mind": {"class": "wwm.selection.mind_as:ActionSelectionMind",
                        "args": {"method": "w=q", "minds": [{"class": f"{BED}:GuesserMind"}]}},
               "minds": {"ab": {"class": f"{BED}:SpecialistMind"}}}, "test")
    assert [c.name for c in s.candidates] == [f"{BED}:GuesserMind", "ab"] and s.methods == ["w=q"]


@pytest.mark.parametrize(("doc", "named"), [
    ({"minds": {}}, "no candidate minds"),
    ({"choose": {"methods": []}}, "methods is empty"),
    ({"choose": {"args": {"x": {"low": 2, "high": 1}}}}, "high (1.0) must be above low (2.0)"),
    ({"choose": {"args": {"x": {"low": 0, "high": 1, "log": True}}}}, "log scale needs low above 0"),
    ({"choose": {"args": {"minds": {"choices": [1]}}}}, "use choose.members"),
    ({"objectives": ["servers"]}, "objectives is [score] or [score, servers]"),
    ({"seeds": "x"}, "seeds"),
    ({"surprise": 1}, "surprise"),
])
def test_a_bad_space_names_what_is_wrong(doc, named):
    with pytest.raises(SpaceError, match=None) as caught:
        space(**doc)
    assert named in str(caught.value)


def test_nsga2_keeps_the_front_of_score_against_servers_called():
    s = space(objectives=["score", "servers"], choose={"methods": ["w=q"]})
    outcome = asyncio.run(search(s, SearchSettings(trials=16, sampler="nsga2", seed=0, parallel=2)))
    front = outcome.best
    assert front and all(len(t.values) == 2 for t in front)
    # no trial of the front is beaten on both objectives by another completed trial
    done = [t for t in outcome.study.trials if t.values]
    for t in front:
        assert not any(o.values[0] > t.values[0] and o.values[1] < t.values[1] for o in done)
    best_score = max(t.values[0] for t in done)
    assert any(t.values[0] == best_score for t in front)


def test_a_battery_of_worlds_scores_each_candidate_over_every_world_and_seed():
    battery = [{"class": f"{BED}:SignalWorld", "args": {"seed": 3}}, {"class": f"{BED}:SignalWorld"}]
    s = build({**{k: v for k, v in BASE.items() if k != "world"}, "worlds": battery, "seeds": [0, 1],
               "choose": {"methods": ["w=q"]}}, "test")
    assert s.battery == battery
    outcome = asyncio.run(search(s, SearchSettings(trials=6, sampler="random", seed=0, parallel=1, prune=False)))
    done = [t for t in outcome.study.trials if t.values]
    assert done and all(len(t.user_attrs["scores"]) == 4 for t in done)     # 2 Worlds × 2 seeds
    with pytest.raises(SpaceError, match="world or worlds"):
        build({**BASE, "worlds": battery}, "test")


def test_two_workers_that_both_counted_the_last_free_trial_run_only_one(tmp_path, monkeypatch):
    """Each worker counts the study's trials, then asks for one. When both counted before either
    asked (forced here: the count is the one both read), the later ask is dropped at once, so
    the study never runs more than its budget."""
    from wwm.search import engine
    from wwm.search.report import OVER_BUDGET, as_dict

    settings = dict(trials=1, sampler="random", seed=0, storage=f"sqlite:///{tmp_path / 's.db'}", study="race")
    first, second = (engine.Search(space(), SearchSettings(**settings, worker=k)) for k in (0, 1))
    monkeypatch.setattr(engine, "_finished", lambda study: 0)
    mine = first._ask_now()
    assert isinstance(mine, optuna.Trial)
    assert second._ask_now() == "wait"             # its trial was past the budget, and is dropped
    dropped = [t for t in first.study.get_trials(deepcopy=False) if t.user_attrs.get(OVER_BUDGET)]
    assert [(t.number, t.state.name) for t in dropped] == [(mine.number + 1, "FAIL")]
    assert [t["number"] for t in as_dict(first.study, first.space)["trials"]] == [mine.number]
    monkeypatch.undo()
    assert second._ask_now() == "wait"             # the first worker's trial still runs ...
    first.study.tell(mine, 1.0)
    assert second._ask_now() is None               # ... and once it is done, the budget is spent


def test_workers_started_together_on_an_empty_database_all_get_its_storage(postgres):
    """Several `wwm search --worker k` started at once on a new database each create Optuna's
    tables; the losers of that race must use the tables the winner made, not stop."""
    import threading

    from wwm.search.engine import storage_of

    for _ in range(3):                       # the race is won and lost in milliseconds: try it thrice
        url = postgres.new_schema()
        start, errors = threading.Barrier(4), []

        def open_it(url: str, start: threading.Barrier, errors: list[Exception]) -> None:
            start.wait()
            try:
                storage_of(url)
            except Exception as exc:         # noqa: BLE001 (the test reports any failure)
                errors.append(exc)

        threads = [threading.Thread(target=open_it, args=(url, start, errors)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        study = optuna.create_study(storage=storage_of(url), study_name="s")   # the tables work
        study.tell(study.ask(), 1.0)
        assert len(optuna.load_study(study_name="s", storage=url).trials) == 1
