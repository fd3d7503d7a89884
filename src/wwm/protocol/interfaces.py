"""The async World and Mind interfaces: one Python method per section-9 query.

A local object, a remote server reached with :func:`wwm.connect`, and a program in any
language behind ``wwm serve-exec`` all satisfy these, so composition code (an AS server, a
wrapper, the Λ* harness, Meta(A)) never asks which one it holds.

One object is one run. A server makes a fresh object per "New run" for own-copy worlds and
for minds (constructed with the run's arguments), and the server layer keeps the run ID.
Writing a Mind in Python is writing a subclass with ``get_action``; a World needs
``get_state`` and ``execute_action``. Every other query has a sensible default.

Query sets a class supports are derived from the base classes it inherits
(:class:`LearningMind` = Mind_L, :class:`CompetingMind` = Mind_i, :class:`FeudalMind` =
Mind_Feu, :class:`SelectionMind` = Mind_AS) and published on the server's description.

How a query's data items reach a method. The items its section-9 row names arrive as
keywords (``state``, ``score``, "Q-temperature" as ``q_temperature``: lower case, other
characters ``_``). Some rows also take an open-ended set of further items (New run, Get
action, ...); by default those arrive the same way, snake-cased, so a method takes them with
``**kwargs`` (``get_action(self, state, **step)``) and "X-Priority" arrives as ``x_priority``.
A method that needs their exact names declares a parameter named ``wire_items`` (not
``**wire_items``): it then receives all of them in one dict under their wire names, exactly
as received (text, a list for a repeated item, or a JSON value), empty when there are none,
and its ``**kwargs``, if any, receive none of them::

    async def get_action(self, state: str, wire_items: dict[str, Any] | None = None) -> Suggestion:
        priority = (wire_items or {}).get("X-Priority")

Constructors work alike for New run: an item matching a parameter (snake-cased) goes to it,
and a ``wire_items`` parameter takes every other item by its wire name.

``wwm serve module:Class --arg k=v`` builds one throwaway instance with those values at start
(when they give every required argument), so a value the constructor rejects (TypeError,
ValueError or a Refusal) stops the server there and then. So a constructor should only check
and store its arguments, and leave opening files, connections or processes to ``new_run``; a
class whose constructor must do more sets ``build_at_start = False``. Shared and exclusive
worlds are never built at start (their one instance is the world itself).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias

from .errors import Refusal
from .results import Outcome, RunStarted, Suggestion, Values


class World:
    """A World-and-Body server (section 9.1).

    Class attributes describe the world on its server page:
    ``sharing`` -- "own" (a new copy per client), "shared" (several clients join one
    instance, each with its own body: override :meth:`join`), or "exclusive" (one client at
    a time, freed after ``lease_seconds`` without a query, like a robot, section 4.3);
    ``clock`` -- "synchronous", or "asynchronous" (the server calls :meth:`advance` every
    ``tick_seconds`` of wall-clock time whether or not a client asks, section 4.4);
    ``state_format`` / ``action_format`` -- how to read x and write a (section 3.6);
    ``build_at_start`` -- whether ``wwm serve`` may build a throwaway instance with its
    ``--arg`` values at start to check them (own-copy worlds only; see the module's text).
    Arguments and open-ended items: see the module's text.
    """

    role: ClassVar[str] = "world"
    sharing: ClassVar[Literal["own", "shared", "exclusive"]] = "own"
    clock: ClassVar[Literal["synchronous", "asynchronous"]] = "synchronous"
    tick_seconds: ClassVar[float] = 0.1
    lease_seconds: ClassVar[float] = 30.0
    state_format: ClassVar[str] = "opaque text"
    action_format: ClassVar[str] = "opaque text"
    build_at_start: ClassVar[bool] = True
    seed_section: ClassVar[str] = ""  # where the seed (or its source) describes it, for the catalogue

    client_url: str | None = None
    _score: float = 0.0

    @classmethod
    def query_sets(cls) -> frozenset[str]:
        return frozenset({"World"})

    @classmethod
    def web_pages(cls, base_url: str) -> Any:
        """Pages of this class's own (an ASGI app), which a server serving it offers under
        ``base_url``, its own URL + ``pages/``; None (the default): it has none."""
        return None

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        return None

    async def get_display_url(self) -> str | None:
        return None

    async def no_operation(self) -> None:
        return None

    async def get_state(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} must define get_state")

    async def execute_action(self, action: str) -> Outcome:
        raise NotImplementedError(f"{type(self).__name__} must define execute_action")

    async def reset(self) -> None:
        raise Refusal("unsupported-query", f"{type(self).__name__} cannot be reset")

    async def reset_score(self) -> None:
        self._score = 0.0

    async def get_current_score(self) -> float | None:
        return self._score

    async def end_run(self) -> float | None:
        return await self.get_current_score()

    # ---- hooks the server layer calls -----------------------------------------------------
    async def join(self, client_url: str | None = None, **args: Any) -> World:
        """Shared worlds: make a new body in this instance for another client."""
        raise NotImplementedError(f"{type(self).__name__} is shared and must define join")

    async def advance(self, seconds: float) -> None:
        """Asynchronous worlds: move the world on by ``seconds`` of wall-clock time."""


class Mind:
    """A Mind server (section 9.2): suggests an action for a state.

    ``build_at_start`` -- whether ``wwm serve`` may build a throwaway instance with its
    ``--arg`` values at start to check them. Items a query carries beyond its row's own (the
    per-step arguments of Get action, ...) arrive snake-cased in ``**kwargs``, or by their
    wire names in a ``wire_items`` parameter: see the module's text.
    """

    role: ClassVar[str] = "mind"
    state_format: ClassVar[str] = "opaque text"
    action_format: ClassVar[str] = "opaque text"
    state_example: ClassVar[str | None] = None  # a state it reads, on its card: what ``wwm check`` sends it
    seed_section: ClassVar[str] = ""  # where the seed (or its source) describes it, for the catalogue
    build_at_start: ClassVar[bool] = True

    client_url: str | None = None
    world_display_url: str | None = None
    world_run_id: str | None = None

    @classmethod
    def query_sets(cls) -> frozenset[str]:
        sets = {"Mind"}
        for base, name in _MIND_SETS:
            if issubclass(cls, base):
                sets.add(name)
        return frozenset(sets)

    @classmethod
    def web_pages(cls, base_url: str) -> Any:
        """Pages of this class's own (an ASGI app), which a server serving it offers under
        ``base_url``, its own URL + ``pages/``; None (the default): it has none."""
        return None

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        self.world_display_url = world_display_url
        self.world_run_id = world_run_id
        return None

    async def get_display_url(self) -> str | None:
        return None

    async def no_operation(self) -> None:
        return None

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        return True

    async def get_action(self, state: str) -> Suggestion:
        raise NotImplementedError(f"{type(self).__name__} must define get_action")

    async def inform(self, state: str, score: float | None = None) -> float | None:
        return None

    async def reset_score(self) -> None:
        return None

    async def get_current_score(self, score: float | None = None) -> float | None:
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        return None


class LearningMind(Mind):
    """Mind_L (9.2.1): a mind that learns, with a Q-temperature kept by the server or sent by
    the client. ``new_run`` may also receive ``other_client_url``."""

    async def get_q_temperature(self) -> float | None:
        return None

    async def reset_q_temperature(self, run_length: float | None = None) -> None:
        return None

    async def send_q_temperature(self, q_temperature: float, run_length: float | None = None) -> None:
        return None


class CompetingMind(Mind):
    """Mind_i (9.2.2): a mind that accepts it may not be the only mind in the body."""

    async def get_strength(self) -> float | None:
        return None

    async def change_strength(self, strength: float) -> None:
        raise Refusal("bad-parameters", f"{type(self).__name__} has a fixed strength")

    async def get_w_temperature(self) -> float | None:
        return None

    async def reset_w_temperature(self, run_length: float | None = None) -> None:
        return None

    async def send_w_temperature(self, w_temperature: float, run_length: float | None = None) -> None:
        return None

    async def get_suggestion(self, state: str) -> Suggestion:
        return await self.get_action(state)

    async def get_values(self, state: str, action: str) -> Values:
        return Values()

    async def inform_winner(self, state: str, obeyed: bool | None = None,
                            payment: float | None = None, winner_url: str | None = None,
                            action: str | None = None, score: float | None = None) -> Values:
        await self.inform(state, score)
        return Values()


class FeudalMind(Mind):
    """Mind_Feu (9.2.3): takes orders of the form "Take me to state c"."""

    async def take_me_to(self, state: str, destination: str) -> Suggestion:
        raise NotImplementedError(f"{type(self).__name__} must define take_me_to")

    async def how_good(self, state: str, destination: str, action: str) -> Values:
        return Values()


class SelectionMind(Mind):
    """Mind_AS (9.2.4): resolves competition among a collection of Mind servers."""

    async def add_mind(self, mind_url: str) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define add_mind")

    async def remove_mind(self, mind_url: str) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define remove_mind")


_MIND_SETS: tuple[tuple[type, str], ...] = (
    (LearningMind, "Mind_L"),
    (CompetingMind, "Mind_i"),
    (FeudalMind, "Mind_Feu"),
    (SelectionMind, "Mind_AS"),
)

#: A class a server serves (``wwm serve``, :func:`wwm.server.make_app`): a World or a Mind.
ServedClass: TypeAlias = type[World] | type[Mind]
