"""Evaluating one proposed society: a run per seed, through the client algorithm of section 8,
scored by the World (its score at End run, else the sum of its step scores).

A run that does not end well (a member or the AS down, a time-out that ends the run, a World
that refuses) makes the evaluation *failed*, with the reason the runner gave: a search goes
on, and the reason is kept with the trial. ``check`` is asked every ``check_every`` steps
with the score so far (summed over the seeds run so far, so every candidate is compared at
the same step of the same seeds) and may stop the evaluation early: pruning.
"""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client.runner import Runner
from ..client.society import SocietyError, parse
from ..protocol.errors import Refusal
from ..protocol.records import RunResult, Step

GOOD = ("completed", "ended by world")
Check = Callable[[int, float], bool]     # (steps so far over all seeds, score so far) -> stop?


@dataclass
class Evaluation:
    scores: list[float] = field(default_factory=list)   # one per seed run to the end
    status: str = "completed"                           # "completed", "pruned" or "failed"
    error: str = ""
    steps: int = 0                                      # steps run, over all seeds
    seconds: float = 0.0
    results: list[RunResult] = field(default_factory=list)

    @property
    def score(self) -> float:
        return statistics.fmean(self.scores) if self.scores else float("nan")

    @property
    def sd(self) -> float:
        return statistics.stdev(self.scores) if len(self.scores) > 1 else 0.0


def world_score(result: RunResult) -> float:
    """What the World said the run scored: its End run score, else its step scores summed."""
    return result.world_score if result.world_score is not None else result.total_score


def _reason(result: RunResult) -> str:
    ended = [e.text for e in result.events if e.kind in ("run-ended", "mind-error", "timeout")]
    return f"{result.status}: {ended[-1]}" if ended else result.status


def with_seed(document: dict[str, Any], seed: int | None, seed_arg: str,
              world: dict[str, Any] | None = None) -> dict[str, Any]:
    """The document with its World (``world``, one of a battery) given ``seed``."""
    if seed is None and world is None:
        return document
    doc = copy.deepcopy(document)
    if world is not None:
        doc["world"] = copy.deepcopy(world)
    if seed is not None:
        doc["world"].setdefault("args", {})[seed_arg] = seed
    return doc


async def evaluate(document: dict[str, Any], seeds: list[int | None], seed_arg: str = "seed",
                   check: Check | None = None, check_every: int = 10,
                   recorder_for: Callable[[int | None], Any] | None = None,
                   worlds: list[dict[str, Any]] | None = None) -> Evaluation:
    """Run the society ``document`` once per seed (in each World of ``worlds``, a battery,
    when given: the score is the mean over every World and seed); ``recorder_for(seed)`` may
    give each run a :class:`wwm.client.runner.Recorder` (such as a run store's)."""
    out = Evaluation()
    started = time.monotonic()
    done_score = 0.0
    try:
        places: list[dict[str, Any] | None] = list(worlds) if worlds else [None]
        for place, seed in [(w, s) for w in places for s in seeds]:
            try:
                society = parse(with_seed(document, seed, seed_arg, place))
                mind, world = society.build()
            except SocietyError as exc:
                out.status, out.error = "failed", str(exc)
                break
            runner = Runner(mind, world, society.settings(), recorder=recorder_for(seed) if recorder_for else None)
            base_steps, base_score = out.steps, done_score

            def on_step(step: Step, result: RunResult, runner: Runner = runner, base_steps: int = base_steps,
                        base_score: float = base_score) -> None:
                n = step.index + 1
                if check is not None and n % check_every == 0 and check(base_steps + n,
                                                                       base_score + result.total_score):
                    runner.stop()

            runner.on_step = on_step
            try:
                result = await runner.run()
            except Refusal as exc:  # New run refused: a member down, a bad argument
                out.status, out.error = "failed", f"New run refused: {exc.code}: {exc.text}"
                break
            out.results.append(result)
            out.steps += len(result.steps)
            if result.status == "stopped":
                out.status = "pruned"
                break
            if result.status not in GOOD:
                out.status, out.error = "failed", _reason(result)
                break
            score = world_score(result)
            out.scores.append(score)
            done_score += score
    finally:
        out.seconds = time.monotonic() - started
    return out
