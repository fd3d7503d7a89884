"""A World: a line of cells with a coin at the far end; "right" moves on, reaching the coin
scores 1 and puts the body back at the start."""

from wwm import Outcome, World


class CoinLine(World):
    """A line of ``length`` cells with a coin at the far end."""

    state_format = "position=P length=L"
    action_format = "left | right"

    def __init__(self, length: int = 4) -> None:
        self.length, self.position = length, 0

    async def get_state(self) -> str:
        return f"position={self.position} length={self.length}"

    async def execute_action(self, action: str) -> Outcome:
        self.position = max(0, self.position + (1 if action.strip() == "right" else -1))
        score = 0.0
        if self.position == self.length - 1:
            self.position, score = 0, 1.0
        self._score += score
        return Outcome(await self.get_state(), score)
