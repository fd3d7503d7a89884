"""The search engine over the Signal World's servers, hosted in this process (the in-process
binding: the servers are the same apps ``wwm serve`` runs, the search is the point; the search
commands' tests in test_search_cli.py use real processes): a sampler finds the known best
society of the Signal World; a dead member is a failed trial with its reason, not a failed
search; poor candidates are pruned early."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from signal_bed import hosted_signal_bed, space_of

from wwm.search import SearchSettings, build, search
from wwm.search.engine import Search, TrialDone
from wwm.search.report import best_so_far

pytestmark = pytest.mark.slow

STEPS = 30          # the best society answers every step: the best score is 30 (on each seed)
MARGIN = 0.9        # "found": a society scoring at least 90% of the best
BUDGET = 80


async def run(doc: dict[str, Any], **settings: Any):
    return await search(build(doc, "test space"), SearchSettings(**settings))


def trials_to_margin(curve: list[float]) -> int | None:
    return next((i + 1 for i, best in enumerate(curve) if best >= MARGIN * STEPS), None)


class Found(Exception):
    """A search stopped at its first trial within the margin: the rest of its budget could not
    undo what it found."""


async def test_cmaes_finds_a_society_within_ten_percent_of_the_best_in_eighty_trials_on_three_seeds():
    """Whether it beats random search is a statistical claim, measured over many seeds in
    benchmarks/search.py (both curves, printed and plotted); here: it finds, on each seed, and
    each search stops there. The three searches run side by side (each one trial at a time, so
    each is the same every time: the servers give every run its own copy), over the bed hosted
    in this process."""
    async with hosted_signal_bed() as signal_bed:
        await three_searches_find(signal_bed)


async def three_searches_find(signal_bed: dict[str, str]) -> None:
    doc = space_of(signal_bed, seeds=[0, 1], run={"steps": STEPS, "timeout": 10.0})
    space = build(doc, "test space")

    def stop_when_found(done: TrialDone) -> None:
        if done.values and done.values[0] >= MARGIN * STEPS:
            raise Found

    async def one(seed: int):
        searching = Search(space, SearchSettings(trials=BUDGET, sampler="cmaes", seed=seed, parallel=1),
                           on_trial=stop_when_found)
        try:
            await searching.run()      # (ends at the budget, having found nothing)
        except Found:
            pass
        return searching.study

    studies = await asyncio.gather(*(one(seed) for seed in (0, 1, 2)))
    for seed, study in zip((0, 1, 2), studies, strict=True):
        curve = best_so_far(study)
        assert len(curve) <= BUDGET and trials_to_margin(curve) is not None, (seed, curve)
        best = max((t for t in study.trials if t.values), key=lambda t: t.values[0])
        society = best.user_attrs["society"]
        members = {m["url"] for m in society["mind"]["args"]["minds"]}
        assert {signal_bed["ab"], signal_bed["cd"]} <= members     # both specialists are in
        assert society["mind"]["url"] == signal_bed["as"] and society["world"]["url"] == signal_bed["world"]


async def test_a_dead_member_is_a_failed_trial_with_its_reason_and_the_search_goes_on():
    async with hosted_signal_bed() as signal_bed:
        doc = space_of(signal_bed, minds={"ab": {"url": signal_bed["ab"]}, "cd": {"url": signal_bed["cd"]},
                                          "gone": {"url": "http://127.0.0.1:9/"}},  # (a socket: refused)
                       choose={"members": {"min": 1}}, run={"steps": 5, "timeout": 2.0, "start_wait": 0.0})
        outcome = await run(doc, trials=8, sampler="random", seed=3, parallel=2, prune=False)
    states = {t.number: (t.state.name, t.user_attrs.get("reason", "")) for t in outcome.study.trials}
    with_gone = [t for t in outcome.study.trials if t.params.get("use.gone") == 1
                 and t.state.name != "PRUNED"]
    assert with_gone, states
    for t in with_gone:
        assert t.state.name == "FAIL" and "127.0.0.1:9" in t.user_attrs["reason"], states
    assert any(t.state.name == "COMPLETE" for t in outcome.study.trials), states
    assert len(outcome.study.trials) == 8


async def test_poor_candidates_are_pruned_before_the_end_of_their_run():
    # one saboteur of five: with more, most trials sit on the same floor, and a trial equal to
    # the median is not below it
    async with hosted_signal_bed() as signal_bed:
        doc = space_of(signal_bed, run={"steps": 60, "timeout": 10.0},
                       minds={name: {"url": signal_bed[name]} for name in ("ab", "cd", "g1", "g2", "s1")})
        outcome = await run(doc, trials=24, sampler="random", seed=5, parallel=2, check_every=10)
    pruned = [t for t in outcome.study.trials if t.state.name == "PRUNED" and t.intermediate_values]
    assert pruned, [(t.state.name, t.values, t.intermediate_values) for t in outcome.study.trials]
    for t in pruned:  # stopped at a look before the last step, below the median there
        assert max(t.intermediate_values) < 60
    complete = [t for t in outcome.study.trials if t.state.name == "COMPLETE"]
    assert complete and max(t.values[0] for t in complete) > max(
        t.intermediate_values[max(t.intermediate_values)] for t in pruned)
