"""A person as a Mind (seed 000, 10.1.1): "Get action" is answered by a person at a page.

``wwm serve wwm.people:PersonMind --port 8002 --arg actions=north,south,east,west,stay``
serves it; the person opens the page (``http://127.0.0.1:8002/pages/``, or the run's display
URL that New run returns) and sees the state, the allowed actions and a countdown. What they pick
or type is the action; an action not among the allowed ones is refused on the page by name.
When nobody answers within ``timeout`` seconds, or the person presses "Cannot suggest
action", the mind says "Cannot suggest action" with the reason, which is not "Do nothing".
A "Get action" asked again for the same state while the first waits gets the same answer; one
asked for another state replaces the waiting question, which is answered "Cannot suggest
action" at once, saying so (see :mod:`.desk`).
"""

from __future__ import annotations

import weakref
from typing import Any, ClassVar

from ..kit.scoring import KeepsScore
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion
from .desk import AtTheDesk, Desk, Seat, Withdrawn

NOBODY = "nobody answered at the person's page within {:g} s"
DECLINED = "the person at the page pressed 'Cannot suggest action'"


def allowed_actions(actions: str | list[str]) -> tuple[str, ...]:
    names = actions.split(",") if isinstance(actions, str) else [str(a) for a in actions]
    return tuple(dict.fromkeys(a.strip() for a in names if a.strip()))


def check_page(timeout: float, page_port: int) -> None:
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout}")
    if not 0 <= page_port <= 65535:
        raise ValueError(f"page_port must be a port number (0: the server's own, or any free port), got {page_port}")


class PersonMind(AtTheDesk, KeepsScore, Mind):
    """A person acting as a mind, at a web page: they see the state and answer with an action.

    ``actions``: the allowed actions, separated by commas (empty: any line of text);
    ``timeout``: seconds the person has for each answer (keep it below the asker's own
    time-out); ``page_port``/``host``: where the person's page is served (0: at the serving
    server's URL + ``pages/``, or, with no server, on any free port, printed when it opens;
    each run's seat is its display URL); ``title``: the name the page shows."""

    state_format: ClassVar[str] = "any text: the person reads it on their page as it is"
    action_format: ClassVar[str] = ("what the person picks or types: one of the 'actions' argument when it is "
                                    "given, else any line of text")

    def __init__(self, actions: str | list[str] = "", timeout: float = 30.0, page_port: int = 0,
                 host: str = "127.0.0.1", title: str = "a person") -> None:
        check_page(timeout, page_port)
        self.allowed = allowed_actions(actions)
        self.timeout = float(timeout)
        self.title = title
        self.find_desk(host, page_port)
        self.seat: Seat | None = None
        self.score = 0.0

    @classmethod
    def web_pages(cls, base_url: str) -> Any:
        """Served by ``wwm serve``, the person's page is the server's own, at ``base_url``."""
        return Desk.host(base_url).app

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("a person's page holds no state to snapshot: a restarted server seats the person again")

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted:
        await super().new_run(client_url, world_display_url, world_run_id)
        self.seat = self.desk.seat("mind", self.title)
        weakref.finalize(self, self.seat.end)  # a run the server drops (idle) leaves the page too
        if world_display_url:
            self.seat.note("world", f"the world's display page: {world_display_url}")
        return RunStarted(display_url=self.seat.url)

    def shown(self, state: str) -> str:
        """What the person reads for ``state``: the state as it is (a subclass may draw it)."""
        return state

    def noted(self, state: str) -> str:
        """The history line of a state the client informs the mind of: the state as it is."""
        return state

    def read(self, form: dict[str, Any]) -> str | None:
        """The page's form as an action (None: "Cannot suggest action"), or a ValueError
        that names what is wrong."""
        if form.get("cannot"):
            return None
        text = " ".join(str(form.get("action") or "").split())
        if not text:
            raise ValueError("type an action (or press 'Cannot suggest action')")
        if not self.allowed:
            return text
        for name in self.allowed:
            if name.lower() == text.lower():
                return name
        raise ValueError(f"{text!r} is not an allowed action: the allowed actions are {', '.join(self.allowed)}")

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        if self.seat is None or self.seat.ended:
            raise Refusal("unknown-run", "this person-mind's run has ended; start a new run")
        try:
            answered = await self.seat.ask("action", self.shown(state), self.allowed, self.timeout, self.read)
        except TimeoutError:
            return Suggestion.cannot(NOBODY.format(self.timeout))
        except Withdrawn as exc:   # a newer question of this run replaced it, or the run ended
            return Suggestion.cannot(str(exc))
        action = answered.value
        if action is None:
            if answered.first:
                self.seat.note("declined", "Cannot suggest action")
            return Suggestion.cannot(DECLINED)
        if answered.first:
            self.seat.note("you", action)
        return Suggestion(action)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        await super().inform(state, score)
        if self.seat is not None:
            line = self.noted(state)
            self.seat.note("then", line if score is None else f"{line}   (score {score:g})")
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        if self.seat is not None:
            self.seat.note("end", "the run has ended" + (f" (score {score:g})" if score is not None else ""))
            self.seat.end()
        return self.score
