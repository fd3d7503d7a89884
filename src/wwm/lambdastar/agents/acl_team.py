"""A Λ* collective that coordinates by Contract Net: each iteration agent 0 calls for
proposals, every other agent proposes the best reward it sees, the best bid wins and its
local-search choice becomes everyone's target. The same decisions as the bidding collective
(paper profile), but every message is a checked ACL act and each auction is a team formed
(accept) and disbanded (report, acknowledgement) in the commitment tracker.
"""

from __future__ import annotations

import numpy as np

from ...acl.engine import Engine
from ...acl.message import AID, ACLMessage
from ..engine import Observation
from ..profiles import Profile
from ..torus import Torus
from .base import Team

PROTOCOL = "fipa-contract-net"


class ContractNetCollective(Team):
    """Bidding by Contract Net: a fresh auction every iteration, ties to the later agent."""

    key, label = "acl-bidding", "Contract Net (ACL) collective"
    collective, isolated_form = True, "local"

    def __init__(self, size: int, grid: Torus, profile: Profile, iterations: int,
                 observation_range: int = 1) -> None:
        super().__init__(size, grid, profile, iterations, observation_range)
        self.names = [f"agent{j}" for j in range(self.size)]
        self.aids = [AID(n) for n in self.names]
        self.engines = [Engine(n) for n in self.names]
        self.messages = 0
        self.conversations: list[str] = []
        self.teams_formed = 0

    def _post(self, msg: ACLMessage) -> None:
        """Deliver ``msg``: the sender's and every receiver's engine must accept it."""
        assert msg.sender is not None  # (every message of the team's is made with its sender)
        parties = {msg.sender.name} | {r.name for r in msg.receivers}
        for j, name in enumerate(self.names):
            if name in parties:
                for verdict in self.engines[j].handle(msg):
                    if not verdict.accepted:
                        raise RuntimeError(f"{name} refused {msg.performative}: {verdict.reason}")
        self.messages += 1

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        bids = [float(o.rewards.max()) for o in observations]
        winner = 0
        if self.size > 1:
            winner = self._auction(len(self.conversations), bids)
        target = self.local_choice(observations[winner], draws[winner, 0])
        return [self.towards(target, o.cell) for o in observations]

    def _auction(self, n: int, bids: list[float]) -> int:
        conv = f"it{n}"
        self.conversations.append(conv)
        boss, others = self.aids[0], self.aids[1:]
        cfp = ACLMessage("cfp", boss, tuple(others), content="(lead the next move)", protocol=PROTOCOL,
                         conversation_id=conv, reply_with=f"{conv}.0")
        self._post(cfp)
        proposals = []
        for j, aid in enumerate(others, 1):
            p = ACLMessage("propose", aid, (boss,), content=f"(lead) :bid {bids[j]!r}", protocol=PROTOCOL,
                           conversation_id=conv, reply_with=f"{conv}.p{j}", in_reply_to=cfp.reply_with)
            self._post(p)
            proposals.append(p)
        # "whoever bids at least the highest bid so far": the last best bid wins, agent 0 first
        winner = max(range(self.size), key=lambda j: (bids[j], j))
        for j, p in enumerate(proposals, 1):
            answer = "accept-proposal" if j == winner else "reject-proposal"
            self._post(p.reply(answer, p.content, sender=boss, reply_with=f"{conv}.a{j}"))
        if winner:
            self.teams_formed += 1
            aid = self.aids[winner]
            accept = f"{conv}.a{winner}"
            self._post(ACLMessage("inform", aid, (boss,), content="(target chosen)", protocol=PROTOCOL,
                                  conversation_id=conv, reply_with=f"{conv}.d", in_reply_to=accept))
            self._post(ACLMessage("inform", boss, (aid,), content="(follow)", protocol=PROTOCOL,
                                  conversation_id=conv, reply_with=f"{conv}.k", in_reply_to=f"{conv}.d",
                                  user=(("X-act", "declare"),)))
        return winner

    def settled(self) -> bool:
        """Every auction ended, with no team left standing and nothing owed, in every view."""
        for e in self.engines:
            for conv in self.conversations:
                if not all(t.final for t in e.talks_of(conv)) or e.tracker.team(conv):
                    return False
            if any(r.active for r in e.tracker.records()):
                return False
        return True
