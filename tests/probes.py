"""Probe servers for the protocol tests: every answer is derived from what the query carried,
so a test can tell that each argument crossed the wire. Served with ``wwm serve probes:...``
(the tests put this folder on PYTHONPATH)."""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import time
from pathlib import Path

from wwm import Mind, Outcome, RunStarted, Suggestion, World
from wwm.server.process import ServerProcess

TESTS = Path(__file__).resolve().parent
PROBE_ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}


def probe_server(target: str, **kwargs) -> ServerProcess:
    """A ``wwm serve probes:<Class>`` process (not started)."""
    return ServerProcess(f"probes:{target}", env=PROBE_ENV, **kwargs)


class ProbeWorld(World):
    """A counter world: the state is "n=<count>"; an action "+k" adds k and scores k."""

    state_format = "n=<integer>"
    action_format = "+<integer> (add), or 'hang' (the server sleeps 30 s before answering)"

    def __init__(self, start: int = 0, label: str = "probe") -> None:
        self.start = start
        self.n = start
        self.label = label
        self.noops = 0

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        self.client_url = client_url
        return RunStarted()

    async def get_state(self) -> str:
        return f"n={self.n}"

    async def no_operation(self) -> None:
        self.noops += 1

    async def execute_action(self, action: str) -> Outcome:
        if action == "hang":
            await asyncio.sleep(30)
        k = int(action.lstrip("+"))
        self.n += k
        self._score += k
        return Outcome(f"n={self.n}", float(k), finished=self.n >= 1000)

    async def reset(self) -> None:
        self.n = self.start


class ProbeMind(Mind):
    """Echoes: Get action answers "echo:<state>" with Q = len(state), or "Cannot suggest
    action" when the state is "stuck"; a state "slow:<s>" makes it wait s seconds."""

    def __init__(self, timeout: float = 5.0, step: int = 1) -> None:
        self.timeout = timeout
        self.step = step
        self.informed: list[str] = []
        self.score = 0.0

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None) -> RunStarted:
        self.world_display_url = world_display_url
        self.world_run_id = world_run_id
        return RunStarted(display_url=f"urn:probe:{world_run_id or 'none'}:{world_display_url or 'none'}")

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        return state != "stuck"

    async def get_action(self, state: str, **step: str) -> Suggestion:
        if state == "stuck":
            return Suggestion.cannot("stuck state")
        if state.startswith("slow:"):
            await asyncio.sleep(float(state[5:]))
        if state.startswith("n="):
            return Suggestion(f"+{self.step}", q=float(self.step))
        extra = ",".join(f"{k}={v}" for k, v in sorted(step.items()))
        return Suggestion(f"echo:{state}" + (f"[{extra}]" if extra else ""), q=float(len(state)))

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.informed.append(state)
        self.score += score or 0.0
        return None if score is None else score * 2

    async def reset_score(self) -> None:
        self.score = 0.0

    async def get_current_score(self, score: float | None = None) -> float | None:
        return self.score if score is None else self.score + score

    async def end_run(self, score: float | None = None) -> float | None:
        return self.score


class SlowMind(Mind):
    """Answers Get action after ``delay`` seconds (for time-out tests)."""

    def __init__(self, delay: float = 1.0) -> None:
        self.delay = delay

    async def get_action(self, state: str) -> Suggestion:
        await asyncio.sleep(self.delay)
        return Suggestion("+1")


class FoodMind(Mind):
    """A mind with a bug, as a new user writes one: it reads the state as a mapping with a
    "food" entry that the probe world's states do not have (KeyError: 'food')."""

    async def get_action(self, state: str) -> Suggestion:
        entries = dict(part.split("=") for part in state.split())
        return Suggestion("+1" if entries["food"] else "+2")


class SharedCounter(World):
    """A shared world: every client joins one instance with its own body (its own counter)
    and its own view ("me=<mine> all=<total>")."""

    sharing = "shared"

    def __init__(self) -> None:
        self.bodies: dict[int, int] = {}

    async def join(self, client_url: str | None = None, **args) -> World:
        body = Body(self, len(self.bodies))
        self.bodies[body.index] = 0
        return body

    async def get_state(self) -> str:
        return f"total={sum(self.bodies.values())}"


class Body(World):
    def __init__(self, world: SharedCounter, index: int) -> None:
        self.world = world
        self.index = index

    async def get_state(self) -> str:
        return f"me={self.world.bodies[self.index]} all={sum(self.world.bodies.values())}"

    async def execute_action(self, action: str) -> Outcome:
        self.world.bodies[self.index] += int(action)
        return Outcome(await self.get_state(), float(action))


class Robot(World):
    """An exclusive world (one client at a time), freed after 1 s of silence."""

    sharing = "exclusive"
    lease_seconds = 1.0

    def __init__(self) -> None:
        self.moves = 0

    async def get_state(self) -> str:
        return f"moves={self.moves}"

    async def execute_action(self, action: str) -> Outcome:
        self.moves += 1
        return Outcome(f"moves={self.moves}")


class Clock(World):
    """An asynchronous world: time advances by itself ("t=<ticks>")."""

    clock = "asynchronous"
    tick_seconds = 0.02

    def __init__(self) -> None:
        self.ticks = 0
        self.created = time.monotonic()

    async def advance(self, seconds: float) -> None:
        self.ticks += 1

    async def get_state(self) -> str:
        return f"t={self.ticks}"

    async def execute_action(self, action: str) -> Outcome:
        return Outcome(await self.get_state())


class Relay(Mind):
    """A Mind_M that does whatever the mind at ``mind`` does (it calls it over the network)."""

    def __init__(self, mind: str) -> None:
        from wwm.client import connect_mind

        self.inner = connect_mind(mind)

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None) -> None:
        await self.inner.new_run(world_display_url=world_display_url)

    async def get_action(self, state: str) -> Suggestion:
        return await self.inner.get_action(state)

    async def end_run(self, score: float | None = None) -> float | None:
        result = await self.inner.end_run(score)
        await self.inner.aclose()
        return result


class OrderMind(Mind):
    """Checks that it hears of each state before it is asked about it: Get action about a
    state other than the last one Inform told it of answers "Cannot suggest action" naming
    both; End run returns how many Get actions came in order."""

    def __init__(self) -> None:
        self.told: str | None = None
        self.in_order = 0

    async def get_action(self, state: str) -> Suggestion:
        if self.told is not None and state != self.told:
            return Suggestion.cannot(f"asked about {state} after being told of {self.told}")
        self.in_order += 1
        return Suggestion("+1")

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.told = state
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        return float(self.in_order)


async def one_read_mind_server() -> asyncio.AbstractServer:
    """A mind server as a hasty programmer might write one in any language: one read per
    request, whatever else that read brought is dropped (so pipelined queries get lost)."""
    async def handle(reader, writer):
        while data := await reader.read(65536):
            head, _, body = data.partition(b"\r\n\r\n")
            try:
                query = json.loads(body.split(b"POST")[0] or b"{}")
                name = query.get("query")
            except ValueError:
                query, name = {}, None
            reply: dict = {"wwm": "1.0", "response": name or "?", "data": {}}
            if name is None or not head.startswith(b"POST"):
                reply["refusal"] = {"code": "malformed-message", "text": "not a JSON query"}
            elif name == "New run":
                reply["data"] = {"mind run ID": "r1"}
            elif name == "Get action":
                reply["data"] = {"action": "+1"}
            out = json.dumps(reply).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % len(out) + out)
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


class SlowOnceMind(Mind):
    """Answers Inform at once and Get action at once, except the first Get action about
    ``slow_state``, which waits ``delay`` seconds (a mind that is late once)."""

    def __init__(self, slow_state: str = "n=1", delay: float = 1.0) -> None:
        self.slow_state = slow_state
        self.delay = delay
        self.slowed = False

    async def get_action(self, state: str) -> Suggestion:
        if state == self.slow_state and not self.slowed:
            self.slowed = True
            await asyncio.sleep(self.delay)
        return Suggestion("+1")

    async def inform(self, state: str, score: float | None = None) -> float | None:
        return 7.0


HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


class HostileWorld(World):
    """A world whose every text is an attack on the page that shows it:
    <script>alert(1)</script>"><img src=x onerror=alert(2)>

    Its title, formats, arguments, state, details and picture carry the same string."""

    title = "Hostile " + HOSTILE
    state_format = "state " + HOSTILE
    action_format = "action " + HOSTILE

    def __init__(self, label: str = HOSTILE, **more: str) -> None:
        self.label = label

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        return RunStarted()

    async def get_state(self) -> str:
        return f"{self.label} {HOSTILE}"

    async def execute_action(self, action: str) -> Outcome:
        return Outcome(f"did {action}", 1.0)

    def display_details(self) -> dict:
        return {HOSTILE: [{"who": HOSTILE, "ok": True}], "note": {HOSTILE: HOSTILE}}

    def display_grid(self) -> dict:
        return {"columns": 2, "rows": 2, "marks": {HOSTILE: [[1, 1]]}, "caption": HOSTILE}


_noted: contextvars.ContextVar[str] = contextvars.ContextVar("probe_noted", default="nothing")


class TaskMindedWorld(World):
    """A world whose actions need what a task gives: "timeout" waits under ``asyncio.timeout``,
    "group" in a ``TaskGroup``, "sleep" a moment; every action first notes itself in a context
    variable, and the state says what the variable held before (another query's note, if the
    server let one answer's context leak into the next)."""

    async def execute_action(self, action: str) -> Outcome:
        before = _noted.get()
        _noted.set(action)
        if action == "timeout":
            async with asyncio.timeout(5):
                await asyncio.sleep(0.01)
        elif action == "group":
            async with asyncio.TaskGroup() as group:
                group.create_task(asyncio.sleep(0.01))
        elif action == "sleep":
            await asyncio.sleep(0.01)
        elif action == "late":  # its own time-out expires: refused as its failure, the run goes on
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        elif action == "expired":  # a time-out already over when the method starts waiting
            async with asyncio.timeout(0):
                await asyncio.sleep(5)
        return Outcome(f"{action} after {before}", 1.0)
