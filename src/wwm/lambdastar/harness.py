"""The test harness on the plain engine: play every episode of a battery with one team,
score it by Definitions 2 and 3, and break the score down by pattern complexity K.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import agents as agent_types
from .agents.base import Team
from .engine import Environment, Episode
from .episodes import EpisodeSet
from .landscape import LandscapeEpisode, LandscapeSet


@dataclass(frozen=True, slots=True)
class Setting:
    """One test: which agents, how many, and how the episodes are played."""

    agent: str
    size: int = 1
    observation_range: int = 1
    coordination: bool = False
    gamma: float = 0.5       # stigmergy fake-reward factor (paper profile)
    replays: int | None = None  # learners' training replays per episode (None: the profile's)

    def team(self, episodes: EpisodeSet | LandscapeSet) -> Team:
        return agent_types.make(self.agent, self.size, episodes.grid, episodes.profile,
                                episodes.iterations, self.observation_range,
                                gamma=self.gamma, replays=self.replays)


@dataclass(frozen=True, slots=True)
class KBand:
    k_min: int
    k_max: int
    episodes: int
    score: float
    stderr: float


class MeanOfEpisodes:
    """Υ and its standard error, for any result that holds one score per episode in ``scores``."""

    __slots__ = ()
    scores: np.ndarray

    @property
    def upsilon(self) -> float:
        """Υ(Π), Definition 3: the mean of the episode scores."""
        return float(self.scores.mean())

    @property
    def stderr(self) -> float:
        """The standard error of Υ (nan for a single episode)."""
        n = len(self.scores)
        return float(self.scores.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")


@dataclass(slots=True)
class Scores(MeanOfEpisodes):
    """Per-episode group scores R̄ (Definition 2) and their complexities; with ``coverage``
    (``[ω, n]``) the share of the grid's cells each agent stood on in the scored run of each
    episode, start cell included, and with ``team_coverage`` (``[ω]``) the share any member
    stood on (section 6.1: "monitoring which neighborhoods are/are not explored")."""

    setting: Setting
    scores: np.ndarray
    complexity: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    coverage: np.ndarray | None = None
    team_coverage: np.ndarray | None = None


    def by_complexity(self, bins: list[tuple[int, int]] | None = None) -> list[KBand]:
        if bins is None:
            from .battery import bands
            bins = bands(int(self.complexity.min()), int(self.complexity.max()), 4)
        out = []
        for lo, hi in bins:
            sel = self.scores[(self.complexity >= lo) & (self.complexity <= hi)]
            se = float(sel.std(ddof=1) / np.sqrt(len(sel))) if len(sel) > 1 else float("nan")
            out.append(KBand(lo, hi, len(sel), float(sel.mean()) if len(sel) else float("nan"), se))
        return out


def play(setting: Setting, episodes: EpisodeSet | LandscapeSet,
         progress: Callable[[int], None] | None = None) -> Scores:
    """Play every episode with a fresh team state; the plain, one-step-at-a-time engine."""
    _check(setting, episodes)
    team = setting.team(episodes)
    n = setting.size
    draws = episodes.all_draws(n)
    scores = np.empty(len(episodes))
    visited = np.zeros((len(episodes), n, episodes.grid.size), dtype=bool)
    for e in range(len(episodes)):
        if team.replays:
            training = episodes.training_draws(e, team.replays, n)
            team.training = True
            for r in range(team.replays):
                _run(team, _episode(setting, episodes, e), training[r])
            team.training = False
        scores[e] = _run(team, _episode(setting, episodes, e), draws[e], visited[e])
        team.end_episode()
        if progress is not None:
            progress(1)
    return Scores(setting, scores, episodes.complexity.copy(), coverage=visited.mean(axis=2),
                  team_coverage=visited.any(axis=1).mean(axis=1))


def _episode(setting: Setting, episodes: EpisodeSet | LandscapeSet, e: int) -> Episode | LandscapeEpisode:
    """Λ* or the fitness landscape: a landscape set makes its own episodes."""
    if isinstance(episodes, LandscapeSet):
        return episodes.episode(e, setting.size, observation_range=setting.observation_range,
                                coordination=setting.coordination)
    return Episode(episodes, e, setting.size, observation_range=setting.observation_range,
                   coordination=setting.coordination)


def _run(team: Team, env: Environment, draws: np.ndarray, visited: np.ndarray | None = None) -> float:
    """Play one episode; ``visited`` (``[n, N]``), if given, marks the cells each agent stands on."""
    team.begin(env)
    agents = np.arange(len(env.positions))
    if visited is not None:
        visited[agents, env.positions] = True
    for i in range(env.iterations):
        actions = team.act(env.observe(), draws[i])
        rewards = env.step(actions)
        team.feedback(rewards, env.positions)
        if visited is not None:
            visited[agents, env.positions] = True
    return env.score()


def _check(setting: Setting, episodes: EpisodeSet | LandscapeSet) -> None:
    """Refuse settings no engine can play, with the same words in both engines."""
    if setting.agent == "stigmergy" and not 0.0 < setting.gamma < 1.0:
        raise ValueError(f"the fake-reward factor γ must be in (0, 1) (got {setting.gamma})")
    if setting.replays is not None and setting.replays < 0:
        raise ValueError(f"replays must be 0 or more (got {setting.replays})")
    k = setting.observation_range
    if k < 1 or 2 * k + 1 > min(episodes.grid.rows, episodes.grid.cols):
        raise ValueError(f"observation range {k} does not fit a {episodes.grid.rows}x"
                         f"{episodes.grid.cols} grid (need 1 <= k and 2k+1 <= the grid side)")
    if setting.size > episodes.grid.size:
        raise ValueError(f"{setting.size} agents do not fit on a "
                         f"{episodes.grid.rows}x{episodes.grid.cols} grid")
