"""A first World, and a Mind for it: a corridor with a coin on one cell.

    wwm serve examples/getting-started/corridor.py:Corridor --port 8003
    wwm serve examples/getting-started/corridor.py:CoinSeeker --port 8004
"""

import random

from wwm import Mind, Outcome, Refusal, Suggestion, World

MOVES = {"left": -1, "right": 1, "stay": 0}


class Corridor(World):
    """A corridor of `length` cells. Reaching the coin scores +1, and the coin
    reappears on another cell; the run ends after `steps` actions. Every client
    gets its own copy, with the same coins for the same `seed`."""

    state_format = "position=P coin=C length=N  (cells 0..N-1)"
    action_format = "left | right | stay"

    def __init__(self, length: int = 10, steps: int = 50, seed: int = 0) -> None:
        if length < 2 or steps < 1:
            raise ValueError("length must be at least 2 and steps at least 1")
        self.length, self.steps = length, steps
        self.rng = random.Random(seed)
        self.position, self.taken, self.score = 0, 0, 0.0
        self.coin = self.rng.randrange(1, length)

    async def get_state(self) -> str:
        return f"position={self.position} coin={self.coin} length={self.length}"

    async def execute_action(self, action: str) -> Outcome:
        move = MOVES.get(action.strip())
        if move is None:
            raise Refusal("bad-parameters",
                          f"unknown action {action!r}: use left, right or stay")
        if self.taken >= self.steps:
            raise Refusal("run-ended", f"the run ended after {self.steps} steps")
        self.position = min(max(self.position + move, 0), self.length - 1)
        self.taken += 1
        points = 0.0
        if self.position == self.coin:
            points = 1.0
            others = [c for c in range(self.length) if c != self.position]
            self.coin = self.rng.choice(others)
        self.score += points
        return Outcome(await self.get_state(), points,
                       finished=self.taken >= self.steps)

    async def get_current_score(self) -> float:
        return self.score


class CoinSeeker(Mind):
    """Walks toward the coin."""

    state_format = Corridor.state_format
    action_format = Corridor.action_format

    async def get_action(self, state: str) -> Suggestion:
        items = dict(item.split("=", 1) for item in state.split())
        position, coin = int(items["position"]), int(items["coin"])
        if coin == position:
            return Suggestion("stay")
        return Suggestion("right" if coin > position else "left")
