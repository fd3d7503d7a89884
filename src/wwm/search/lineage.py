"""Searches and people on one record (section 12.3): with ``--portal-db``, every candidate a
search evaluates is saved in the portal as a combination (``derived_from`` the combination
the search started from, if any), every run of it is a portal run in the portal's run store,
and each trial is kept with the search (``portal_search_trials``): its state, its score, and
the search's best combination before it. A search's good candidates then enter the World's
Top 10 beside people's, scored by the same runs, and anyone can open, run, edit or search
again from them.

``space_from_combination`` goes the other way: a search that starts from any combination,
whose AS members are its candidates.
"""

from __future__ import annotations

import math
from typing import Any

from ..client.society import SocietyError, parse
from ..portal.models import Combination
from ..portal.store import PortalStore
from ..store import RunStore
from ..store.recorder import StoreRecorder
from .candidates import Proposal
from .engine import SearchSettings, TrialDone
from .space import Space, SpaceError, build

BOT = "wwm-search"   # the account searches save under


class _PortalRecorder(StoreRecorder):
    """A run store recorder that also keeps the portal run's status."""

    def __init__(self, lineage: Lineage, portal_run: int, **kwargs: Any) -> None:
        super().__init__(lineage.runs, **kwargs)
        self.lineage = lineage
        self.portal_run = portal_run

    def on_start(self, result: Any) -> None:
        super().on_start(result)
        assert self.run_id is not None
        self.lineage.store.link_run(self.portal_run, self.run_id)

    def on_finish(self, result: Any) -> None:
        super().on_finish(result)
        self.lineage.runs.flush()
        self.lineage.store.set_run(self.portal_run, status=result.status[:40], ended=True)


class Lineage:
    """Records one worker's trials in the portal database at ``url``."""

    def __init__(self, url: str, space: Space, settings: SearchSettings, start: int | None = None) -> None:
        world = space.base.world.url
        if space.worlds:
            raise SpaceError("--portal-db: a combination is a society in one World; search one World at a time "
                             "on the portal (leave out worlds)")
        if world is None:
            raise SpaceError("--portal-db: the portal records Worlds by URL; the space's World is a local class")
        self.store = PortalStore(url)
        self.runs = RunStore(url)
        self.space = space
        self.world_url = world
        self.start = start
        self.author = self.store.bot_user(BOT)
        self.search_id = self.store.open_search(study=settings.study or space.name, sampler=settings.sampler,
                                                space=space.as_dict(), author_id=self.author, start_id=start).id
        self.settings = settings
        # id(proposal) -> (the proposal, kept so that its id is never reused, its combination id)
        self._saved: dict[int, tuple[Proposal, int]] = {}
        self._best: tuple[float, int] | None = None
        self.recorded = 0

    def close(self) -> None:
        self.runs.close()
        self.store.close()

    def combination_of(self, proposal: Proposal, number: int | None = None) -> int:
        key = id(proposal)
        if key not in self._saved:
            explanation = (f"Proposed by the automated search **{self.settings.study or self.space.name}** "
                           f"({self.settings.sampler} sampler{f', trial {number}' if number is not None else ''}): "
                           f"the {proposal.method} method over {', '.join(proposal.members)}.")
            title = f"{self.space.name} · {proposal.method} over {len(proposal.members)} minds"
            saved = self.store.save_combination(author_id=self.author, title=title, document=proposal.document,
                                                world_url=self.world_url, explanation=explanation,
                                                derived_from=self.start)
            self._saved[key] = (proposal, saved.id)
        return self._saved[key][1]

    def recorder_for(self, proposal: Proposal, seed: int | None) -> StoreRecorder:
        """A recorder for one evaluation run: a portal run of the candidate's combination."""
        combination = self.combination_of(proposal)
        portal_run = self.store.new_run(combination, self.author, self.space.base.run.steps).id
        mind = proposal.document["mind"]
        return _PortalRecorder(self, portal_run, mind_url=str(mind.get("url") or mind.get("class")),
                               world_url=self.world_url, society=proposal.document,
                               name=f"search {self.search_id} seed {seed}")

    def record(self, done: TrialDone) -> None:
        combination = self.combination_of(done.proposal, done.number) if done.proposal is not None else None
        score = done.values[0] if done.values else None
        best_before = self._best[1] if self._best else None
        self.store.record_trial(self.search_id, done.number, state=done.state, combination_id=combination,
                                score=score, reason=done.reason, best_before=best_before)
        if score is not None and combination is not None and math.isfinite(score) and (
                self._best is None or score > self._best[0]):
            self._best = (score, combination)
        self.recorded += 1


def space_from_combination(url: str, combination_id: int, extra: dict[str, Any] | None = None) -> Space:
    """A search space starting from a saved combination: its World, its AS (with the AS's
    arguments) and run settings; its AS members are the candidates; ``extra`` (a space
    document without society, world or mind) adds candidates and says what varies."""
    store = PortalStore(url)
    try:
        combination: Combination = store.combination(combination_id)
    finally:
        store.close()
    try:
        society = parse(combination.document, f"combination {combination_id}")
    except SocietyError as exc:
        raise SpaceError(str(exc)) from None
    if not society.mind.args.get("minds"):
        raise SpaceError(f"combination {combination_id}'s mind has no member minds (minds) to search over; "
                         "a search starts from an Action Selection society")
    doc = {"name": f"from combination {combination_id}", **(extra or {})}
    return build(doc, f"combination {combination_id}", base=society)
