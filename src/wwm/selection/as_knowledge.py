"""What an Action Selection server's method learns (Hierarchical Q's Q(x,i), Collective W's
W(x,i)), kept per client (7.3, 9.2.1): recalled at New run, saved every ``SAVE_EVERY`` steps
and at End run. Its own module so the AS's deciding and its members' lifecycle do not carry it.

The tables are saved under an identity (the AS's class, the method, gamma and its minds by
URL and arguments, in any order), so a client's next run over the same society starts from
its own tables, and "Other client URL" starts from another client's instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..protocol.errors import Refusal
from .learning.knowledge import KnowledgeStore
from .methods import Method
from .panel import Member

SAVE_EVERY = 1000  # steps between saves of what the AS learns (and at End run)


class KnowledgeKeeper:
    """Recalls and saves one AS's method tables per client. ``owner`` names the AS's class in
    the identity (so another class's tables are never taken for its own)."""

    def __init__(self, owner: type, keep: bool = True) -> None:
        self.owner = f"{owner.__module__}.{owner.__qualname__}"
        self.store = KnowledgeStore()   # what the method learns (Q(x,i), W(x,i)), per client (7.3)
        self.keep = keep
        self.learnt_from: str | None = None  # the client whose tables this run started from
        self.learnt_steps = 0

    @staticmethod
    def names(members: Iterable[Member]) -> dict[int, str]:
        """Each member's name in a saved table: its URL, with the arguments written for it
        (the same server with other arguments is another mind); a repeat gets #2, #3, ..."""
        names: dict[int, str] = {}
        seen: dict[str, int] = {}
        for m in sorted(members, key=lambda m: m.ident):
            name = m.url + (" " + json.dumps(m.args, sort_keys=True) if m.args else "")
            seen[name] = seen.get(name, 0) + 1
            names[m.ident] = name if seen[name] == 1 else f"{name}#{seen[name]}"
        return names

    def identity(self, method: Method, gamma: float, members: Iterable[Member]) -> str:
        """What the saved learning is for: this method over these minds (any order)."""
        minds = "\n".join(sorted(self.names(members).values()))
        return f"{self.owner}|{method.name}|{gamma:g}|{minds}"

    def recall(self, method: Method, gamma: float, members: list[Member], client_url: str | None,
               other_client_url: str | None) -> None:
        """Start ``method`` from what it learnt with this client, or with ``other_client_url``
        ("the Mind you learnt with client c", which must exist: ``other-client-unknown``)."""
        if method.knowledge({}) is None or not self.keep:  # a method that learns nothing
            if other_client_url:
                why = "keeps nothing (keep=false)" if not self.keep else \
                    f"runs method {method.name!r}, which learns nothing of its own"
                raise Refusal("other-client-unknown", f"this Action Selection server {why}, so nothing "
                              "was learnt with any client")
            return
        data = self.store.recall(self.identity(method, gamma, members), client_url, other_client_url,
                                 detail=f" (with method {method.name!r} over these minds)")
        if data is not None:
            method.load(data, {name: ident for ident, name in self.names(members).items()})
            self.learnt_from = other_client_url or client_url

    def save(self, method: Method, gamma: float, members: list[Member], client_url: str | None) -> None:
        """Keep what ``method`` has learnt with this client (unless ``keep`` is off)."""
        if not self.keep:
            return
        data = method.knowledge(self.names(members))
        if data is not None:
            self.store.save(self.identity(method, gamma, members), client_url, data)

    def stepped(self, method: Method, gamma: float, members: list[Member], client_url: str | None) -> None:
        """One more step learnt; every ``SAVE_EVERY`` a save (a run that never ends keeps
        its learning too)."""
        self.learnt_steps += 1
        if self.learnt_steps % SAVE_EVERY == 0:
            self.save(method, gamma, members, client_url)


__all__ = ["SAVE_EVERY", "KnowledgeKeeper"]
