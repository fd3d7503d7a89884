"""``WorldEnv(url)``: a ``gymnasium.Env`` over any WWM World whose card declares its spaces
(``state_space`` / ``action_space``, the JSON form of :mod:`.spaces`), in any language, over
HTTP, WebSocket or the TCP binding. Also ``gymnasium.make("wwm/World-v0", url=...)``.

A space may name New run arguments that bring the world's states into it (``new_run``: the
Tileworld's ``form=numbers``): they are sent with every New run.

``reset(seed=s)`` ends the current run and starts a new one with ``seed=s`` (when the world
takes a seed argument); ``reset()`` sends Reset (a new run when the world cannot be reset).
``step`` is one Execute action: its points are the reward; a run the world ends is
``terminated``, or ``truncated`` when it ends at the card's ``max_episode_steps``. The env
runs the client on an event loop of its own (:mod:`.loop`), also beside a running loop (a notebook).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import gymnasium as gym

from ..client.cards import fetch_card_sync
from ..client.remote import RemoteWorld
from ..protocol.errors import Refusal
from .loop import SyncLoop
from .spaces import SpaceError, decode_space, from_text, to_text

T = TypeVar("T")


class WorldError(ValueError):
    """A World that a WorldEnv cannot stand on (not a world, no spaces declared)."""


def new_run_args(card: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """The New run arguments: ``args``, and those the card's spaces ask for to have states
    and actions in them (a space's ``new_run``, e.g. the Tileworld's ``form=numbers``)."""
    asked = {k: v for field in ("state_space", "action_space")
             for k, v in (card.get(field, {}).get("new_run") or {}).items()}
    clash = {k: args[k] for k in asked if k in args and args[k] != asked[k]}
    if clash:
        raise WorldError(f"{', '.join(f'{k}={v}' for k, v in clash.items())}: the card's spaces are those of "
                         f"{', '.join(f'{k}={asked[k]}' for k in clash)}")
    return {**args, **asked}


class WorldEnv(gym.Env[Any, Any]):
    """A Gymnasium environment over the WWM World at ``url``. ``transport`` is "http", "ws"
    or "tcp" (the server's TCP binding: give its ``tcp://host:port``, or ``tcp`` with the
    HTTP URL to read the port from the card); ``args`` are New run arguments."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, url: str, *, transport: str = "http", timeout: float = 30.0,
                 **args: Any) -> None:
        card = fetch_card_sync(url)
        if card.get("role") != "world":
            raise WorldError(f"{url} is a {card.get('role')!r} server, not a World")
        for field in ("state_space", "action_space"):
            if not isinstance(card.get(field), dict):
                raise WorldError(f"{url} declares no {field} on its card: a WorldEnv needs both")
        try:
            self.observation_space = decode_space(card["state_space"], "state_space")
            self.action_space = decode_space(card["action_space"], "action_space")
        except SpaceError as exc:
            raise WorldError(f"{url}: {exc}") from None
        self.card = card
        self._state_form, self._action_form = card["state_space"], card["action_space"]
        self._limit: int | None = card.get("max_episode_steps")
        self._takes_seed = "seed" in card.get("arguments", {}).get("properties", {})
        target = url
        if transport == "tcp" and not url.startswith("tcp://"):
            tcp = card.get("bindings", {}).get("tcp")
            if not tcp:
                raise WorldError(f"{url} offers no TCP binding (serve it with --tcp-port)")
            target = tcp
        self._sync = SyncLoop()
        self.world = RemoteWorld(target, transport=transport, timeout=timeout, run_args=new_run_args(card, args))
        self._running = False
        self._steps = 0
        self._closed = False

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._sync.run(coro)

    def _observation(self, text: str) -> Any:
        try:
            return from_text(self._state_form, self.observation_space, text)
        except SpaceError as exc:
            raise WorldError(f"{self.world.url} sent a state outside its state_space: {exc}") from None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self._call(self._restart(seed))
        self._steps = 0
        return self._observation(self._call(self.world.get_state())), {}

    async def _restart(self, seed: int | None) -> None:
        if self._running and seed is None:
            try:
                await self.world.reset()
                return
            except Refusal as exc:
                if exc.code != "unsupported-query":
                    raise
        if self._running:
            await self.world.end_run()
        if seed is not None and self._takes_seed:
            self.world.args["seed"] = seed
        await self.world.new_run()
        self._running = True

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._running:
            raise gym.error.ResetNeeded("call reset() before step()")
        outcome = self._call(self.world.execute_action(to_text(self._action_form, self.action_space, action)))
        self._steps += 1
        truncated = outcome.finished and self._limit is not None and self._steps >= self._limit
        return (self._observation(outcome.state), float(outcome.score or 0.0),
                outcome.finished and not truncated, truncated, {})

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._running:
                self._call(self.world.end_run())
        except (Refusal, OSError):  # the server has gone or forgotten the run: nothing to end
            pass
        try:
            self._call(self.world.aclose())
        finally:
            self._sync.close()
