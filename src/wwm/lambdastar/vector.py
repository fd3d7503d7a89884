"""The vectorised Λ* engine: every episode of a battery advanced at once with numpy, for
the built-in agents. It reads the same :class:`EpisodeSet` (trajectories, start cells and
random draws) as the plain engine and makes the same choices, so it gives the same scores
for the same seed; ``tests/lambdastar/test_ls_engines.py`` holds it to that.

Rewards are integer half-units throughout, as in the plain engine.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from .episodes import EpisodeSet
from .harness import Scores, Setting, _check
from .profiles import profile as get_profile
from .torus import torus

Q_TABLE_BYTES = 256 * 2 ** 20  # memory for the learners' Q-tables of one chunk of episodes
VISITED_BYTES = 64 * 2 ** 20   # memory for the cells visited by each agent in one chunk
SUPPORTED = ("random", "local", "oracle", "stigmergy", "woc", "bidding", "dictator", "imitative",
             "qlearning", "shared-q", "sarsa", "shared-sarsa")


def _tie_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a 9-bit mask of maxima: how many there are, and the position of the m-th."""
    bits = (np.arange(512)[:, None] >> np.arange(9)) & 1
    chosen = np.zeros((512, 9), dtype=np.intp)
    for mask in range(512):
        where = np.flatnonzero(bits[mask])
        chosen[mask, :len(where)] = where
    weights = (1 << np.arange(9)).astype(np.int16)
    return bits.sum(1), chosen.ravel(), weights


_COUNT, _CHOSEN, _WEIGHTS = _tie_tables()


def pick_best(values: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Along the first axis: the position of the ⌊u·count⌋-th maximum (as the plain engine).
    The candidates sit on the first axis so the reductions run element-wise over whole rows;
    nine candidates (a range-1 neighbourhood) go through a 9-bit mask and two small tables."""
    ismax: np.ndarray = values == values.max(axis=0)
    if len(values) == 9:
        mask = (ismax * _WEIGHTS.reshape((9,) + (1,) * (ismax.ndim - 1))).sum(axis=0)
        k = (u * _COUNT.take(mask)).astype(np.intp)
        chosen: np.ndarray = _CHOSEN.take(mask * 9 + k)
        return chosen
    cum = np.add.accumulate(ismax, axis=0, dtype=np.int32)
    k = (u * cum[-1]).astype(np.int32)
    place: np.ndarray = np.add.reduce(cum <= k, axis=0, dtype=np.int32)
    return place


def pick_best_last(values: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The same along the last axis (for wide candidate sets such as the whole grid)."""
    ismax: np.ndarray = values == values.max(axis=-1, keepdims=True)
    k = (u * ismax.sum(axis=-1)).astype(np.int64)
    place: np.ndarray = np.argmax(ismax.cumsum(axis=-1) > k[..., None], axis=-1)
    return place


@lru_cache(maxsize=8)
def _pair_field(rows: int, cols: int, profile_name: str, k: int) -> np.ndarray:
    """``field[(good·N + evil)·N + cell]``: half-units of reward at a cell for every placement
    of Good and Evil, so an observation is one gather (built once per grid and profile)."""
    g = torus(rows, cols)
    pay: np.ndarray = get_profile(profile_name).reward_by_distance(k, g.size)[g.distance].astype(np.int8)
    field: np.ndarray = (pay[:, None, :] - pay[None, :, :]).ravel()
    return field


class _Batch:
    """The state of many episodes of one setting, advanced one iteration at a time.
    Observations are ``[C, E, n]``: neighbourhood cell first, then episode, then agent."""

    PAIR_TABLE_LIMIT = 160  # cells; above it the (Good, Evil, cell) table would be too big

    def __init__(self, setting: Setting, episodes: EpisodeSet) -> None:
        self.setting = setting
        self.set = episodes
        self.grid = g = episodes.grid
        self.profile = episodes.profile
        self.E = len(episodes)
        self.n = setting.size
        self.T = episodes.iterations
        N = self.N = g.size
        table = g.neighbourhood_table(setting.observation_range)
        self.cells_of = np.ascontiguousarray(table.T).astype(np.intp)
        payoff = self.profile.reward_by_distance(setting.observation_range, N)
        self.pay = payoff[g.distance].astype(np.int8)  # pay[object cell, cell]
        self.rows = np.arange(self.E)[:, None]
        self.moves = g.moves.astype(np.intp).ravel()
        self.good_t = episodes.good.astype(np.intp)
        self.evil_t = episodes.evil.astype(np.intp)
        if N <= self.PAIR_TABLE_LIMIT and not setting.coordination:
            self.field: np.ndarray | None = _pair_field(g.rows, g.cols, self.profile.name,
                                                        setting.observation_range)
            self.base = np.ascontiguousarray(((self.good_t * N + self.evil_t) * N).T)[:, :, None]
        else:
            self.field = None
        self.pay_flat = self.pay.ravel()

    def reset(self) -> None:
        self.pos = self.set.starts(self.n).astype(np.intp).copy()
        self.total = np.zeros((self.E, self.n), dtype=np.int64)
        # the cells each agent has stood on, as flat indices into [E, n, N]
        self.visited = np.zeros(self.E * self.n * self.N, dtype=bool)
        self.slots = (np.arange(self.E * self.n) * self.N).reshape(self.E, self.n)
        self.visited[self.slots + self.pos] = True

    def at(self, t: int, cells: np.ndarray) -> np.ndarray:
        """Half-units of reward at ``cells`` (``[..., E, n]``) with the objects at iteration t."""
        reward: np.ndarray
        if self.field is not None:  # base: [T+1, E, 1]
            reward = self.field.take(cells + self.base[t])
            return reward
        N = self.N
        g = self.good_t[:, t][:, None] * N
        e = self.evil_t[:, t][:, None] * N
        reward = self.pay_flat.take(cells + g).astype(np.int16) - self.pay_flat.take(cells + e)
        return reward

    def observe(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Cells ``[C, E, n]`` and rewards in half-units before iteration ``i`` (1-based)."""
        cells = self.cells_of.take(self.pos, axis=1)
        if i == 1 and self.profile.first_observation_bug:
            return cells, np.where(cells == 0, -1, 0).astype(np.int8)
        return cells, self.at(i - 1, cells)

    def step(self, i: int, actions: np.ndarray) -> np.ndarray:
        self.pos = self.moves.take(self.pos * 9 + actions)
        self.visited[self.slots + self.pos] = True
        if self.setting.coordination:
            good = self.good_t[:, i][:, None]
            plus = self.pay[good, self.pos].astype(np.int16)
            near = (self.grid.distance[good, self.pos] <= 1).sum(axis=1, keepdims=True)
            plus = np.where(near >= 2, plus, 0)
            half: np.ndarray = plus - self.pay[self.evil_t[:, i][:, None], self.pos]
        else:
            half = self.at(i, self.pos)
        self.total += half
        return half

    def scores(self) -> np.ndarray:
        per_step: np.ndarray = (self.total.sum(axis=1) / 2.0) / (self.n * self.T)
        return per_step

    def coverage(self) -> tuple[np.ndarray, np.ndarray]:
        """``[E, n]`` share of the cells each agent stood on since the last reset, and
        ``[E]`` the share any of them stood on."""
        visited = self.visited.reshape(self.E, self.n, self.N)
        return visited.mean(axis=2), visited.any(axis=1).mean(axis=1)


def play(setting: Setting, episodes: EpisodeSet, chunk: int = 4096,
         progress: Callable[[int], None] | None = None) -> Scores:
    """Every episode at once (in chunks of ``chunk`` episodes to bound memory)."""
    if setting.agent not in SUPPORTED:
        raise ValueError(f"the vectorised engine has no {setting.agent!r} agent "
                         f"(it has {', '.join(SUPPORTED)})")
    _check(setting, episodes)
    learner = setting.agent in ("qlearning", "shared-q", "sarsa", "shared-sarsa")
    size = max(1, min(chunk, VISITED_BYTES // (setting.size * episodes.grid.size)))
    if learner:  # the chunk's Q-tables, [E, tables, ϑ, N, 9] floats, stay within Q_TABLE_BYTES
        tables = 1 if setting.agent.startswith("shared") else setting.size
        per_episode = tables * episodes.iterations * episodes.grid.size * 9 * 8
        size = max(1, min(size, 64, Q_TABLE_BYTES // per_episode))
    out: list[np.ndarray] = []
    cover: list[np.ndarray] = []
    team: list[np.ndarray] = []
    parts = [episodes] if len(episodes) <= size else episodes.split(-(-len(episodes) // size))
    for part in parts:
        batch = _Batch(setting, part)
        out.append(_learn_and_play(batch) if learner else _play(batch))
        agent_share, team_share = batch.coverage()
        cover.append(agent_share)
        team.append(team_share)
        if progress is not None:
            progress(len(part))
    return Scores(setting, np.concatenate(out), episodes.complexity.copy(),
                  coverage=np.concatenate(cover), team_coverage=np.concatenate(team))


# A built-in agent's policy: (iteration i, cells [C, E, n], rewards seen there, uniform draws
# [E, n]) -> actions [E, n]. The random agent is blind: it is handed empty arrays.
Policy = Callable[[int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
_UNSEEN = np.empty(0, dtype=np.intp)


def _play(b: _Batch) -> np.ndarray:
    b.reset()
    draws = np.stack([b.set.draws(j)[:, :, 0].T for j in range(b.n)], axis=2)  # [T, E, n]
    act = _POLICIES[b.setting.agent](b)
    blind = b.setting.agent == "random"
    for i in range(1, b.T + 1):
        cells, seen = (_UNSEEN, _UNSEEN) if blind else b.observe(i)
        b.step(i, act(i, cells, seen, draws[i - 1]))
    return b.scores()


def _toward(b: _Batch, target: np.ndarray) -> np.ndarray:
    action: np.ndarray = b.grid.approach[target, b.pos]
    return action


def _local_choice(cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index into the neighbourhood, cell) of each agent's local-search choice."""
    k = pick_best(seen, u)
    return k, np.take_along_axis(cells, k[None], axis=0)[0]


def _random(b: _Batch) -> Policy:
    return lambda i, cells, seen, u: (u * 9).astype(np.intp)


def _local(b: _Batch) -> Policy:
    if b.setting.observation_range == 1:  # the choice's index is the action (action order)
        return lambda i, cells, seen, u: pick_best(seen, u)
    return lambda i, cells, seen, u: _toward(b, _local_choice(cells, seen, u)[1])


def _oracle(b: _Batch) -> Policy:
    good = b.set.good
    if not b.profile.oracle_intercepts:
        return lambda i, cells, seen, u: _toward(b, np.broadcast_to(good[:, i][:, None], b.pos.shape))

    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        ahead = good[:, i:]                                        # [E, T-i+1]
        dist = b.grid.distance[b.pos[:, :, None], ahead[:, None, :]]
        reach = dist <= np.arange(1, ahead.shape[1] + 1)
        first = np.where(reach.any(-1), np.argmax(reach, -1), 0)
        aims = np.take_along_axis(ahead[:, None, :].repeat(b.n, 1), first[..., None], -1)
        return _toward(b, aims[..., 0])
    return act


def _stigmergy(b: _Batch) -> Policy:
    fake = np.zeros(b.E * b.N)
    gamma = b.setting.gamma
    base = (np.arange(b.E) * b.N)[:, None]

    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        r = seen / 2.0
        flat = cells + base                                         # [C, E, n]
        if b.profile.stigmergy_persistent:
            for j in range(b.n):
                c, rj = flat[:, :, j], r[:, :, j]
                f = (rj.max(0) + rj.min(0)) * 0.4
                old = fake[c]
                fake[c] = np.where(f != 0, (old + rj + f) / 3, old)
        else:
            fake[:] = -np.inf
            for j in range(b.n):
                c, rj = flat[:, :, j], r[:, :, j]
                rhat = gamma * rj.max(0) + (1 - gamma) * rj.min(0)
                fake[c] = np.maximum(fake[c], rj + rhat)
        return _toward(b, _local_choice(cells, fake[flat], u)[1])
    return act


def _woc(b: _Batch) -> Policy:
    crowd = np.zeros((b.E, b.N))
    flat_crowd = crowd.reshape(-1)
    base = (np.arange(b.E) * b.N)[:, None]

    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        r = seen / 2.0
        flat = cells + base
        for j in range(b.n):
            c, rj = flat[:, :, j], r[:, :, j]
            old = flat_crowd[c]
            flat_crowd[c] = np.where(rj != 0, (old + rj) / 2, old)
        return _toward(b, pick_best_last(crowd[:, None, :], u))
    return act


def _bidding(b: _Batch) -> Policy:
    state = {"highest": np.full(b.E, -np.inf), "target": np.zeros(b.E, dtype=np.intp)}

    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        if not b.profile.bidding_ratchets:
            state["highest"] = np.full(b.E, -np.inf)
        r = seen / 2.0
        choice = _local_choice(cells, seen, u)[1]
        for j in range(b.n):
            bid = r[:, :, j].max(0)
            win = bid >= state["highest"]
            state["highest"] = np.where(win, bid, state["highest"])
            state["target"] = np.where(win, choice[:, j], state["target"])
        return _toward(b, np.broadcast_to(state["target"][:, None], b.pos.shape))
    return act


def _dictator(b: _Batch) -> Policy:
    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        target = _local_choice(cells[:, :, :1], seen[:, :, :1], u[:, :1])[1]
        return _toward(b, np.broadcast_to(target, b.pos.shape))
    return act


def _imitative(b: _Batch) -> Policy:
    oracle = b.set.starts(b.n)[:, -1].astype(np.intp).copy()
    g = b.grid

    def act(i: int, cells: np.ndarray, seen: np.ndarray, u: np.ndarray) -> np.ndarray:
        nonlocal oracle
        good = b.set.good[:, i]
        local = _toward(b, _local_choice(cells, seen, u)[1])
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


_POLICIES: dict[str, Callable[[_Batch], Policy]] = {
    "random": _random, "local": _local, "oracle": _oracle, "stigmergy": _stigmergy, "woc": _woc,
    "bidding": _bidding, "dictator": _dictator, "imitative": _imitative}


def _learn_and_play(b: _Batch) -> np.ndarray:
    """Q-learning and SARSA, alone or sharing a table, with their training replays."""
    key = b.setting.agent
    shared = key.startswith("shared")
    sarsa = key.endswith("sarsa")
    tables = 1 if shared else b.n
    q = np.full((b.E, tables, b.T, b.grid.size, 9), b.profile.q_initial)
    replays = b.profile.replays if b.setting.replays is None else b.setting.replays
    scale, alpha, gamma = b.profile.q_training_scale, 0.3, 0.3
    first_slice = b.profile.q_bootstrap_first_slice
    table_of = np.zeros(b.n, dtype=np.int64) if shared else np.arange(b.n)
    rows = np.arange(b.E)
    if replays:
        training = np.stack([b.set.training_draws(e, replays, b.n) for e in range(b.E)])
    for r in range(replays):
        b.reset()
        planned: np.ndarray | None = None  # SARSA: the actions chosen for the next iteration
        for i in range(1, b.T + 1):
            s = i - 1
            values = q[rows[:, None], table_of[None, :], s, b.pos]          # [E, n, 9]
            actions = pick_best_last(values, training[:, r, s, :, 0])
            if sarsa and planned is not None:
                actions = planned
            before = b.pos
            half = b.step(i, actions)
            reward = half / 2.0 * scale
            nxt = s + 1
            upcoming = np.empty_like(actions) if sarsa and nxt < b.T else None
            for j in range(b.n):
                t = table_of[j]
                after = b.pos[:, j]
                if sarsa:
                    if upcoming is not None:
                        a2 = pick_best_last(q[rows, t, nxt, after], training[:, r, s, j, 1])
                        upcoming[:, j] = a2
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
            if upcoming is not None:
                planned = upcoming
    b.reset()
    draws = b.set.all_draws(b.n)
    for i in range(1, b.T + 1):
        values = q[rows[:, None], table_of[None, :], i - 1, b.pos]
        b.step(i, pick_best_last(values, draws[:, i - 1, :, 0]))
    return b.scores()
