"""A running game: an engine, one link per robot, and T-World's percept-action loop.

``discrete`` mode is lock-step: every robot gets a percept, every action is collected, then
the engine steps (γ world seconds). ``realtime`` mode is T-World's: the world clock runs with
the wall clock (× ``speed``), each action is applied when it arrives and the robot is busy
for its cost (350 ms a move, 1000 ms a bad move or a filled hole) before its next percept;
with ``interval`` set it is T-World's asynchronous loop instead: a ``percept`` every
``interval`` seconds whatever the agent does, moves acknowledged with a ``"null"`` data.
Every percept sent is written into the engine's log, which is the run's recording.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from . import percepts
from .actions import NONE, Action, ActionError, parse_action
from .config import Config
from .engine import Engine
from .links import Link, LinkClosed
from .measures import measure
from .recording import as_dict, save_recording

Mode = Literal["discrete", "realtime"]
COST_SECONDS = {"good_move": 0.35, "bad_move": 1.0, "filled_hole": 1.0}


class Game:
    """One run with live agents. ``await run()`` plays it to the end and returns the measures."""

    def __init__(self, config: Config, links: list[Link], mode: Mode = "discrete", speed: float = 1.0,
                 action_timeout: float = 10.0, on_change: Callable[[Game], None] | None = None,
                 interval: float | None = None) -> None:
        if len(links) != config.agents:
            raise ValueError(f"the config has {config.agents} agents but {len(links)} links were given")
        if mode not in ("discrete", "realtime"):
            raise ValueError(f"mode must be discrete or realtime, got {mode!r}")
        if not (math.isfinite(speed) and speed > 0):
            raise ValueError(f"speed must be a positive number, got {speed}")
        if not (math.isfinite(action_timeout) and action_timeout > 0):
            raise ValueError(f"action_timeout must be a positive number of seconds, got {action_timeout}")
        if interval is not None and (mode != "realtime" or not (math.isfinite(interval) and interval > 0)):
            raise ValueError("an asynchronous percept interval needs real-time mode and a positive interval")
        self.config, self.links, self.mode, self.speed = config, links, mode, speed
        self.interval = interval
        self.action_timeout = action_timeout
        self.on_change = on_change
        self.engine = Engine(config)
        self.status = "waiting for agents"
        self.errors: list[str] = []
        self.running = asyncio.Event()
        self.running.set()
        self.paused_seconds = 0.0  # wall-clock seconds spent paused (real-time mode)
        self.seen: dict[int, dict[str, Any]] = {}  # the last full percept each robot was sent
        self._paused_at: float | None = None

    async def pause(self, on: bool) -> None:
        """Pause or resume the run: the world clock stops, robots get ``pause`` percepts
        (``"on"``/``"off"``) and actions wait until the run resumes."""
        if on == (self._paused_at is not None) or self.status not in ("running", "paused"):
            return
        now = asyncio.get_running_loop().time()
        if on:
            self._paused_at = now
            self.running.clear()
            self.status = "paused"
        else:
            self.paused_seconds += now - (self._paused_at or now)
            self._paused_at = None
            self.running.set()
            self.status = "running"
        for i in range(len(self.links)):
            await self._send(i, percepts.message("pause", "on" if on else "off"))
        self._changed()

    # ---- sending ------------------------------------------------------------------------------
    async def _send(self, agent_id: int, line: str) -> None:
        self.engine.log.append(["sent", agent_id, line])
        try:
            await self.links[agent_id].send(line)
        except LinkClosed as exc:
            self._lost(agent_id, exc)

    async def _percept(self, agent_id: int, header: str) -> None:
        data = percepts.full(self.engine, agent_id)
        self.seen[agent_id] = {"agent": agent_id, "time": round(self.engine.time, 3), "header": header, "data": data}
        await self._send(agent_id, percepts.message(header, data))

    def _lost(self, agent_id: int, exc: Exception) -> None:
        prefix = f"agent {agent_id}: "
        if not any(e.startswith(prefix) for e in self.errors):  # the first sign of a lost agent
            self.errors.append(prefix + str(exc))

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    async def _next_action(self, agent_id: int, timeout: float) -> Action:
        """Wait for the robot's next action; deliver its messages and answer its mistakes on
        the way. Timeouts and lost agents count as ``none``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.engine.finished:
            try:
                line = await self.links[agent_id].receive(max(0.0, deadline - loop.time()))
            except LinkClosed as exc:
                self._lost(agent_id, exc)
                return NONE
            if line is None:
                return NONE
            try:
                action = parse_action(line)
            except ActionError as exc:
                self.engine.log.append(["invalid", agent_id, line])
                await self._send(agent_id, percepts.message("error", str(exc)))
                return NONE  # the agent is not left stalled: a fresh percept follows
            if not action.is_message:
                return action
            result = self.engine.act(agent_id, action)
            for to, text in result.deliveries:
                await self._send(to, percepts.message("message", text))
            self._changed()
        return NONE

    # ---- running ------------------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        try:
            await asyncio.gather(*(link.open() for link in self.links))
        except LinkClosed as exc:
            self.status = "failed"
            self.errors.append(str(exc))
            await self._close()
            raise
        self.status = "running"
        self._changed()
        try:
            if self.mode == "discrete":
                await self._run_discrete()
            else:
                await self._run_realtime()
        finally:
            self.status = "over"
            for i in range(len(self.links)):
                await self._percept(i, "end")
            self._changed()
            await self._close()
        return measure(self.engine)

    async def _close(self) -> None:
        for link in self.links:
            with contextlib.suppress(Exception):
                await link.close()

    async def _run_discrete(self) -> None:
        headers = {i: "start" for i in range(len(self.links))}
        while not self.engine.finished:
            await self.running.wait()

            async def turn(i: int) -> Action:
                await self._percept(i, headers[i])
                return await self._next_action(i, self.action_timeout)

            actions = await asyncio.gather(*(turn(i) for i in range(len(self.links))))
            results = self.engine.step(dict(enumerate(actions)))
            for i, result in results.items():
                headers[i] = "ready_for_next_action" if result.kind in ("good_move", "bad_move") else "percept"
            self._changed()

    async def _run_realtime(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()

        def catch_up() -> None:
            if not self.running.is_set():
                return
            now = (loop.time() - start - self.paused_seconds) * self.speed
            if now > self.engine.time:
                self.engine.advance(now - self.engine.time)

        async def robot(i: int) -> None:
            header = "start"
            if self.interval is not None:
                await self._percept(i, "start")
            while not self.engine.finished:
                if self.interval is None:
                    await self._percept(i, header)
                action = await self._next_action(i, self.action_timeout)
                await self.running.wait()
                if self.engine.finished:
                    return
                catch_up()
                result = self.engine.act(i, action)
                self._changed()
                if result.kind in ("good_move", "bad_move"):
                    cost = COST_SECONDS["filled_hole" if result.filled else result.kind]
                    await asyncio.sleep(cost / self.speed)
                    header = "ready_for_next_action"
                    if self.interval is not None:
                        await self._send(i, percepts.message("ready_for_next_action", "null"))
                else:
                    await asyncio.sleep(0.05 / self.speed)  # a none-spinning agent cannot starve the loop
                    header = "percept"

        async def pulse() -> None:  # the asynchronous loop's percepts, whatever the agents do
            assert self.interval is not None
            while not self.engine.finished:
                await asyncio.sleep(self.interval / self.speed)
                await self.running.wait()
                catch_up()
                for i in range(len(self.links)):
                    await self._percept(i, "percept")

        robots = [asyncio.create_task(robot(i)) for i in range(len(self.links))]
        if self.interval is not None:
            robots.append(asyncio.create_task(pulse()))
        try:
            while not self.engine.finished:
                await asyncio.sleep(0.05)
                catch_up()
                self._changed()
                for task in robots:
                    if task.done() and (failure := task.exception()) is not None:
                        raise failure
        finally:
            for task in robots:
                task.cancel()
            await asyncio.gather(*robots, return_exceptions=True)

    # ---- recording ----------------------------------------------------------------------------
    def recording(self) -> dict[str, Any]:
        return as_dict(self.engine, self.mode)

    def save(self, path: str | Path) -> Path:
        return save_recording(self.engine, path, self.mode)
