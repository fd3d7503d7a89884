"""A world for Meta(A) tests: it shows a word and scores 1 when the action repeats it.
Served with ``wwm serve echo_world:EchoWorld`` (the tests put this folder on PYTHONPATH)."""

from __future__ import annotations

from wwm import Outcome, World

WORDS = ("hi", "ok!", "W-W-M")


class EchoWorld(World):
    state_format = "a word"
    action_format = "the same word"

    def __init__(self, rounds: int = 3) -> None:
        self.rounds = rounds
        self.turn = 0

    async def get_state(self) -> str:
        return WORDS[self.turn % len(WORDS)]

    async def execute_action(self, action: str) -> Outcome:
        scored = 1.0 if action == await self.get_state() else 0.0
        self._score += scored
        self.turn += 1
        return Outcome(await self.get_state(), scored, finished=self.turn >= self.rounds)
