"""Nested minds (10.17, Digney 1996): besides Q(x,a) over actions, a Nested mind learns
Q(x,k), "do whatever mind k does", and in a competition may answer with k's URL instead of
an action, so k is called only if this mind wins. It is told who won (the winner's URL in
"Inform it about winner") and so also learns how good it is when k leads. Its peers can be
minds of the same collection or "passive" minds outside the competition (10.17.2).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...protocol.interfaces import Mind
from ...protocol.results import Suggestion, Values
from .qlearning import DEFAULT_ACTIONS, QLearningMind

PEER = "mind:"


def _peer_urls(peers: list[str] | str | None) -> list[str]:
    if peers is None:
        return []
    items = peers.replace(",", " ").split() if isinstance(peers, str) else list(peers)
    out = [p.strip() for p in items if p.strip()]
    for p in out:
        if not p.startswith(("http://", "https://")):
            raise ValueError(f"a peer must be the URL of a Mind server (http://...), not {p!r}")
    return out


class NestedMind(QLearningMind):
    """A Q-learner whose choices are its ``actions`` and its ``peers`` (Mind URLs). Other
    arguments as :class:`QLearningMind`. Asked plainly for an action ("Get action") while it
    prefers a peer, it calls the peer itself (section 9.2.2, note 1)."""

    title: ClassVar[str] = "Nested Q-learning mind"

    # QLearningMind's arguments spelt out (not **kwargs), so a server reads their types and
    # converts them from text ("--arg gamma=0", the XML wire) instead of passing strings on
    def __init__(self, peers: list[str] | str | None = None, actions: str | list[str] = DEFAULT_ACTIONS,
                 reward: str = "score", r: float | None = None, gamma: float = 0.9,
                 q_temperature: float | None = None, run_length: float = 10_000.0,
                 learn: bool = True, strength: float = 1.0, w: str = "learned",
                 w_initial: float = 0.0, update_winner: bool = False, w_temperature: float = 0.0,
                 view: str = "", pretrained: str | None = None, seed: int | None = None,
                 save_every: int = 1000) -> None:
        self.peers = _peer_urls(peers)
        base = actions.split(",") if isinstance(actions, str) else list(actions)
        super().__init__(actions=[a.strip() for a in base if a.strip()] + [PEER + p for p in self.peers],
                         reward=reward, r=r, gamma=gamma, q_temperature=q_temperature,
                         run_length=run_length, learn=learn, strength=strength, w=w, w_initial=w_initial,
                         update_winner=update_winner, w_temperature=w_temperature, view=view,
                         pretrained=pretrained, seed=seed, save_every=save_every)
        self._remotes: dict[str, Mind] = {}

    def _suggestion(self, a: int, key: str, with_w: bool) -> Suggestion:
        q = self.strength * self.table.value(key, a)
        w = self.strength * self.w_value(key) if with_w else None
        choice = self.actions[a]
        if choice.startswith(PEER):
            return Suggestion(mind_url=choice[len(PEER):], q=q, w=w)
        return Suggestion(choice, q=q, w=w)

    async def get_suggestion(self, state: str, q_temperature: Any = None,
                             w_temperature: Any = None, **step: Any) -> Suggestion:
        a = self._choose(state, q_temperature)
        self.x, self.a = state, a
        return self._suggestion(a, self.key(state), with_w=True)

    async def get_action(self, state: str, q_temperature: Any = None, **step: Any) -> Suggestion:
        a = self._choose(state, q_temperature)
        self.x, self.a = state, a
        s = self._suggestion(a, self.key(state), with_w=False)
        if s.mind_url is None:
            return s
        peer = await self._peer(s.mind_url)
        answer = await peer.get_action(state)
        return Suggestion(answer.action, q=s.q, mind_url=answer.mind_url, reason=answer.reason)

    async def _peer(self, url: str) -> Mind:
        mind = self._remotes.get(url)
        if mind is None:
            from ...client.remote import connect_mind

            remote = connect_mind(url)
            await remote.new_run(self.client)
            self._remotes[url] = mind = remote
        return mind

    async def inform_winner(self, state: str, obeyed: bool | None = None,
                            payment: float | None = None, winner_url: str | None = None,
                            action: str | None = None, score: float | None = None) -> Values:
        x = self.x
        values = await super().inform_winner(state, obeyed, payment, winner_url, action, score)
        peer = PEER + winner_url if winner_url else None
        if not obeyed and x is not None and self.learn and peer in self.actions:
            r = (values.q or 0.0) / self.strength
            self.table.update(self.key(x), self.actions.index(peer), r, self.key(state))
        return values

    async def end_run(self, score: float | None = None) -> float | None:
        for mind in self._remotes.values():
            try:
                await mind.end_run()
            except Exception:
                pass
            closer = getattr(mind, "aclose", None)
            if closer is not None:
                await closer()
        self._remotes.clear()
        return await super().end_run(score)
