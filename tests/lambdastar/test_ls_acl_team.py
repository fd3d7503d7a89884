"""A Λ* collective that coordinates by Contract Net plays exactly as the bidding collective
(paper profile) while every auction is a checked conversation that forms and disbands a team."""

from __future__ import annotations

import numpy as np

from wwm.lambdastar.agents.acl_team import ContractNetCollective
from wwm.lambdastar.agents.collectives import BiddingTeam
from wwm.lambdastar.engine import Episode
from wwm.lambdastar.episodes import generate


def _play(team, episodes, e: int, draws: np.ndarray) -> tuple[float, list]:
    env = Episode(episodes, e, team.size)
    team.begin(env)
    moves = []
    for i in range(env.iterations):
        actions = team.act(env.observe(), draws[i])
        moves.append(actions)
        team.feedback(env.step(actions), env.positions)
    return env.score(), moves


def test_contract_net_collective_matches_the_bidding_collective() -> None:
    episodes = generate(7, 12, 3, profile="paper", seed=5)
    draws = episodes.all_draws(4)
    for e in range(len(episodes)):
        acl = ContractNetCollective(4, episodes.grid, episodes.profile, episodes.iterations)
        plain = BiddingTeam(4, episodes.grid, episodes.profile, episodes.iterations)
        assert _play(acl, episodes, e, draws[e]) == _play(plain, episodes, e, draws[e])
        assert len(acl.conversations) == 12 and acl.messages >= 12 * 7
        assert acl.teams_formed > 0 and acl.settled()
