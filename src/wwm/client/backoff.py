"""Pauses between tries that double up to a cap: the one retry rhythm of the client (a server
that is down, a world waited out, a server not yet listening)."""

from __future__ import annotations

import asyncio


class Backoff:
    """``first``, then twice that, and so on, never more than ``cap`` seconds (a first pause
    longer than the cap is the cap)."""

    __slots__ = ("pause", "cap")

    def __init__(self, first: float, cap: float) -> None:
        self.pause = min(max(first, 0.0), cap)
        self.cap = cap

    def next(self) -> float:
        """The pause to take now; the one after it is twice as long (at most the cap)."""
        pause, self.pause = self.pause, min(self.pause * 2, self.cap)
        return pause

    async def sleep(self) -> None:
        """Take the next pause."""
        await asyncio.sleep(self.next())
