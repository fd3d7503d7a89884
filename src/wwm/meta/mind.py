"""Meta(A) as a WWM Mind: ``wwm serve wwm.meta.mind:MetaMind --port N``.

Each "Get action" is one act of Meta(HCH(A, n)) on the state x; Meta's state message carries
over between steps of a run. A is the scripted policy or any Mind server (``amplify=URL``), a person at a web page
included: ``amplify=`` the URL of a ``wwm.people:PersonMind``.
``amplify=scripted-listener`` makes a patient listener for ``wwm.kit.eliza_world``.
When Meta cannot read the tree's answer as a string the mind says "Cannot suggest action"
with the reason. :class:`ScriptedMind` serves the scripted policy itself as a Mind, so a
Meta(A) whose A sits across the network can be tried end to end.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion
from .agents import parse_transcript
from .meta import DecodeError, Meta, MetaStep
from .scripted import ScriptedPolicy
from .session import Session, Settings, SettingsError


class MetaMind(Mind):
    """Meta(HCH(A, budget)): a mind whose every action is worked out by copies of A.

    ``amplify`` names A: ``scripted`` (echoes), ``scripted-listener`` (hands the state back
    as a question) or a Mind server's URL; ``budget`` is each top-level question's; ``memo``
    answers screens A has answered before; ``store`` is an SQLite file that records every
    question (and keeps the memo between runs); ``budget_display`` is ``rounded`` or
    ``exact``; ``split`` is ``all`` or ``tenth`` (what an ask hands over by default).

    The work on a question stops at once when its asker stops waiting: a client that times
    out (the server cancels the answering) or an End run sent meanwhile; what was done so
    far is recorded in the store as a stopped step. With a ``store``, A's answers are
    journaled as they come, and the run can be snapshotted (``wwm serve --state``): a server
    killed in the middle of a question and restarted answers it again by replaying the
    journal, asking A only for what it had not answered yet.
    """

    state_format = "any text: it is Meta(A)'s observation"
    action_format = "the string Meta(A) returns"

    def __init__(self, amplify: str = "scripted", budget: int = 10 ** 6, memo: bool = True,
                 store: str = "", budget_display: str = "rounded", split: str = "all",
                 retries: int = 3) -> None:
        if amplify == "human" or amplify.startswith("lines:"):
            raise Refusal("bad-parameters", f"amplify={amplify!r} cannot serve a mind: use 'scripted', "
                                            f"'scripted-listener' or a Mind server URL (for a person, the URL "
                                            f"of a person-mind: wwm serve wwm.people:PersonMind)")
        self.settings = Settings(amplify, budget, memo, store or None, budget_display, split, retries)
        try:
            self.settings.check()
        except SettingsError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        self.session: Session | None = None
        self.steps = 0
        self._state_key: str | None = None  # Meta's state, in the store, for a restored run
        self._working: asyncio.Task[MetaStep] | None = None

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted:
        await super().new_run(client_url, world_display_url, world_run_id)
        await self._open()
        return RunStarted()

    async def _open(self) -> Session:
        from sqlalchemy.exc import DatabaseError

        try:
            session = await Session.open(self.settings)
        except (SettingsError, OSError) as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        except DatabaseError as exc:
            raise Refusal("bad-parameters", f"store={self.settings.store!r} cannot be used: {exc.orig}") from None
        if self.settings.store:
            session.store.memo.durable = True  # the journal: each answer of A written as it comes
        if self._state_key is not None:  # a run restored after a restart: Meta's state as it was
            session.meta = Meta(session.hch, session.store.load_message(self._state_key), self.settings.retries)
        self.session = session
        return session

    async def get_action(self, state: str) -> Suggestion:
        session = self.session or await self._open()
        session.hch.started = []  # this step's questions, kept to record them if it is stopped
        self._working = working = asyncio.ensure_future(session.meta.step(state))
        try:
            step = await working
        except DecodeError as exc:
            return Suggestion.cannot(f"Meta(A) could not read the answer: {exc}")
        except (Refusal, OSError, TimeoutError) as exc:  # A is a Mind server that failed
            return Suggestion.cannot(f"A did not answer: {exc}")
        except asyncio.CancelledError:
            task = asyncio.current_task()
            asker_gone = task is not None and task.cancelling() > 0
            ops = self._record_stopped(session, state, "the asker stopped waiting" if asker_gone else "End run")
            if asker_gone:
                raise
            return Suggestion.cannot(f"the run was ended while Meta(A) was working; it stopped after {ops} "
                                     f"operations")
        finally:
            self._working = None
        session.meta = step.meta
        self.steps += 1
        if self.settings.store:
            self._state_key = session.store.save(step.meta.state)
        session.store.record(f"step {self.steps}: {state[:60]}", step.calls)
        return Suggestion(step.action)

    def _record_stopped(self, session: Session, state: str, why: str) -> int:
        """Record the unfinished questions of a stopped step; the operations they had cost."""
        calls = list(session.hch.started or ())
        ops = sum(c.totals()["ops"] for c in calls)
        session.store.record(f"step {self.steps + 1} stopped ({why}) after {ops} operations: {state[:60]}", calls)
        return ops

    async def end_run(self, score: float | None = None) -> float | None:
        if self._working is not None and not self._working.done():
            self._working.cancel()
        return None

    # ---- snapshots (wwm serve --state): the settings and where Meta's state is -------------
    def __getstate__(self) -> dict[str, Any]:
        if not self.settings.store:
            raise TypeError("a MetaMind without a store keeps its state in memory only: give store=FILE "
                            "for its runs to survive a restart")
        state = dict(self.__dict__)
        state.update(session=None, _working=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


class ScriptedMind(Mind):
    """The scripted A as a Mind: the state is a rendered transcript, the action its next line."""

    state_format = "an HCH transcript: screens, each earlier line typed shown as '>>> line'"
    action_format = "one command line"

    def __init__(self) -> None:
        self.policy = ScriptedPolicy()

    async def get_action(self, state: str) -> Suggestion:
        observations, actions = parse_transcript(state)
        return Suggestion(await self.policy.decide(observations, actions))
