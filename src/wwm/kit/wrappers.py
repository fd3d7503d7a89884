"""World_W servers (section 4.1.1): a new Body for someone else's World. A wrapper presents a
sub-space of the wrapped world's state x and passes actions through; to the world it is just
another client, to its own client just another World. Wrappers chain: the world a wrapper
wraps may itself be a wrapper.

Sub-spaces are read from states made of ``key=value`` items (the Ant World, the House Robot,
the grid world): :func:`project` keeps the named items, in the world's own order. The same
function gives each mind of an AS server its own sub-space of x (section 10.11.3).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted


def parse_keys(keys: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``"i,f"`` or ``["i", "f"]`` -> ("i", "f"); refuses an empty or repeated key."""
    parts = keys.replace(" ", ",").split(",") if isinstance(keys, str) else list(keys)
    out = tuple(p.strip() for p in parts if p.strip())
    if not out:
        raise ValueError("a sub-space needs at least one key, e.g. keep='i,f'")
    if len(set(out)) != len(out):
        raise ValueError(f"a key is named twice in {', '.join(out)}")
    for key in out:
        if "=" in key:
            raise ValueError(f"{key!r} is not a key name")
    return out


def project(state: str, keys: tuple[str, ...]) -> str:
    """The ``key=value`` items of ``state`` named in ``keys``, in the state's own order.
    Refuses (naming them) keys the state does not have: senses cannot be invented (4.1)."""
    words = state.split()
    kept = []
    seen = set()
    for word in words:
        key, sep, _ = word.partition("=")
        if sep and key in keys:
            kept.append(word)
            seen.add(key)
    if len(seen) != len(keys):
        missing = [k for k in keys if k not in seen]
        has = [w.partition("=")[0] for w in words if "=" in w]
        raise Refusal("bad-parameters", f"the sub-space names {', '.join(missing)}, which the state "
                                         f"does not have (it has: {', '.join(has) or 'no key=value items'})")
    return " ".join(kept)


class SubspaceWorld(World):
    """World_W: the state of another World server cut down to the items in ``keep``, with
    every action passed through unchanged. ``world`` is the URL of the wrapped World server
    (or a World object); a wrapper may wrap a wrapper."""

    seed_section: ClassVar[str] = "3.5, 10.11 (World_W: matching state definitions)"

    title: ClassVar[str] = "Sub-space wrapper (World_W)"
    state_format: ClassVar[str] = ("the wrapped world's key=value items named in 'keep', in the "
                                   "wrapped world's order; see the wrapped world's own page")
    action_format: ClassVar[str] = "whatever the wrapped world takes: actions pass through unchanged"

    def __init__(self, world: Any, keep: str | list[str], timeout: float = 30.0,
                 world_args: dict[str, Any] | None = None) -> None:
        self.keys = parse_keys(keep)
        if isinstance(world, str):
            if not world.startswith(("http://", "https://")):
                raise ValueError(f"world must be the URL of a World server (http://...), not {world!r}")
            from ..client.remote import connect_world

            world = connect_world(world, timeout=timeout, **(world_args or {}))
        elif not isinstance(world, World):
            raise ValueError("world must be a World server URL or a World object")
        self.world: World = world

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        await self.world.new_run()  # the wrapper is the wrapped world's client
        await self.get_state()  # refuse at once a sub-space the world cannot give
        return None

    async def get_state(self) -> str:
        return project(await self.world.get_state(), self.keys)

    async def execute_action(self, action: str) -> Outcome:
        outcome = await self.world.execute_action(action)
        self._score += outcome.score or 0.0
        return Outcome(project(outcome.state, self.keys), outcome.score, outcome.finished)

    async def no_operation(self) -> None:
        await self.world.no_operation()

    async def reset(self) -> None:
        await self.world.reset()

    async def reset_score(self) -> None:
        self._score = 0.0
        await self.world.reset_score()

    async def get_current_score(self) -> float | None:
        return await self.world.get_current_score()

    async def end_run(self) -> float | None:
        try:
            return await self.world.end_run()
        finally:
            close = getattr(self.world, "aclose", None)
            if close is not None:
                await close()
