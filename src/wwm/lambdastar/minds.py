"""The built-in Λ* agents as WWM Mind servers: they read the Λ* world's JSON state and answer
an action 1..9, so any of them can sit the test over the network (``wwm serve
wwm.lambdastar.minds:LocalSearchMind``). Minds on one server that share a ``team``
name form a collective: they share a Q-table, or a layer of fake rewards (stigmergy).
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..protocol.errors import Refusal
from ..protocol.interfaces import LearningMind, Mind
from ..protocol.results import Suggestion
from .torus import torus
from .world import ACTION_FORMAT, STATE_FORMAT

if TYPE_CHECKING:
    from .engine import Observation


def episode_key(doc: dict[str, Any]) -> tuple[int, int]:
    """Which episode of which sitting of the test a state belongs to."""
    return int(doc.get("cohort", 0)), int(doc["episode"])


def read_state(state: str) -> dict[str, Any]:
    try:
        doc = json.loads(state)
    except ValueError:
        raise Refusal("bad-parameters", "the state is not JSON; is this a Λ* world?") from None
    if not isinstance(doc, dict) or doc.get("test") != "lambdastar":
        raise Refusal("bad-parameters", 'the state is not a Λ* state (no "test": "lambdastar")')
    if not doc.get("finished"):
        _check_state(doc)
    return doc


def _check_state(doc: dict[str, Any]) -> None:
    """A state a mind can act on: the fields of the world's state format, well typed."""
    missing = [k for k in ("grid", "episode", "iteration", "cell", "cells", "rewards") if k not in doc]
    if missing:
        raise Refusal("bad-parameters", f"the Λ* state lacks {', '.join(missing)}")
    grid, cells, rewards = doc["grid"], doc["cells"], doc["rewards"]

    def whole(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if not (isinstance(grid, list) and len(grid) == 2 and all(whole(g) and g >= 3 for g in grid)):
        raise Refusal("bad-parameters", f'the Λ* state\'s "grid" must be [rows, columns], each '
                      f"at least 3 (got {grid!r})")
    size = grid[0] * grid[1]
    if not (isinstance(cells, list) and cells and all(whole(c) and 1 <= c <= size for c in cells)
            and whole(doc["cell"]) and 1 <= doc["cell"] <= size):
        raise Refusal("bad-parameters", f'the Λ* state\'s "cell" and "cells" must be cell numbers '
                      f"1..{size}")
    if not (isinstance(rewards, list) and len(rewards) == len(cells)
            and all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in rewards)):
        raise Refusal("bad-parameters", 'the Λ* state\'s "rewards" must be one number per cell '
                      'of "cells"')
    if not all(whole(doc[k]) and doc[k] >= 1 for k in ("episode", "iteration")):
        raise Refusal("bad-parameters", 'the Λ* state\'s "episode" and "iteration" must be whole '
                      "numbers from 1")


class LambdaStarMind(Mind):
    """Base: parses the state, breaks ties with its own seeded generator."""

    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    async def get_action(self, state: str) -> Suggestion:
        doc = read_state(state)
        if doc.get("finished"):
            return Suggestion.cannot("the test is over")
        return Suggestion(action=str(self.choose(doc) + 1))

    def choose(self, doc: dict[str, Any]) -> int:
        raise NotImplementedError

    def pick(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values == values.max())
        return int(best[int(self.rng.random() * len(best))])

    def towards(self, doc: dict[str, Any], cell_id: int) -> int:
        rows, cols = doc["grid"]
        return int(torus(rows, cols).approach[cell_id - 1, doc["cell"] - 1])


class RandomMind(LambdaStarMind):
    """Λ* baseline: one of the nine moves (the eight neighbours or stay) at random each step."""

    def choose(self, doc: dict[str, Any]) -> int:
        return int(self.rng.integers(0, 9))


class LocalSearchMind(LambdaStarMind):
    """Step to the observed cell with the highest reward now (ties at random)."""

    def choose(self, doc: dict[str, Any]) -> int:
        rewards = np.asarray(doc["rewards"], dtype=float)
        return self.towards(doc, doc["cells"][self.pick(rewards)])


class OracleMind(LambdaStarMind):
    """The expert baseline: needs a world serving oracle hints. With Good's path ahead
    ("good path", paper profile) it heads for the earliest cell of that path it can reach
    in time (it intercepts); with the original profile, one step towards "good next"."""

    async def get_action(self, state: str) -> Suggestion:
        doc = read_state(state)
        if doc.get("finished"):
            return Suggestion.cannot("the test is over")
        if "good next" not in doc:
            return Suggestion.cannot("the world gives no oracle hints (serve it with oracle_hints=true)")
        path = doc.get("good path")
        if doc.get("profile") == "original" or not path:
            return Suggestion(action=str(self.towards(doc, doc["good next"]) + 1))
        rows, cols = doc["grid"]
        ahead = np.asarray(path) - 1
        reach = torus(rows, cols).distance[doc["cell"] - 1, ahead] <= np.arange(1, len(ahead) + 1)
        aim = int(ahead[int(np.argmax(reach))] if reach.any() else ahead[0])
        return Suggestion(action=str(self.towards(doc, aim + 1) + 1))


_FAKE: dict[str, dict[int, float]] = defaultdict(dict)
_FAKE_AT: dict[str, tuple[int, int, int]] = {}


class StigmergyMind(LambdaStarMind):
    """Local search on fake rewards left in a layer shared by every mind of its ``team`` on
    this server (Algorithm 2: the layer is cleared each iteration; each mind writes R + r̂ on
    its cells, r̂ = γ·r_max + (1-γ)·r_min, and steps to its cell of highest fake reward).
    Minds that act later in an iteration see the marks of those before them."""

    def __init__(self, seed: int = 0, team: str = "stigmergy", gamma: float = 0.5) -> None:
        super().__init__(seed)
        self.team, self.gamma = team, gamma

    def choose(self, doc: dict[str, Any]) -> int:
        stamp = (*episode_key(doc), doc["iteration"])
        if _FAKE_AT.get(self.team) != stamp:
            _FAKE[self.team].clear()
            _FAKE_AT[self.team] = stamp
        layer = _FAKE[self.team]
        rewards = np.asarray(doc["rewards"], dtype=float)
        rhat = self.gamma * rewards.max() + (1 - self.gamma) * rewards.min()
        for cell, r in zip(doc["cells"], rewards, strict=True):
            layer[cell] = max(layer.get(cell, -np.inf), r + rhat)
        fake = np.array([layer[c] for c in doc["cells"]])
        return self.towards(doc, doc["cells"][self.pick(fake)])


class TrailMind(LambdaStarMind):
    """Stigmergy through the environment (Algorithm 2 across servers): each iteration it
    first marks, leaving r̂ = γ·r_max + (1-γ)·r_min ("mark 0.25"); the world lays R + r̂ on
    the cells it sees and answers once every body has marked or moved, showing this
    iteration's marks; then it steps to its cell of highest mark. Minds on different servers
    (in any language) cooperate this way."""

    def __init__(self, seed: int = 0, gamma: float = 0.5) -> None:
        super().__init__(seed)
        self.gamma = gamma

    async def get_action(self, state: str) -> Suggestion:
        doc = read_state(state)
        if doc.get("finished"):
            return Suggestion.cannot("the test is over")
        rewards = np.asarray(doc["rewards"], dtype=float)
        left = doc.get("marks")
        if left is None:  # this iteration's mark first
            rhat = self.gamma * rewards.max() + (1 - self.gamma) * rewards.min()
            return Suggestion(action=f"mark {float(rhat)!r}")
        fake = np.array([-np.inf if m is None else m for m in left])
        return Suggestion(action=str(self.towards(doc, doc["cells"][self.pick(fake)]) + 1))


_TABLES: dict[str, dict[tuple[int, int], np.ndarray]] = {}
_TABLE_EPISODE: dict[str, tuple[int, int]] = {}


class QLearningMind(LambdaStarMind, LearningMind):
    """Q-learning over states (iteration, cell), learning while it sits each episode (one
    episode, one training session) and forgetting at the next. Minds of one ``team`` on this
    server share one table (the shared-Q collective); an empty team means a private table."""

    alpha, gamma = 0.3, 0.3

    def __init__(self, seed: int = 0, team: str = "") -> None:
        super().__init__(seed)
        self.team = team or f"private-{id(self)}"
        # (episode, iteration, cell, action) of the last action, until its reward is known
        self.previous: tuple[tuple[int, int], int, int, int] | None = None

    def values(self, episode: tuple[int, int], iteration: int, cell: int) -> np.ndarray:
        if _TABLE_EPISODE.get(self.team) != episode:  # a new episode: a new training session
            _TABLES[self.team] = {}
            _TABLE_EPISODE[self.team] = episode
        return _TABLES[self.team].setdefault((iteration, cell), np.zeros(9))

    def choose(self, doc: dict[str, Any]) -> int:
        a = self.pick(self.values(episode_key(doc), doc["iteration"], doc["cell"]))
        self.previous = (episode_key(doc), doc["iteration"], doc["cell"], a)
        return a

    async def inform(self, state: str, score: float | None = None) -> float | None:
        doc = read_state(state)
        if self.previous is None or score is None:
            return None
        episode, iteration, cell, a = self.previous
        self.previous = None
        if _TABLE_EPISODE.get(self.team) != episode:
            return None  # the shared table has moved on to the next episode
        q = self.values(episode, iteration, cell)
        going_on = not doc.get("finished") and episode_key(doc) == episode
        future = self.values(episode, doc["iteration"], doc["cell"]).max() if going_on else 0.0
        q[a] += self.alpha * (float(score) + self.gamma * future - q[a])
        return float(q[a])

    async def end_run(self, score: float | None = None) -> float | None:
        if self.team.startswith("private-"):
            _TABLES.pop(self.team, None)
            _TABLE_EPISODE.pop(self.team, None)
        return score


class SarsaMind(QLearningMind):
    """SARSA learning while it sits each episode: the update for a step waits until the next
    action is chosen, and bootstraps from that action's value (0 at the end of an episode).
    A ``team`` shares the table (the shared-SARSA collective)."""

    def __init__(self, seed: int = 0, team: str = "") -> None:
        super().__init__(seed, team)
        self.waiting: tuple[tuple[int, int], int, int, int, float] | None = None

    def choose(self, doc: dict[str, Any]) -> int:
        a = self.pick(self.values(episode_key(doc), doc["iteration"], doc["cell"]))
        self._settle(doc, a)
        self.previous = (episode_key(doc), doc["iteration"], doc["cell"], a)
        return a

    def _settle(self, doc: dict[str, Any] | None, a_next: int | None) -> None:
        if self.waiting is None:
            return
        episode, iteration, cell, a, reward = self.waiting
        self.waiting = None
        if _TABLE_EPISODE.get(self.team) != episode:
            return
        if doc is not None and episode_key(doc) == episode and a_next is not None:  # it goes on
            future = self.values(episode, doc["iteration"], doc["cell"])[a_next]
        else:
            future = 0.0
        q = self.values(episode, iteration, cell)
        q[a] += self.alpha * (reward + self.gamma * future - q[a])

    async def inform(self, state: str, score: float | None = None) -> float | None:
        doc = read_state(state)
        if self.previous is None or score is None:
            return None
        self.waiting = (*self.previous, float(score))
        self.previous = None
        if doc.get("finished") or episode_key(doc) != self.waiting[0]:
            self._settle(None, None)
        return None


class _EpisodeView:
    """What a Team's ``begin`` reads, pieced together from the members' states."""

    def __init__(self, iterations: int, positions: list[int]) -> None:
        self.good = np.zeros(iterations + 1, dtype=np.int64)
        self.positions = np.array(positions)


class _Hub:
    """The members of one team on this server: gathers each member's observation, then lets
    the in-process Team (communicate and) decide for all of them at once."""

    def __init__(self, key: str, doc: dict[str, Any], seed: int, params: dict[str, Any]) -> None:
        from .agents import make
        from .profiles import profile

        rows, cols = doc["grid"]
        k = round((len(doc["cells"]) ** 0.5 - 1) / 2)
        self.team = make(key, doc["agents"], torus(rows, cols), profile(doc.get("profile", "paper")),
                         doc["iterations"], k, **params)
        self.size = doc["agents"]
        self.iterations = doc["iterations"]
        self.rng = np.random.default_rng(seed)
        self.cond = asyncio.Condition()
        self.waiting: dict[int, tuple[Observation, dict[str, Any]]] = {}
        self.answers: list[int] = []
        self.round = 0
        self.episode: tuple[int, int] | None = None
        self.view: _EpisodeView | None = None

    async def act(self, doc: dict[str, Any]) -> int:
        from .engine import Observation

        j = int(doc["agent"]) - 1
        obs = Observation(doc["cell"] - 1, np.asarray(doc["cells"]) - 1,
                          np.asarray(doc["rewards"], dtype=float), doc["iteration"])
        async with self.cond:
            self.waiting[j] = (obs, doc)
            mine = self.round
            if len(self.waiting) == self.size:
                self._decide()
            else:
                await asyncio.wait_for(self.cond.wait_for(lambda: self.round != mine), 60)
            return self.answers[j]

    def _decide(self) -> None:
        members = [self.waiting[i] for i in range(self.size)]
        self.waiting = {}
        observations = [o for o, _ in members]
        first = members[0][1]
        if episode_key(first) != self.episode:
            self.episode = episode_key(first)
            self.view = _EpisodeView(self.iterations, [o.cell for o in observations])
            self.team.begin(self.view)
        if "good next" in first:
            assert self.view is not None  # (made at the episode's first decision, just above)
            self.view.good[first["iteration"]] = first["good next"] - 1
        self.answers = self.team.act(observations, self.rng.random((self.size, 2)))
        self.round += 1
        self.cond.notify_all()


_HUBS: dict[str, _Hub] = {}


class TeamMind(LambdaStarMind):
    """Any built-in agent type as a Mind: the minds of one ``team`` on this server (as many
    as the world's cohort has agents) act together through the in-process collective, so a
    remote collective behaves exactly as a local one: every member's observation first, then
    the communication phase, then everyone's action. ``agent`` is the type's key (``woc``,
    ``bidding``, ``dictator``, ``imitative``, ``stigmergy``, ``local``, ``random``...);
    ``imitative`` needs a world serving oracle hints."""

    def __init__(self, agent: str = "woc", team: str = "", seed: int = 0, gamma: float = 0.5) -> None:
        from .agents import TEAMS

        super().__init__(seed)
        if agent not in TEAMS or TEAMS[agent].replays or agent in ("oracle", "qlearning", "sarsa",
                                                                    "shared-q", "shared-sarsa"):
            raise ValueError(f"TeamMind plays random, local, stigmergy, woc, bidding, dictator or "
                             f"imitative (not {agent!r}; use OracleMind, QLearningMind or SarsaMind)")
        self.agent, self.team_name, self.seed, self.gamma = agent, team or agent, seed, gamma

    async def get_action(self, state: str) -> Suggestion:
        doc = read_state(state)
        if doc.get("finished"):
            return Suggestion.cannot("the test is over")
        if not all(isinstance(doc.get(k), int) and doc[k] >= 1 for k in ("agent", "agents", "iterations")):
            raise Refusal("bad-parameters", 'a team needs "agent", "agents" and "iterations" in '
                          "the Λ* state (whole numbers from 1)")
        hub = _HUBS.get(self.team_name)
        if hub is None or hub.size != doc["agents"]:
            hub = _HUBS[self.team_name] = _Hub(self.agent, doc, self.seed, {"gamma": self.gamma})
        try:
            action = await hub.act(doc)
        except TimeoutError:
            return Suggestion.cannot(
                f"the other members of team {self.team_name!r} did not ask within 60 s")
        return Suggestion(action=str(action + 1))


MINDS: dict[str, type[LambdaStarMind]] = {
    "random": RandomMind, "local": LocalSearchMind, "oracle": OracleMind,
    "stigmergy": TrailMind, "qlearning": QLearningMind, "shared-q": QLearningMind,
    "sarsa": SarsaMind, "shared-sarsa": SarsaMind, "woc": TeamMind, "bidding": TeamMind,
    "dictator": TeamMind, "imitative": TeamMind,
}
"""Agent key -> the Mind class that plays it over the network (collectives: give the minds
one ``team`` name; TeamMind also takes ``agent=KEY``)."""
