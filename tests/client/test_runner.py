"""The client algorithm of section 8.2 on local objects: steps, scores, time-out policies,
"Cannot suggest action", a world that ends the run, a world that is down for a while."""

from __future__ import annotations

import asyncio
import time

from wwm import Mind, Outcome, Refusal, Suggestion, World
from wwm.client.runner import RunSettings, run


class Line(World):
    """Position on a line; "+1" scores 1. Counts how often its state is asked for."""

    def __init__(self, end: int | None = None, down_between: tuple[int, int] | None = None) -> None:
        self.pos = 0
        self.end = end
        self.state_queries = 0
        self.executed: list[str] = []
        self.down_between = down_between
        self.calls = 0

    def _maybe_down(self) -> None:
        self.calls += 1
        if self.down_between and self.down_between[0] <= self.calls < self.down_between[1]:
            raise Refusal("unreachable", "the world is down")

    async def get_state(self) -> str:
        self._maybe_down()
        self.state_queries += 1
        return str(self.pos)

    async def no_operation(self) -> None:
        self._maybe_down()

    async def execute_action(self, action: str) -> Outcome:
        self._maybe_down()
        self.executed.append(action)
        self.pos += int(action)
        self._score += 1.0
        return Outcome(str(self.pos), 1.0, finished=self.end is not None and self.pos >= self.end)


class Stepper(Mind):
    """Suggests "+1"; on the steps listed in ``slow`` it answers after ``delay`` seconds,
    suggesting "+100" (an action that must never be executed if it comes late)."""

    def __init__(self, slow: set[int] = frozenset(), delay: float = 0.5, cannot: set[int] = frozenset()) -> None:
        self.asked = 0
        self.slow, self.delay, self.cannot = slow, delay, cannot
        self.informed: list[tuple[str, float | None]] = []

    async def get_action(self, state: str) -> Suggestion:
        n = self.asked
        self.asked += 1
        if n in self.cannot:
            return Suggestion.cannot("not now")
        if n in self.slow:
            await asyncio.sleep(self.delay)
            return Suggestion("+100")
        return Suggestion("+1", q=1.0)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.informed.append((state, score))
        return score


async def test_plain_run_scores_every_step():
    world, mind = Line(), Stepper()
    result = await run(mind, world, RunSettings(steps=10, keepalive=None))
    assert result.status == "completed"
    assert [s.action for s in result.steps] == ["+1"] * 10
    assert result.total_score == 10.0 and result.world_score == 10.0
    assert mind.informed[-1] == ("10", 1.0)
    assert [s.state for s in result.steps[:3]] == ["0", "1", "2"] and result.steps[2].new_state == "3"


async def test_requery_policy_aborts_and_asks_the_world_again():
    world, mind = Line(), Stepper(slow={2}, delay=1.0)
    result = await run(mind, world, RunSettings(steps=5, timeout=0.1, policy="requery", keepalive=None))
    assert result.status == "completed"
    kinds = [e.kind for e in result.events]
    assert kinds == ["timeout", "abort-requery"]
    assert "+100" not in world.executed and world.executed == ["+1"] * 5
    assert world.state_queries == 2          # once at the start, once after the time-out
    assert mind.asked == 6


async def test_ignore_late_policy_waits_for_the_reply_and_ignores_it():
    world, mind = Line(), Stepper(slow={1}, delay=0.4)
    result = await run(mind, world, RunSettings(steps=4, timeout=0.1, policy="ignore-late", keepalive=None))
    assert result.status == "completed"
    assert [e.kind for e in result.events] == ["timeout", "late-reply-ignored"]
    assert "+100" not in world.executed and len(world.executed) == 4
    assert world.state_queries == 2


async def test_cannot_suggest_is_not_do_nothing():
    world, mind = Line(), Stepper(cannot={1, 2})
    result = await run(mind, world, RunSettings(steps=5, keepalive=None))
    assert [s.action for s in result.steps] == ["+1", None, None, "+1", "+1"]
    assert world.executed == ["+1"] * 3        # nothing was executed for those steps
    assert result.steps[1].note == "not now"


async def test_world_ends_the_run():
    result = await run(Stepper(), Line(end=3), RunSettings(steps=100, keepalive=None))
    assert result.status == "ended by world" and len(result.steps) == 3


async def test_world_down_is_waited_out_and_the_mind_asked_afresh():
    world, mind = Line(down_between=(4, 8)), Stepper()
    result = await run(mind, world, RunSettings(steps=5, retry_pause=0.01, keepalive=None))
    assert result.status == "completed" and len(result.steps) == 5
    kinds = [e.kind for e in result.events]
    assert "world-down" in kinds and kinds[-1] == "world-back"
    assert world.executed == ["+1"] * 5         # the unexecuted action was not replayed blindly
    assert mind.asked == 6                      # the mind was asked again after the outage


async def test_world_down_for_too_long_ends_the_run_cleanly():
    world = Line(down_between=(3, 10_000))
    result = await run(Stepper(), world, RunSettings(steps=5, retry_pause=0.01, world_wait=0.2, keepalive=None))
    assert result.status == "world lost" and len(result.steps) == 1


async def test_silent_mind_ends_the_run_as_mind_lost():
    mind = Stepper(slow=set(range(1, 100)), delay=5)
    result = await run(mind, Line(), RunSettings(steps=5, timeout=0.05, mind_wait=0.3, keepalive=None))
    assert result.status == "mind lost" and len(result.steps) == 1


async def test_keepalive_sends_no_operation_while_waiting():
    class CountingLine(Line):
        noops = 0

        async def no_operation(self) -> None:
            CountingLine.noops += 1

    world = CountingLine()
    mind = Stepper(slow={1}, delay=0.5)
    await run(mind, world, RunSettings(steps=3, timeout=1.0, keepalive=0.1))
    assert CountingLine.noops >= 2



class MuteState(World):
    """Answers No operation at once, never Get state in time: up, yet of no use."""

    async def get_state(self) -> str:
        await asyncio.sleep(30)
        return "never"

    async def execute_action(self, action: str) -> Outcome:
        return Outcome("n=1", 1.0)


async def test_a_world_that_only_answers_no_operation_is_lost_after_world_wait():
    """world_wait counts from the World's first failure: answering No operation between
    failed Get states does not keep the run waiting forever."""
    import time

    settings = RunSettings(steps=10, timeout=0.2, world_wait=1.5, retry_pause=0.05, keepalive=None)
    started = time.monotonic()
    result = await asyncio.wait_for(run(Stepper(), MuteState(), settings), 20)
    assert time.monotonic() - started < 10
    assert result.status == "world lost" and not result.steps
    assert "down for more than 1.5 s" in result.events[-1].text
    assert [e.kind for e in result.events].count("world-back") >= 2   # it did come back, uselessly


class Failing(Stepper):
    """Answers Get action as a server whose mind raised does: a ``server-error`` refusal,
    on the asks listed in ``failing`` (every ask by default)."""

    def __init__(self, failing: set[int] | None = None) -> None:
        super().__init__()
        self.failing = failing

    async def get_action(self, state: str) -> Suggestion:
        if self.failing is None or self.asked in self.failing:
            self.asked += 1
            raise Refusal("server-error", "Food.get_action failed: KeyError: 'food'")
        return await super().get_action(state)


async def test_a_mind_that_answers_with_an_error_ends_the_run_at_once_saying_why():
    """It used to be retried with back-off until mind_wait (30 s), then "mind lost"."""
    seen = []
    started = time.perf_counter()
    result = await run(Failing(), Line(), RunSettings(steps=5, keepalive=None),
                       on_event=lambda event, result: seen.append((event.kind, result.status)))
    assert time.perf_counter() - started < 1.0
    assert result.status == "mind failed" and result.steps == []
    assert [e.kind for e in result.events] == ["mind-error"] * 3 + ["run-ended"]
    assert seen == [("mind-error", "running")] * 3 + [("run-ended", "mind failed")]   # told as it happened
    assert "KeyError: 'food'" in result.events[0].text and "mind_errors" in result.events[0].text
    assert result.events[-1].text == ("the mind failed 3 times in a row answering Get action: "
                                      "server-error: Food.get_action failed: KeyError: 'food'")


async def test_a_mind_that_fails_now_and_then_keeps_its_run():
    world, mind = Line(), Failing(failing={1, 2, 4})
    result = await run(mind, world, RunSettings(steps=5, keepalive=None))
    assert result.status == "completed" and world.executed == ["+1"] * 5
    assert [e.kind for e in result.events] == ["mind-error"] * 3
    one = await run(Failing(failing={0}), Line(), RunSettings(steps=5, keepalive=None, mind_errors=1))
    assert one.status == "mind failed" and "failed answering Get action: server-error" in one.events[-1].text


async def test_a_time_out_names_the_query_the_time_out_and_the_setting():
    result = await run(Stepper(slow=set(range(1, 100)), delay=5), Line(),
                       RunSettings(steps=3, timeout=0.05, mind_wait=0.2, keepalive=None))
    timeout = next(e.text for e in result.events if e.kind == "timeout")
    assert "Get action" in timeout and "0.05 s" in timeout and "--timeout" in timeout
    ended = result.events[-1].text
    assert "has not answered for 0.2 s" in ended and "mind_wait" in ended and "0.05 s time-out" in ended


class Buggy(Mind):
    """A local mind whose own code raises, as a server's would answer server-error for."""

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion({"1": "+1"}[state])


class BrokenLine(Line):
    async def execute_action(self, action: str) -> Outcome:
        raise ZeroDivisionError("division by zero")


async def test_local_objects_that_raise_end_the_run_as_servers_that_fail_do():
    """A Mind or World object in the client's own process (a society's ``class:``) used to
    end the run in a traceback; now it reads as a server's server-error."""
    result = await run(Buggy(), Line(), RunSettings(steps=5, keepalive=None))
    assert result.status == "mind failed"
    assert result.events[-1].text.endswith("server-error: Buggy.get_action failed: KeyError: '0'")
    result = await run(Stepper(), BrokenLine(), RunSettings(steps=5, keepalive=None))
    assert result.status == "world lost" and result.steps == []
    assert result.events[-1].text == ("the world failed on Execute action: BrokenLine.execute_action "
                                      "failed: ZeroDivisionError: division by zero")
