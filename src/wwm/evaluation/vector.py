"""The vectorised Λ* engine: every episode of a battery advanced at once with numpy, for
the built-in agents. It reads the same :class:`EpisodeSet` (trajectories, start cells and
random draws) as the plain engine and makes the same choices, so it gives the same scores
for the same seed; ``tests/evaluation/test_vector.py`` holds it to that.

Rewards are integer half-units throughout, as in the plain engine.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..worlds.lambdastar.episodes import EpisodeSet
from .harness import Scores, Setting, _check

SUPPORTED = ("random", "local", "oracle", "stigmergy", "woc", "bidding", "dictator", "imitative",
             "qlearning", "shared-q", "sarsa", "shared-sarsa")


def pick_best(values: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Along the last axis: the position of the ⌊u·count⌋-th maximum (as the plain engine)."""
    ismax = values == values.max(axis=-1, keepdims=True)
    k = (u * ismax.sum(axis=-1)).astype(np.int64)
    return np.argmax(ismax.cumsum(axis=-1) > k[..., None], axis=-1)


class _Batch:
    """The state of many episodes of one setting, advanced one iteration at a time."""

    def __init__(self, setting: Setting, episodes: EpisodeSet) -> None:
        self.setting = setting
        self.set = episodes
        self.grid = g = episodes.grid
        self.profile = episodes.profile
        self.E = len(episodes)
        self.n = setting.size
        self.T = episodes.iterations
        self.cells_of = g.neighbourhood_table(setting.observation_range)
        payoff = self.profile.reward_by_distance(setting.observation_range, g.size)
        self.pay = payoff[g.distance].astype(np.int16)  # pay[object cell, cell]
        self.rows = np.arange(self.E)[:, None]

    def reset(self) -> None:
        self.pos = self.set.starts(self.n).astype(np.int64).copy()
        self.total = np.zeros((self.E, self.n), dtype=np.int64)

    def observe(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Cells ``[E, n, C]`` and rewards in half-units before iteration ``i`` (1-based)."""
        cells = self.cells_of[self.pos]
        if i == 1 and self.profile.first_observation_bug:
            return cells, np.where(cells == 0, -1, 0).astype(np.int16)
        good = self.set.good[:, i - 1][:, None, None]
        evil = self.set.evil[:, i - 1][:, None, None]
        return cells, self.pay[good, cells] - self.pay[evil, cells]

    def step(self, i: int, actions: np.ndarray) -> np.ndarray:
        self.pos = self.grid.moves[self.pos, actions]
        good = self.set.good[:, i][:, None]
        plus = self.pay[good, self.pos]
        if self.setting.coordination:
            near = (self.grid.distance[good, self.pos] <= 1).sum(axis=1, keepdims=True)
            plus = np.where(near >= 2, plus, 0)
        half = plus - self.pay[self.set.evil[:, i][:, None], self.pos]
        self.total += half
        return half

    def scores(self) -> np.ndarray:
        return (self.total.sum(axis=1) / 2.0) / (self.n * self.T)


def play(setting: Setting, episodes: EpisodeSet, chunk: int = 4096,
         progress: Callable[[int], None] | None = None) -> Scores:
    """Every episode at once (in chunks of ``chunk`` episodes to bound memory)."""
    if setting.agent not in SUPPORTED:
        raise ValueError(f"the vectorised engine has no {setting.agent!r} agent "
                         f"(it has {', '.join(SUPPORTED)})")
    _check(setting, episodes)
    learner = setting.agent in ("qlearning", "shared-q", "sarsa", "shared-sarsa")
    size = min(chunk, 64) if learner and setting.replays else chunk
    out = []
    for part in episodes.split(max(1, -(-len(episodes) // size))):
        batch = _Batch(setting, part)
        out.append(_learn_and_play(batch) if learner else _play(batch))
        if progress is not None:
            progress(len(part))
    return Scores(setting, np.concatenate(out), episodes.complexity.copy())


def _play(b: _Batch) -> np.ndarray:
    b.reset()
    draws = b.set.all_draws(b.n)  # [E, T, n, 2]
    act = _POLICIES[b.setting.agent](b)
    for i in range(1, b.T + 1):
        cells, seen = b.observe(i)
        b.step(i, act(i, cells, seen, draws[:, i - 1]))
    return b.scores()


def _toward(b: _Batch, target: np.ndarray) -> np.ndarray:
    return b.grid.approach[target, b.pos]


def _local_cells(cells, seen, u):
    return np.take_along_axis(cells, pick_best(seen, u)[..., None], axis=-1)[..., 0]


def _random(b):
    return lambda i, cells, seen, d: (d[..., 0] * 9).astype(np.int64)


def _local(b):
    return lambda i, cells, seen, d: _toward(b, _local_cells(cells, seen, d[..., 0]))


def _oracle(b):
    good = b.set.good
    if not b.profile.oracle_intercepts:
        return lambda i, cells, seen, d: _toward(b, np.broadcast_to(good[:, i][:, None], b.pos.shape))

    def act(i, cells, seen, d):
        ahead = good[:, i:]                                        # [E, T-i+1]
        dist = b.grid.distance[b.pos[:, :, None], ahead[:, None, :]]
        reach = dist <= np.arange(1, ahead.shape[1] + 1)
        first = np.where(reach.any(-1), np.argmax(reach, -1), 0)
        return _toward(b, np.take_along_axis(ahead[:, None, :].repeat(b.n, 1), first[..., None], -1)[..., 0])
    return act


def _stigmergy(b):
    fake = np.zeros((b.E, b.grid.size))
    gamma = b.setting.gamma
    rows = b.rows

    def act(i, cells, seen, d):
        r = seen / 2.0
        if b.profile.stigmergy_persistent:
            for j in range(b.n):
                c, rj = cells[:, j], r[:, j]
                f = (rj.max(-1) + rj.min(-1)) * 0.4
                old = fake[rows, c]
                fake[rows, c] = np.where((f != 0)[:, None], (old + rj + f[:, None]) / 3, old)
        else:
            fake[:] = -np.inf
            for j in range(b.n):
                c, rj = cells[:, j], r[:, j]
                rhat = gamma * rj.max(-1) + (1 - gamma) * rj.min(-1)
                fake[rows, c] = np.maximum(fake[rows, c], rj + rhat[:, None])
        vals = fake[rows[:, :, None], cells]
        return _toward(b, _local_cells(cells, vals, d[..., 0]))
    return act


def _woc(b):
    crowd = np.zeros((b.E, b.grid.size))
    rows = b.rows

    def act(i, cells, seen, d):
        r = seen / 2.0
        for j in range(b.n):
            c, rj = cells[:, j], r[:, j]
            old = crowd[rows, c]
            crowd[rows, c] = np.where(rj != 0, (old + rj) / 2, old)
        target = pick_best(crowd[:, None, :], d[..., 0])
        return _toward(b, target)
    return act


def _bidding(b):
    state = {"highest": np.full(b.E, -np.inf), "target": np.zeros(b.E, dtype=np.int64)}

    def act(i, cells, seen, d):
        if not b.profile.stigmergy_persistent:
            state["highest"] = np.full(b.E, -np.inf)
        r = seen / 2.0
        choice = _local_cells(cells, seen, d[..., 0])
        for j in range(b.n):
            bid = r[:, j].max(-1)
            win = bid >= state["highest"]
            state["highest"] = np.where(win, bid, state["highest"])
            state["target"] = np.where(win, choice[:, j], state["target"])
        return _toward(b, np.broadcast_to(state["target"][:, None], b.pos.shape))
    return act


def _dictator(b):
    def act(i, cells, seen, d):
        target = _local_cells(cells[:, :1], seen[:, :1], d[:, :1, 0])
        return _toward(b, np.broadcast_to(target, b.pos.shape))
    return act


def _imitative(b):
    oracle = b.set.starts(b.n)[:, -1].astype(np.int64).copy()
    g = b.grid

    def act(i, cells, seen, d):
        nonlocal oracle
        good = b.set.good[:, i]
        local = _toward(b, _local_cells(cells, seen, d[..., 0]))
        actions = np.empty_like(local)
        if not b.profile.imitative_moves_per_agent:
            oracle = g.moves[oracle, g.approach[good, oracle]]
        for j in range(b.n):
            if b.profile.imitative_moves_per_agent:
                oracle = g.moves[oracle, g.approach[good, oracle]]
            near = g.distance[b.pos[:, j], oracle] <= 1
            actions[:, j] = np.where(near, g.approach[oracle, b.pos[:, j]], local[:, j])
        return actions
    return act


_POLICIES = {"random": _random, "local": _local, "oracle": _oracle, "stigmergy": _stigmergy,
             "woc": _woc, "bidding": _bidding, "dictator": _dictator, "imitative": _imitative}


def _learn_and_play(b: _Batch) -> np.ndarray:
    """Q-learning and SARSA, alone or sharing a table, with their training replays."""
    key = b.setting.agent
    shared = key.startswith("shared")
    sarsa = key.endswith("sarsa")
    tables = 1 if shared else b.n
    q = np.full((b.E, tables, b.T, b.grid.size, 9), b.profile.q_initial)
    replays = b.setting.replays
    scale, alpha, gamma = b.profile.q_training_scale, 0.3, 0.3
    first_slice = b.profile.q_bootstrap_first_slice
    table_of = np.zeros(b.n, dtype=np.int64) if shared else np.arange(b.n)
    rows = np.arange(b.E)
    if replays:
        training = np.stack([b.set.training_draws(e, replays, b.n) for e in range(b.E)])
    for r in range(replays):
        b.reset()
        planned = None
        for i in range(1, b.T + 1):
            s = i - 1
            values = q[rows[:, None], table_of[None, :], s, b.pos]          # [E, n, 9]
            actions = pick_best(values, training[:, r, s, :, 0])
            if sarsa and planned is not None:
                actions = planned
            before = b.pos
            half = b.step(i, actions)
            reward = half / 2.0 * scale
            nxt = s + 1
            if sarsa and nxt < b.T:
                planned = np.empty_like(actions)
            for j in range(b.n):
                t = table_of[j]
                after = b.pos[:, j]
                if sarsa:
                    if nxt < b.T:
                        a2 = pick_best(q[rows, t, nxt, after], training[:, r, s, j, 1])
                        planned[:, j] = a2
                        future = q[rows, t, s if first_slice else nxt, after, a2]
                    else:
                        future = 0.0
                elif first_slice:
                    future = q[rows, t, 0, after].max(-1)
                else:
                    future = q[rows, t, nxt, after].max(-1) if nxt < b.T else 0.0
                cell, a = before[:, j], actions[:, j]
                old = q[rows, t, s, cell, a]
                q[rows, t, s, cell, a] = old + alpha * (reward[:, j] + gamma * future - old)
    b.reset()
    draws = b.set.all_draws(b.n)
    for i in range(1, b.T + 1):
        values = q[rows[:, None], table_of[None, :], i - 1, b.pos]
        b.step(i, pick_best(values, draws[:, i - 1, :, 0]))
    return b.scores()
