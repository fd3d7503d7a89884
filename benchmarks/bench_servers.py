"""Minimal servers for the benchmarks: the cost measured is the protocol's, not the world's."""

from __future__ import annotations

from wwm import Mind, Outcome, Suggestion, World


class CounterWorld(World):
    """State "n=<count>"; every action adds one and scores one."""

    def __init__(self) -> None:
        self.n = 0

    async def get_state(self) -> str:
        return f"n={self.n}"

    async def execute_action(self, action: str) -> Outcome:
        self.n += 1
        return Outcome(f"n={self.n}", 1.0)


class ConstantMind(Mind):
    """Always suggests "go"."""

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion("go")

    async def inform(self, state: str, score: float | None = None) -> float | None:
        return None
