"""The search: Optuna's samplers propose societies, wwm runs them, Optuna learns from the
scores.

One ``wwm search`` process is a *worker*: it keeps ``parallel`` evaluations under way (each a
run per seed, over the network) through Optuna's ask-and-tell interface. Several workers on
several machines share one study through Optuna's RDB storage (a PostgreSQL URL, or SQLite
on one machine): the budget of trials is the study's, not a worker's. Each running trial
beats a heartbeat in the storage; a worker killed mid-trial stops beating, and the next
worker to ask for a trial marks that one failed (Optuna's stale-trial check), so a killed
worker loses its running trial and nothing else.

Samplers: ``tpe`` (multivariate, with a constant liar so that parallel trials spread out),
``cmaes`` (CMA-ES over the numeric box; the method falls back to independent sampling),
``nsga2`` (evolutionary, for the two objectives score and servers), ``random`` (the baseline
every search must beat). A trial that chose too few or too many members ends *pruned* at once
(no run is made); a run that fails ends the trial *failed* with the reason kept.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import optuna
from optuna.trial import FrozenTrial, TrialState

from .candidates import Proposal, TooFewMembers, propose
from .evaluation import Evaluation, evaluate
from .report import OVER_BUDGET
from .space import Space

SAMPLERS = ("tpe", "cmaes", "nsga2", "random")
HEARTBEAT_SECONDS = 2
GRACE_SECONDS = 8
optuna.logging.set_verbosity(optuna.logging.WARNING)


class SearchError(ValueError):
    """Settings a search cannot run with, or a storage it cannot use."""


@dataclass
class SearchSettings:
    trials: int = 50                 # the study's budget, shared by all its workers
    sampler: str = "tpe"
    seed: int | None = None          # the sampler's seed (a worker adds its own number)
    parallel: int = 2                # evaluations under way at once in this worker
    storage: str | None = None       # an RDB URL (sqlite:///..., postgresql://...): shared by workers
    study: str | None = None         # the study's name in the storage (default: the space's name)
    prune: bool = True               # stop poor candidates early (single objective only)
    check_every: int = 10            # steps between two looks at a running candidate
    worker: int = 0                  # this worker's number, for its sampler's seed

    def check(self) -> None:
        if self.sampler not in SAMPLERS:
            raise SearchError(f"unknown sampler {self.sampler!r}; choose one of {', '.join(SAMPLERS)}")
        if self.trials < 1 or self.parallel < 1 or self.check_every < 1:
            raise SearchError("trials, parallel and check_every must each be at least 1")


@dataclass
class TrialDone:
    """What one finished trial came to, as the worker that ran it saw it."""

    number: int
    state: str                        # "complete", "pruned", "failed"
    proposal: Proposal | None
    evaluation: Evaluation | None
    values: list[float] | None
    reason: str = ""


@dataclass
class Outcome:
    """A search's end: the study (every trial of every worker) and this worker's trials."""

    study: optuna.Study
    space: Space
    mine: list[TrialDone] = field(default_factory=list)

    @property
    def best(self) -> list[FrozenTrial]:
        """The best trial (single objective) or the Pareto front (score, servers)."""
        done = [t for t in self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
        if not done:
            return []
        return list(self.study.best_trials) if self.space.multi_objective else [self.study.best_trial]


def sampler_of(settings: SearchSettings, space: Space) -> optuna.samplers.BaseSampler:
    seed = None if settings.seed is None else settings.seed * 1000 + settings.worker
    if settings.sampler == "tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True,
                                          n_startup_trials=min(10, max(2, settings.trials // 5)))
    if settings.sampler == "cmaes":
        warnings.filterwarnings("ignore", message=".*consider_pruned_trials.*")
        # popsize 16 (the default here is 12): fewer trials to reach the best on the Signal
        # World's space, 14.6 against 17.3 on average over 12 seeds (benchmarks/search.py)
        # consider_pruned_trials: a pruned candidate still tells CMA-ES where not to look
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False, popsize=16,
                                            consider_pruned_trials=True,
                                            n_startup_trials=min(10, max(2, settings.trials // 5)))
    if settings.sampler == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=max(4, min(20, settings.trials // 4)))
    return optuna.samplers.RandomSampler(seed=seed)


CREATE_ATTEMPTS = 8   # tries at opening a study storage whose tables another worker is creating


def _created_meanwhile(exc: Exception) -> bool:
    """Whether ``exc`` is a CREATE that lost a race with another process creating the same
    table, type or version row (PostgreSQL: a unique violation on the catalogue or "already
    exists"; SQLite: "already exists")."""
    from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

    return isinstance(exc, IntegrityError) or (
        isinstance(exc, (ProgrammingError, OperationalError)) and "already exists" in str(exc))


def storage_of(url: str | None) -> optuna.storages.BaseStorage | None:
    if url is None:
        return None
    for attempt in range(CREATE_ATTEMPTS):
        try:
            storage = optuna.storages.RDBStorage(url, heartbeat_interval=HEARTBEAT_SECONDS,
                                                 grace_period=GRACE_SECONDS, engine_kwargs={"pool_pre_ping": True})
            break
        except Exception as exc:  # a bad URL, an unreachable server, a missing driver
            # Workers started together on an empty database each create Optuna's tables: the
            # losers' CREATEs fail on what the winner just made. Those tables are there now.
            if _created_meanwhile(exc) and attempt < CREATE_ATTEMPTS - 1:
                time.sleep(0.05 * (attempt + 1) + random.random() * 0.05)
                continue
            raise SearchError(f"cannot use the study storage {url}: {type(exc).__name__}: {exc}") from None
    if storage.engine.dialect.name == "sqlite":
        # Optuna writes each parameter and attribute in a transaction of its own: with SQLite's
        # default (a journal file synced at every commit) that is most of a trial's time.
        # WAL with synchronous=NORMAL stays safe against a killed process, as the run store's.
        from sqlalchemy import event

        from ..store.engine import _sqlite_pragmas

        event.listen(storage.engine, "connect", _sqlite_pragmas)
        storage.engine.dispose()   # connections made before the listener go
    return storage


def open_study(space: Space, settings: SearchSettings) -> optuna.Study:
    settings.check()
    directions: list[Literal["minimize", "maximize"]] = (["maximize", "minimize"] if space.multi_objective
                                                         else ["maximize"])
    pruner: optuna.pruners.BasePruner = optuna.pruners.NopPruner()
    if settings.prune and not space.multi_objective:
        steps = space.base.run.steps or 100
        # a look every check_every steps (the evaluation reports only then), none in the first
        # half of the first seed's run, and none before ten trials have set the median
        pruner = optuna.pruners.MedianPruner(n_startup_trials=10, n_warmup_steps=max(1, steps // 2), interval_steps=1)
    name = settings.study or space.name
    study = optuna.create_study(storage=storage_of(settings.storage), study_name=name, directions=directions,
                                sampler=sampler_of(settings, space), pruner=pruner, load_if_exists=True)
    kept = study.user_attrs.get("space")
    here = json.loads(json.dumps(space.as_dict()))
    if kept is None:
        study.set_user_attr("space", here)
    elif kept != here:
        raise SearchError(f"the study {name!r} in {settings.storage} searches another space; "
                          "give another --study name, or the same space document")
    return study


def _spends_budget(trial: FrozenTrial) -> bool:
    """Every trial asked spends the budget, but one failed for a dead worker (no reason of ours)
    and one dropped for being asked past the budget."""
    return not (trial.state == TrialState.FAIL and trial.user_attrs.get("reason") is None)


def _finished(study: optuna.Study) -> int:
    return sum(1 for t in study.get_trials(deepcopy=False) if _spends_budget(t))


class Search:
    """One worker of a search. ``on_trial`` hears of each trial this worker finishes."""

    def __init__(self, space: Space, settings: SearchSettings,
                 on_trial: Callable[[TrialDone], None] | None = None,
                 recorder_for: Callable[[Proposal, int | None], Any] | None = None) -> None:
        self.space = space
        self.settings = settings
        self.on_trial = on_trial
        self.recorder_for = recorder_for
        self.study = open_study(space, settings)
        self.mine: list[TrialDone] = []
        self._running: set[int] = set()
        self._budget = asyncio.Lock()
        self._waiting_since: float | None = None

    async def run(self) -> Outcome:
        beat = asyncio.create_task(self._heartbeat())
        try:
            await asyncio.gather(*(self._worker() for _ in range(self.settings.parallel)))
        finally:
            beat.cancel()
        return Outcome(self.study, self.space, self.mine)

    async def _ask(self) -> optuna.Trial | None | Literal["wait"]:
        # Optuna's calls stay on this thread: a study caches its trials per thread, and a
        # sampler asked from another thread would model a stale (empty) history.
        async with self._budget:   # one ask at a time in this worker: the count and the ask agree
            return self._ask_now()

    def _ask_now(self) -> optuna.Trial | None | Literal["wait"]:
        with warnings.catch_warnings():  # "experimental" since Optuna 2.9, and what optimize() calls
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            optuna.storages.fail_stale_trials(self.study)
        # a trial whose worker died (failed by the stale check, no reason of ours) is not counted
        if _finished(self.study) >= self.settings.trials:
            # Budget spent, but another worker's trial may still be running: if that worker
            # has died, its trial goes stale and frees a trial of the budget, run here.
            # (A trial with no heartbeat at all is never found stale: wait a bounded time.)
            running = self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
            if not any(t._trial_id not in self._running for t in running):
                return None
            self._waiting_since = self._waiting_since or time.monotonic()
            return "wait" if time.monotonic() - self._waiting_since < 3 * GRACE_SECONDS else None
        self._waiting_since = None
        trial = self.study.ask()
        # Workers count, then ask, each on its own: two that both counted the last free trial
        # both get one. The trial numbers order the asks, so the later one drops its trial.
        earlier = sum(1 for t in self.study.get_trials(deepcopy=False)
                      if t.number < trial.number and _spends_budget(t))
        if earlier >= self.settings.trials:
            trial.set_user_attr(OVER_BUDGET, True)
            self.study.tell(trial, state=TrialState.FAIL)
            return "wait"   # the budget is spent, but a running trial may yet go stale
        beat = getattr(self.study._storage, "record_heartbeat", None)
        if beat is not None and getattr(self.study._storage, "get_heartbeat_interval", lambda: None)():
            beat(trial._trial_id)  # at once: a worker killed before its first beat is found stale too
        return trial

    async def _worker(self) -> None:
        while (trial := await self._ask()) is not None:
            if isinstance(trial, str):  # "wait"
                await asyncio.sleep(HEARTBEAT_SECONDS / 2)
                continue
            self._running.add(trial._trial_id)
            try:
                done = await self._one(trial)
            finally:
                self._running.discard(trial._trial_id)
            self.mine.append(done)
            if self.on_trial:
                self.on_trial(done)

    async def _one(self, trial: optuna.Trial) -> TrialDone:
        number = trial.number
        trial.set_user_attr("worker", self.settings.worker)
        try:
            proposal = propose(trial, self.space)
        except TooFewMembers as exc:
            trial.set_user_attr("reason", str(exc))
            self.study.tell(trial, state=TrialState.PRUNED)
            return TrialDone(number, "pruned", None, None, None, str(exc))
        trial.set_user_attr("society", proposal.document)
        trial.set_user_attr("members", proposal.members)
        check = None
        if self.settings.prune and not self.space.multi_objective:
            def check(step: int, score: float) -> bool:
                trial.report(score, step)
                return trial.should_prune()

        recorder_for = None
        if self.recorder_for is not None:
            def recorder_for(seed: int | None) -> Any:
                assert self.recorder_for is not None
                return self.recorder_for(proposal, seed)

        evaluation = await evaluate(proposal.document, self.space.seeds, self.space.seed_arg, check,
                                    self.settings.check_every, recorder_for, self.space.worlds or None)
        trial.set_user_attr("scores", evaluation.scores)
        trial.set_user_attr("seconds", round(evaluation.seconds, 3))
        trial.set_user_attr("servers", proposal.servers)
        if evaluation.status == "pruned":
            trial.set_user_attr("reason", "pruned: below the median at the same step")
            self.study.tell(trial, state=TrialState.PRUNED)
            return TrialDone(number, "pruned", proposal, evaluation, None, "pruned")
        if evaluation.status == "failed" or not all(math.isfinite(s) for s in evaluation.scores):
            reason = evaluation.error or "the World gave no finite score"
            trial.set_user_attr("reason", reason)
            self.study.tell(trial, state=TrialState.FAIL)
            return TrialDone(number, "failed", proposal, evaluation, None, reason)
        values = [evaluation.score] + ([float(proposal.servers)] if self.space.multi_objective else [])
        self.study.tell(trial, values)
        return TrialDone(number, "complete", proposal, evaluation, values)

    async def _heartbeat(self) -> None:
        """Beat for this worker's running trials (the storage's stale check fails the others)."""
        storage = self.study._storage
        interval = getattr(storage, "get_heartbeat_interval", lambda: None)()
        if interval is None:
            return
        while True:
            for trial_id in list(self._running):
                await asyncio.to_thread(storage.record_heartbeat, trial_id)  # type: ignore[attr-defined]
            await asyncio.sleep(interval)


async def search(space: Space, settings: SearchSettings, on_trial: Callable[[TrialDone], None] | None = None,
                 recorder_for: Callable[[Proposal, int | None], Any] | None = None) -> Outcome:
    return await Search(space, settings, on_trial, recorder_for).run()
