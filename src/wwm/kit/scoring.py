"""The score queries of a mind that keeps the World's score as it is told it: "Inform it
about state" adds the step's score; "Reset score", "Get current score" and "End run" read or
clear the sum (section 9.2)."""

from __future__ import annotations


class KeepsScore:
    """Mix in before :class:`wwm.Mind`; the class sets ``self.score = 0.0`` at start."""

    score: float = 0.0

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.score += score or 0.0
        return None

    async def reset_score(self) -> None:
        self.score = 0.0

    async def get_current_score(self, score: float | None = None) -> float | None:
        return self.score

    async def end_run(self, score: float | None = None) -> float | None:
        return self.score
