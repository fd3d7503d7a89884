"""A small world and mind for the run-store tests, whose every recorded field is a known
function of the step index, so a test can check each row that came back from the database;
run as a script, it drives an endless recorded run and prints each step (the kill test)."""

from __future__ import annotations

import asyncio
import sys

from wwm import Mind, Outcome, Suggestion, World


def state(i: int) -> str:
    return f"x{i} ünï"


def score(i: int) -> float:
    return float(i % 3)


class Counter(World):
    """State "x<i> ..."; any action moves to i+1 and scores i % 3. Ends after ``last``
    steps (never when None); waits ``pause`` seconds per action."""

    def __init__(self, last: int | None = None, pause: float = 0.0) -> None:
        self.i = 0
        self.last = last
        self.pause = pause

    async def get_state(self) -> str:
        return state(self.i)

    async def execute_action(self, action: str) -> Outcome:
        if self.pause:
            await asyncio.sleep(self.pause)
        points = score(self.i)
        self.i += 1
        self._score += points
        return Outcome(state(self.i), points, finished=self.last is not None and self.i >= self.last)


class Echo(Mind):
    """Action "a<i>" for state "x<i>"; Q = i; the first time it sees a state in ``stuck`` it
    cannot suggest; it answers the first question in a ``slow_at`` state after ``slow`` s."""

    def __init__(self, stuck: tuple[int, ...] = (), slow_at: tuple[int, ...] = (), slow: float = 0.0) -> None:
        self.stuck = set(stuck)
        self.slow_at = set(slow_at)
        self.slow = slow
        self.asked: set[int] = set()

    async def get_action(self, x: str) -> Suggestion:
        i = int(x.split()[0][1:])
        if i in self.slow_at and i not in self.asked:
            self.asked.add(i)
            await asyncio.sleep(self.slow)
        if i in self.stuck:  # once: asked again in the same state, it answers
            self.stuck.discard(i)
            return Suggestion.cannot(f"stuck at {i}")
        return Suggestion(f"a{i}", q=float(i))

    async def inform(self, x: str, points: float | None = None) -> float | None:
        return (points or 0.0) * 10


async def _endless(url: str) -> None:
    from wwm.client.runner import Runner, RunSettings
    from wwm.store import RunStore, StoreRecorder

    store = RunStore(url)
    settings = RunSettings(steps=None, keepalive=None)
    recorder = StoreRecorder(store, mind_url="local:Echo", world_url="local:Counter",
                             society={"name": "endless"}, settings=settings)

    def shout(step, result) -> None:
        print(step.index, flush=True)

    await Runner(Echo(), Counter(pause=0.002), settings, recorder=recorder, on_step=shout).run()


if __name__ == "__main__":
    asyncio.run(_endless(sys.argv[1]))
