"""A Λ* mind for tests, served by ``wwm serve probe_mind:ProbeMind`` (this folder on
PYTHONPATH): it writes every state it is given to ``log`` (one JSON line each), marks with a
fixed r̂ before each move when ``rhat`` is set, and can misbehave on cue: sleep ``sleep``
seconds, or answer ``jump``, from iteration ``at`` of episode 1 on."""

from __future__ import annotations

import asyncio
import json

from wwm.lambdastar.minds import LambdaStarMind, read_state
from wwm.protocol.results import Suggestion


class ProbeMind(LambdaStarMind):
    def __init__(self, log: str = "", rhat: float | None = None, sleep: float = 0.0,
                 jump: bool = False, at: int = 0, seed: int = 0) -> None:
        super().__init__(seed)
        self.log, self.rhat, self.sleep, self.jump, self.at = log, rhat, sleep, jump, at

    async def get_action(self, state: str) -> Suggestion:
        doc = read_state(state)
        if self.log:
            with open(self.log, "a") as f:
                f.write(json.dumps(doc) + "\n")
        if doc.get("finished"):
            return Suggestion.cannot("the test is over")
        if self.at and (doc["episode"], doc["iteration"]) >= (1, self.at):
            if self.sleep:
                await asyncio.sleep(self.sleep)
            if self.jump:
                return Suggestion(action="jump")
        if self.rhat is not None and "marks" not in doc:
            return Suggestion(action=f"mark {self.rhat}")
        return Suggestion(action=str(int(self.rng.integers(1, 10))))
