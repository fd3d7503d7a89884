"""Λ* as a World-Wide-Mind World server, shared: every client that starts a run gets its own
agent body in one test, so several minds (anywhere on the network, in any language) can sit
the test together, as a collective, with ``wwm lambdastar --mind URL [URL ...]``.

Serve it with ``wwm serve wwm.lambdastar.world:LambdaStarWorld --arg agents=2 ...``.
The first ``agents`` runs form a cohort; the test starts when the cohort is full, and every
iteration is played when every body of the cohort has sent its action. Later runs form the
next cohort, which sits the same test again (same seed, same environments) -- or the test
from its own ``seed``, when its first body's New run gives one. A body's ``form`` (New run)
is ``json`` (the default) or ``numbers`` (:data:`NUMBERS_SPACE`, what the card's
``state_space`` declares, for learners).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import numpy as np

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome
from .engine import Episode
from .episodes import EpisodeSet, generate
from .torus import ACTION_NAMES, grid_arg, grid_shape

STATE_FORMAT = """JSON object, one per body and iteration:
{"test": "lambdastar", "cohort": 1, "profile": "paper", "grid": [10, 10], "episode": 1, "episodes": 10,
 "iteration": 1, "iterations": 100, "agent": 1, "agents": 2,
 "cell": 46, "cells": [35, 36, 37, 45, 46, 47, 55, 56, 57],
 "rewards": [0, 0, 0.5, 0, 0, 0.5, 0, 0, 0], "reward": 0.5, "finished": false}
"iteration" is the iteration about to be played (1..iterations); a new episode starts at
iteration 1 on a fresh start cell. Cells are numbered 1..rows*cols row-major (cell 1 is the
upper-left corner). "cells" is the body's range-k Moore neighbourhood (centre included)
row-major from the upper-left, and "rewards" the reward in each of those cells now; for
k = 1 the nine cells are in action order. "reward" is what the last move earned (null at
the start and after a mark). "finished": true when the test is over. "cohort" numbers the
groups of bodies that sat the test on this server.
With oracle hints on (for the expert baseline only): "good next" is Good's cell after this
iteration, and "good path" Good's cells after this iteration and every later one of the
episode (so an oracle can intercept Good).
"marks" (stigmergy through the environment) appears in the answer to a mark: for each of
the body's cells, the highest fake reward the bodies that marked in this iteration left
there, or null where none did."""

#: The numeric form of a body's state (New run ``form=numbers``), a value of this space (the
#: JSON form of wwm.gym.spaces): the rewards of the 3 x 3 cells around the body (row-major from
#: the upper-left; the middle of a wider range), what the last move earned, the iteration
#: about to be played (0 once the test is over) and the episode.
NUMBERS_SPACE: dict[str, Any] = {"type": "Dict", "form": "json", "new_run": {"form": "numbers"}, "spaces": {
    "rewards": {"type": "Box", "shape": [9], "low": -100, "high": 100},
    "reward": {"type": "Box", "shape": [1], "low": -100, "high": 100},
    "iteration": {"type": "Box", "shape": [1], "low": 0, "high": 10**6},
    "episode": {"type": "Box", "shape": [1], "low": 0, "high": 10**6}}}

ACTION_FORMAT = """One move per iteration: a number 1..9 or its name:
1 up-left, 2 up, 3 up-right, 4 left, 5 stay, 6 right, 7 down-left, 8 down, 9 down-right.
Before its move, a body may mark: "mark R" (R a number) leaves the fake reward (the reward
seen there) + R on every cell the body observes in this iteration. The answer to a mark
comes once every body of the cohort has marked or moved in this iteration, and its state
shows the marks of this iteration on the body's cells; then the body moves.
The torus wraps at the edges. The answer to a move comes when every body of the cohort has
moved."""


def parse_action(text: str) -> tuple[int | None, float | None]:
    """Action text -> (move 0..8, None) or (None, the mark R); a clear refusal otherwise."""
    words = str(text).strip().lower().split()
    if len(words) == 2 and words[0] == "mark":
        try:
            mark = float(words[1])
        except ValueError:
            raise Refusal("bad-parameters", f"the mark in {text!r} is not a number") from None
        if not np.isfinite(mark):
            raise Refusal("bad-parameters", f"the mark in {text!r} is not a finite number")
        return None, mark
    if len(words) == 3 and words[1] == "mark":
        raise Refusal("bad-parameters", f"{text!r}: a mark is an action of its own, sent before "
                      f"the move of the same iteration ('mark {words[2]}', then '{words[0]}')")
    word = words[0] if len(words) == 1 else ""
    if word.isdigit() and 1 <= int(word) <= 9:
        return int(word) - 1, None
    if word in ACTION_NAMES:
        return ACTION_NAMES.index(word), None
    raise Refusal("bad-parameters", f"action {text!r} is not 1..9, one of "
                  f"{', '.join(ACTION_NAMES)}, or 'mark NUMBER'")


class Cohort:
    """The bodies sitting one test together, and the engine they share."""

    def __init__(self, world: LambdaStarWorld, number: int, seed: int | None = None) -> None:
        self.world = world
        self.number = number
        self.seed = world.seed if seed is None else seed
        self.set: EpisodeSet = world.episodes_for(self.seed)
        self.size = world.agents
        self.bodies: list[Body] = []
        self.full = asyncio.Event()
        self.episode = 0
        self.env: Episode | None = None
        self.pending: dict[int, int] = {}                 # body -> its move in this iteration
        self.marked: set[int] = set()                     # the bodies that marked in it
        self.marks = np.full(self.set.grid.size, np.nan)  # this iteration's marks
        self.played = asyncio.Condition()
        self.tick = 0
        self.finished = False
        self.last_rewards = np.zeros(self.size)

    def add(self, body: Body) -> None:
        self.bodies.append(body)
        if len(self.bodies) == self.size:
            self.env = self._new_episode()
            self.full.set()

    def _new_episode(self) -> Episode:
        return Episode(self.set, self.episode, self.size, observation_range=self.world.observation_range,
                       coordination=self.world.coordination)

    def state(self, j: int, reward: float | None, form: str = "json") -> str:
        if form == "numbers":
            return json.dumps(self.numbers(j, reward), separators=(",", ":"))
        w = self.world
        doc: dict[str, Any] = {"test": "lambdastar", "cohort": self.number,
                               "profile": w.profile, "grid": list(w.shape),
                               "episode": self.episode + 1, "episodes": w.episodes_count,
                               "agent": j + 1, "agents": self.size, "reward": reward,
                               "iterations": w.iterations, "finished": self.finished}
        if not self.finished and self.env is not None:
            obs = self.env.observe()[j]
            doc.update({"iteration": self.env.iteration + 1, "cell": obs.cell + 1,
                        "cells": (obs.cells + 1).tolist(), "rewards": obs.rewards.tolist()})
            if j in self.marked:
                doc["marks"] = [None if np.isnan(m) else float(m) for m in self.marks[obs.cells]]
            if w.oracle_hints:
                path = self.env.good[self.env.iteration + 1:] + 1
                doc["good next"], doc["good path"] = int(path[0]), path.tolist()
        return json.dumps(doc)

    def numbers(self, j: int, reward: float | None) -> dict[str, list[float]]:
        """Body ``j``'s state in the numeric form (:data:`NUMBERS_SPACE`)."""
        rewards, iteration = [0.0] * 9, 0
        if not self.finished and self.env is not None:
            obs = self.env.observe()[j]
            side, k = 2 * self.world.observation_range + 1, self.world.observation_range
            rewards = [float(obs.rewards[(k + dr) * side + k + dc]) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
            iteration = self.env.iteration + 1
        return {"rewards": rewards, "reward": [reward or 0.0], "iteration": [iteration],
                "episode": [self.episode + 1]}

    def _check_turn(self, j: int) -> None:
        if self.finished:
            raise Refusal("run-ended", "the test is over for this cohort; end the run")
        if j in self.pending:
            raise Refusal("bad-parameters", "this body has already moved in this iteration; "
                          "wait for the answer before sending the next action")

    async def mark(self, j: int, rhat: float) -> None:
        """Body j leaves R + r̂ on the cells it observes now (the highest stays where marks
        overlap, as in Algorithm 2); the answer waits until every body has marked or moved
        in this iteration, so the marks it then sees are all of this iteration's."""
        self._check_turn(j)
        if j in self.marked:
            raise Refusal("bad-parameters", "this body has already marked in this iteration; "
                          "send its move")
        env = self.env
        assert env is not None  # (the episode starts when the cohort is full)
        async with self.played:
            obs = env.observe()[j]
            self.marks[obs.cells] = np.fmax(self.marks[obs.cells], obs.rewards + rhat)
            self.marked.add(j)
            self.played.notify_all()
            tick = self.tick
            await self.played.wait_for(lambda: self.tick != tick or self._all_spoke())

    def _all_spoke(self) -> bool:
        return len(self.marked | self.pending.keys()) == self.size

    async def act(self, j: int, action: int) -> tuple[float, bool]:
        """Record body j's move; play the iteration once all have moved; its reward."""
        self._check_turn(j)
        async with self.played:
            self.pending[j] = action
            tick = self.tick
            if len(self.pending) == self.size:
                self._play()
            else:
                self.played.notify_all()  # a body waiting on its mark may go on
                await self.played.wait_for(lambda: self.tick != tick)
        return float(self.last_rewards[j]), self.finished

    def _play(self) -> None:
        env = self.env
        assert env is not None  # (the episode starts when the cohort is full, before any action)
        actions = [self.pending[j] for j in range(self.size)]
        self.pending.clear()
        self.marked.clear()
        self.marks[:] = np.nan  # Algorithm 2: the layer is cleared every iteration
        self.last_rewards = env.step(actions)
        for body, r in zip(self.bodies, self.last_rewards, strict=True):
            body.total += float(r)
            body.iterations += 1
        if env.done:
            self.episode += 1
            if self.episode >= len(self.set):
                self.finished = True
            else:
                self.env = self._new_episode()
        self.tick += 1
        self.played.notify_all()


class Body(World):
    """One client's agent in a shared Λ* test."""

    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT

    def __init__(self, cohort: Cohort, index: int, form: str = "json") -> None:
        self.cohort = cohort
        self.index = index
        self.form = form
        self.total = 0.0
        self.iterations = 0
        self.last: float | None = None

    async def _ready(self) -> None:
        try:
            await asyncio.wait_for(self.cohort.full.wait(), self.cohort.world.wait_seconds)
        except TimeoutError:
            raise Refusal("busy", f"the test starts when {self.cohort.size} bodies have joined; only "
                          f"{len(self.cohort.bodies)} joined within "
                          f"{self.cohort.world.wait_seconds:g} s") from None

    async def get_state(self) -> str:
        await self._ready()
        return self.cohort.state(self.index, self.last, self.form)

    async def execute_action(self, action: str) -> Outcome:
        move, mark = parse_action(action)
        await self._ready()
        if move is None:
            assert mark is not None
            await self.cohort.mark(self.index, mark)
            return Outcome(self.cohort.state(self.index, None, self.form), None, self.cohort.finished)
        reward, finished = await self.cohort.act(self.index, move)
        self.last = reward
        return Outcome(self.cohort.state(self.index, reward, self.form), reward, finished)

    async def get_current_score(self) -> float | None:
        """This body's mean reward per iteration so far."""
        return self.total / self.iterations if self.iterations else 0.0

    async def reset_score(self) -> None:
        self.total, self.iterations = 0.0, 0

    async def end_run(self) -> float | None:
        return await self.get_current_score()

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`): the
        torus with Good, Evil, this body (the ``agent``) and the other bodies of its cohort,
        where the iteration about to be played finds them."""
        c, (rows, columns) = self.cohort, self.cohort.world.shape

        def cell(k: int) -> list[int]:   # cells are numbered row-major
            return [int(k) % columns, int(k) // columns]

        env = c.env
        if env is None or c.finished:
            over = "the test is over" if c.finished else f"waiting for {c.size - len(c.bodies)} more bodies"
            return {"columns": columns, "rows": rows, "y_up": False, "marks": {},
                    "caption": f"cohort {c.number} · {over} · mean reward {self.total / max(1, self.iterations):g}"}
        t = min(env.iteration, len(env.good) - 1)
        marks = {"good": [cell(env.good[t])], "evil": [cell(env.evil[t])],
                 "body": [cell(p) for j, p in enumerate(env.positions) if j != self.index],
                 "agent": [cell(env.positions[self.index])]}
        return {"columns": columns, "rows": rows, "y_up": False, "marks": {k: v for k, v in marks.items() if v},
                "looks": {"good": ["diamond", "#16a34a"], "evil": ["diamond", "#dc2626"], "body": ["disc", "#94a3b8"]},
                "caption": f"episode {c.episode + 1} of {len(c.set)} · iteration {env.iteration + 1} of "
                           f"{env.iterations} · mean reward {self.total / max(1, self.iterations):g}"}


def _plain(name: str, value: Any) -> Any:
    """A run's setting in the form the world's own settings are kept in (a grid given as
    [5, 10], "5x10" or 10 compares by its shape)."""
    if name != "grid":
        return value
    try:
        return grid_arg(value)
    except ValueError:
        return value


class LambdaStarWorld(World):
    """The Λ* test as a shared world: each run is an agent body; see the state and action
    formats. Arguments: grid (a side, or ROWSxCOLUMNS such as 5x10), iterations ϑ, episodes
    ω, agents per cohort, profile ("paper" or "original"), seed, observation range k, coordination (Good pays only when
    two or more agents are next to it), oracle hints (Good's next cells in the state), form
    (of the states: json, or numbers for learners; each body may choose its own)."""

    seed_section: ClassVar[str] = "Λ* (Chmait et al.)"

    sharing = "shared"
    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT
    # machine-readable (the JSON form of wwm.gym.spaces): the numeric form (New run form=numbers)
    # and the moves 1..9 (marks are for clients that write their actions)
    state_space: ClassVar[dict[str, Any]] = NUMBERS_SPACE
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": 9, "labels": [str(i) for i in range(1, 10)]}
    wait_seconds: float = 60.0

    def __init__(self, grid: int | str = 10, iterations: int = 100, episodes: int = 10, agents: int = 1,
                 profile: str = "paper", seed: int = 0, observation_range: int = 1,
                 coordination: bool = False, oracle_hints: bool = False, form: str = "json") -> None:
        if form not in ("json", "numbers"):
            raise ValueError(f"unknown form {form!r}: json (the default) or numbers")
        self.form = form  # a body's form when its New run gives none
        if agents < 1:
            raise ValueError(f"agents must be at least 1 (got {agents})")
        self.shape = grid_shape(grid)
        grid = grid_arg(self.shape)  # the side of a square, else "ROWSxCOLUMNS"
        if observation_range < 1 or 2 * observation_range + 1 > min(self.shape):
            raise ValueError(f"observation range {observation_range} does not fit a "
                             f"{self.shape[0]}x{self.shape[1]} grid")
        self.config = dict(grid=grid, iterations=iterations, episodes=episodes, agents=agents,
                           profile=profile, seed=seed, observation_range=observation_range,
                           coordination=coordination, oracle_hints=oracle_hints)
        self.grid, self.iterations, self.episodes_count = grid, iterations, episodes
        self.agents, self.profile, self.seed = agents, profile, seed
        self.observation_range, self.coordination = observation_range, coordination
        self.oracle_hints = oracle_hints
        self.episodes = generate(self.shape, iterations, episodes, profile, seed)
        self._sets: dict[int, EpisodeSet] = {seed: self.episodes}
        self.cohort: Cohort | None = None

    def episodes_for(self, seed: int) -> EpisodeSet:
        """The test's environments from ``seed`` (the world's own, or a cohort's: a few kept)."""
        if seed not in self._sets:
            if len(self._sets) >= 8:
                del self._sets[next(k for k in self._sets if k != self.seed)]
            self._sets[seed] = generate(self.shape, self.iterations, self.episodes_count, self.profile, seed)
        return self._sets[seed]

    async def join(self, client_url: str | None = None, form: str | None = None, **args: Any) -> World:
        form = form or self.form
        if form not in ("json", "numbers"):
            raise Refusal("bad-parameters", f"unknown form {form!r}: json (the default) or numbers")
        seed = args.pop("seed", None)
        if seed is not None:
            try:
                seed = int(seed)
            except (TypeError, ValueError):
                raise Refusal("bad-parameters", f"seed must be a whole number, got {seed!r}") from None
        differ = {k: v for k, v in args.items() if k in self.config and self.config[k] != _plain(k, v)}
        unknown = [k for k in args if k not in self.config]
        if differ or unknown:
            raise Refusal("bad-parameters", "this shared Λ* world is set up as "
                          + ", ".join(f"{k}={v}" for k, v in self.config.items())
                          + (f"; it cannot take {differ}" if differ else "")
                          + (f"; unknown {unknown}" if unknown else ""))
        if self.cohort is None or len(self.cohort.bodies) >= self.cohort.size:
            # a new cohort sits the test from its first body's seed (the world's without one)
            self.cohort = Cohort(self, 1 if self.cohort is None else self.cohort.number + 1, seed)
        elif seed is not None and seed != self.cohort.seed:
            raise Refusal("bad-parameters", f"the cohort this body joins sits the test from seed "
                                            f"{self.cohort.seed}, not {seed}")
        body = Body(self.cohort, len(self.cohort.bodies), form)
        self.cohort.add(body)
        return body

    async def get_state(self) -> str:
        raise Refusal("unsupported-query", "start a run to get a body in the test")
