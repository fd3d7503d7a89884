"""A person as a World (seed 000, 10.1.1): the person at a page says what the state is and
what each action scored.

``wwm serve wwm.people:PersonWorld``: at the first "Get state" the page
asks the person for the opening state (unless ``opening`` gives it); at each "Execute action"
it shows the action and asks for the new state, the score (blank: none) and whether the run
ends there. The Eliza test with a person on the world side is ``wwm run --mind URL-of-eliza
--world URL-of-this``. When nobody answers within ``timeout`` seconds the query is refused
with ``timeout`` and the reason, and the state stays what it was. The same query asked again
while it waits gets the same answer (the action is done once); another query of the run
replaces the waiting one, which is refused at once (``in-use``, saying so).
"""

from __future__ import annotations

import math
import weakref
from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted
from .desk import Answered, AtTheDesk, Desk, Replaced, Seat, Withdrawn
from .mind import NOBODY, check_page


def read_state(form: dict[str, Any]) -> str:
    text = str(form.get("state") or "").strip()
    if not text:
        raise ValueError("type the state (what the mind will see)")
    return text


def read_score(form: dict[str, Any]) -> float | None:
    raw = form.get("score")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        score = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"the score must be a number (or left blank), not {raw!r}") from None
    if not math.isfinite(score):
        raise ValueError(f"the score must be a finite number, not {raw!r}")
    return score


def read_outcome(form: dict[str, Any]) -> Outcome:
    return Outcome(read_state(form), read_score(form), finished=bool(form.get("finished")))


class PersonWorld(AtTheDesk, World):
    """A person acting as a world, at a web page: they see each action and type what follows.

    ``opening``: the first state (empty: the person types it); ``timeout``: seconds the person
    has for each answer; ``page_port``/``host``/``title``: as for :class:`~.mind.PersonMind`."""

    seed_section: ClassVar[str] = "5.5 (bring every agent online)"

    sharing = "own"
    state_format: ClassVar[str] = "what the person types as the state: any text"
    action_format: ClassVar[str] = "any text: the person reads it on their page as it is"

    def __init__(self, opening: str = "", timeout: float = 60.0, page_port: int = 0,
                 host: str = "127.0.0.1", title: str = "a person") -> None:
        check_page(timeout, page_port)
        self.opening = opening.strip()
        self.timeout = float(timeout)
        self.title = title
        self.find_desk(host, page_port)
        self.seat: Seat | None = None
        self.state: str | None = self.opening or None
        self.finished = False

    @classmethod
    def web_pages(cls, base_url: str) -> Any:
        """Served by ``wwm serve``, the person's page is the server's own, at ``base_url``."""
        return Desk.host(base_url).app

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("a person's page holds no state to snapshot: a restarted server seats the person again")

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        self.client_url = client_url
        self.seat = self.desk.seat("world", self.title)
        weakref.finalize(self, self.seat.end)  # a run the server drops (idle) leaves the page too
        if self.state is not None:
            self.seat.note("state", self.state)
        return RunStarted(display_url=self.seat.url)

    async def _ask(self, kind: Any, shown: str, read: Any) -> Answered:
        if self.seat is None or self.seat.ended:
            raise Refusal("run-ended", "this person-world's run has ended; start a new run")
        try:
            return await self.seat.ask(kind, shown, (), self.timeout, read)
        except TimeoutError:
            raise Refusal("timeout", NOBODY.format(self.timeout) + "; the state is unchanged") from None
        except Replaced as exc:
            raise Refusal("in-use", f"{exc}; the state is unchanged") from None
        except Withdrawn as exc:
            raise Refusal("run-ended", str(exc)) from None

    async def get_state(self) -> str:
        if self.state is None:
            answered = await self._ask("opening", "", read_state)
            if answered.first:
                self.state = answered.value
                assert self.seat is not None
                self.seat.note("state", answered.value)
            return str(answered.value)
        return self.state

    async def execute_action(self, action: str) -> Outcome:
        if self.finished:
            raise Refusal("run-ended", "the person ended this run; start a new run")
        answered = await self._ask("outcome", action, read_outcome)
        outcome: Outcome = answered.value
        if not answered.first:   # the same action asked again while it waited: done once
            return outcome
        assert self.seat is not None
        self.seat.note("action", action)
        scored = "" if outcome.score is None else f"   (score {outcome.score:g})"
        self.seat.note("state", outcome.state + scored)
        self.state = outcome.state
        self.finished = outcome.finished
        self._score += outcome.score or 0.0
        return outcome

    async def reset(self) -> None:
        self.state = self.opening or None
        self.finished = False

    async def end_run(self) -> float | None:
        if self.seat is not None:
            self.seat.note("end", f"the run has ended (score {self._score:g})")
            self.seat.end()
        return self._score
