"""Meta(A) as a WWM Mind: ``wwm serve wwm.meta.mind:MetaMind --port N``.

Each "Get action" is one act of Meta(HCH(A, n)) on the state x; Meta's state message carries
over between steps of a run. A is the scripted policy or any Mind server (``amplify=URL``).
``amplify=scripted-listener`` makes a patient listener for ``wwm.kit.eliza_world``.
When Meta cannot read the tree's answer as a string the mind says "Cannot suggest action"
with the reason. :class:`ScriptedMind` serves the scripted policy itself as a Mind, so a
Meta(A) whose A sits across the network can be tried end to end.
"""

from __future__ import annotations

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion
from .agents import parse_transcript
from .meta import DecodeError
from .scripted import ScriptedPolicy
from .session import Session, Settings, SettingsError


class MetaMind(Mind):
    """Meta(HCH(A, budget)): a mind whose every action is worked out by copies of A.

    ``amplify`` names A: ``scripted`` (echoes), ``scripted-listener`` (hands the state back
    as a question) or a Mind server's URL; ``budget`` is each top-level question's; ``memo``
    answers screens A has answered before; ``store`` is an SQLite file that records every
    question (and keeps the memo between runs); ``budget_display`` is ``rounded`` or
    ``exact``; ``split`` is ``all`` or ``tenth`` (what an ask hands over by default).
    """

    state_format = "any text: it is Meta(A)'s observation"
    action_format = "the string Meta(A) returns"

    def __init__(self, amplify: str = "scripted", budget: int = 10 ** 6, memo: bool = True,
                 store: str = "", budget_display: str = "rounded", split: str = "all",
                 retries: int = 3) -> None:
        if amplify == "human" or amplify.startswith("lines:"):
            raise Refusal("bad-parameters", f"amplify={amplify!r} cannot serve a mind: use 'scripted', "
                                            f"'scripted-listener' or a Mind server URL")
        self.settings = Settings(amplify, budget, memo, store or None, budget_display, split, retries)
        try:
            self.settings.check()
        except SettingsError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        self.session: Session | None = None
        self.steps = 0

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None) -> RunStarted:
        await super().new_run(client_url, world_display_url, world_run_id)
        from sqlalchemy.exc import DatabaseError

        try:
            self.session = await Session.open(self.settings)
        except (SettingsError, OSError) as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        except DatabaseError as exc:
            raise Refusal("bad-parameters", f"store={self.settings.store!r} cannot be used: {exc.orig}") from None
        return RunStarted()

    async def get_action(self, state: str) -> Suggestion:
        if self.session is None:
            await self.new_run()
        session = self.session
        assert session is not None  # (new_run opened it, or refused)
        try:
            step = await session.meta.step(state)
        except DecodeError as exc:
            return Suggestion.cannot(f"Meta(A) could not read the answer: {exc}")
        except (Refusal, OSError, TimeoutError) as exc:  # A is a Mind server that failed
            return Suggestion.cannot(f"A did not answer: {exc}")
        session.meta = step.meta
        self.steps += 1
        session.store.record(f"step {self.steps}: {state[:60]}", step.calls)
        return Suggestion(step.action)


class ScriptedMind(Mind):
    """The scripted A as a Mind: the state is a rendered transcript, the action its next line."""

    state_format = "an HCH transcript: screens, each earlier line typed shown as '>>> line'"
    action_format = "one command line"

    def __init__(self) -> None:
        self.policy = ScriptedPolicy()

    async def get_action(self, state: str) -> Suggestion:
        observations, actions = parse_transcript(state)
        return Suggestion(await self.policy.decide(observations, actions))
