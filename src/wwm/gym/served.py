"""A registered Gymnasium environment served as a WWM World: ``wwm serve gym:CartPole-v1``.

:func:`gym_world` makes a World class for one environment id. Its card declares the
environment's spaces (:mod:`.spaces`) as ``state_space`` / ``action_space``; a state is the
observation's text, an action the action's text (JSON, or a Discrete label), the points of
an action its reward. "New run" takes an optional ``seed`` (the run's first ``reset(seed=)``);
"Reset" starts a new episode, the environment's random numbers carrying on. An episode that
terminates or is truncated ends the run (``finished`` in Execute action's answer; the card's
``max_episode_steps`` lets a client tell a time limit from an end). A run ended refuses more
actions with ``run-ended`` until Reset.

An environment that renders ``rgb_array`` frames is made with that render mode (unless
``--arg render_mode=...`` says otherwise): the run's display page shows its current frame,
served as a PNG at the display URL plus ``.png`` (:meth:`GymWorld.display_frame`; with
pygame, for the classic-control environments, on SDL's dummy video driver: a server has no
screen).
"""

from __future__ import annotations

import io
import os
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted
from .spaces import SpaceError, encode_space, from_text, to_text


class GymWorld(World):
    """A Gymnasium environment as a World (own copy per client); :func:`gym_world` makes one
    class per environment id."""

    env_id: ClassVar[str] = ""
    make_kwargs: ClassVar[dict[str, Any]] = {}
    state_space: ClassVar[dict[str, Any]] = {}
    action_space: ClassVar[dict[str, Any]] = {}
    max_episode_steps: ClassVar[int | None] = None

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be 0 or more, got {seed}")
        self.seed = seed
        self.env: gym.Env[Any, Any] | None = None
        self.observation: Any = None
        self.over = False
        self.steps = 0
        self._score = 0.0

    def _make(self) -> gym.Env[Any, Any]:
        if self.env is None:
            if self.make_kwargs.get("render_mode") == "rgb_array":
                os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame draws off screen
                os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
            self.env = gym.make(self.env_id, **self.make_kwargs)
        return self.env

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        self.observation, _ = self._make().reset(seed=self.seed)
        return None

    async def get_state(self) -> str:
        env = self._make()
        if self.observation is None:
            self.observation, _ = env.reset(seed=self.seed)
        return to_text(self.state_space, env.observation_space, self.observation)

    async def execute_action(self, action: str) -> Outcome:
        env = self._make()
        if self.over:
            raise Refusal("run-ended", f"the {self.env_id} episode is over: Reset starts another")
        try:
            value = from_text(self.action_space, env.action_space, action)
        except SpaceError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        if self.observation is None:
            self.observation, _ = env.reset(seed=self.seed)
        self.observation, reward, terminated, truncated, _ = env.step(value)
        self.over = bool(terminated or truncated)
        self.steps += 1
        self._score += float(reward)
        return Outcome(to_text(self.state_space, env.observation_space, self.observation), float(reward),
                       finished=self.over)

    async def reset(self) -> None:
        self.observation, _ = self._make().reset()
        self.over = False
        self.steps = 0

    async def end_run(self) -> float | None:
        if self.env is not None:
            self.env.close()
        return self._score

    def display_details(self) -> dict[str, Any]:
        return {"environment": self.env_id, "steps in this episode": self.steps, "episode over": self.over}

    @property
    def draws_frames(self) -> bool:
        """Whether the display page shows a frame (the environment renders rgb_array ones)."""
        return self.make_kwargs.get("render_mode") == "rgb_array"

    def display_frame(self) -> bytes | None:
        """The environment's current frame as a PNG, None when it renders no rgb_array frames."""
        env = self._make()
        if env.render_mode != "rgb_array":
            return None
        if self.observation is None:
            self.observation, _ = env.reset(seed=self.seed)
        frame = env.render()
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] not in (3, 4):
            raise ValueError(f"{self.env_id} rendered no RGB frame (got {type(frame).__name__})")
        from PIL import Image  # (matplotlib's own dependency)

        out = io.BytesIO()
        Image.fromarray(frame.astype(np.uint8)).save(out, format="PNG")
        return out.getvalue()


def gym_world(env_id: str, **make_kwargs: Any) -> type[GymWorld]:
    """A World class serving the registered Gymnasium environment ``env_id`` (made with
    ``make_kwargs``); a ValueError naming the problem for an unknown id or a space with no
    JSON form."""
    if "render_mode" not in make_kwargs and _renders_rgb(env_id):
        make_kwargs = {**make_kwargs, "render_mode": "rgb_array"}  # the display page's frame
    try:
        probe = gym.make(env_id, **make_kwargs)
    except gym.error.Error as exc:
        raise ValueError(f"no Gymnasium environment {env_id!r}: {exc}") from None
    except TypeError as exc:
        raise ValueError(f"{env_id}: bad --arg ({exc})") from None
    try:
        state_space = encode_space(probe.observation_space)
        action_space = encode_space(probe.action_space)
    except SpaceError as exc:
        raise ValueError(f"{env_id}: {exc}") from None
    finally:
        probe.close()
    spec = probe.spec
    name = "".join(ch if ch.isalnum() else "_" for ch in env_id)
    doc = (f"The Gymnasium environment {env_id}, served as a World.\n\n"
           f"State: the observation as JSON, in the space `state_space` describes; action: "
           f"the action as JSON, in `action_space`; the points of an action are its reward. "
           f"The run ends when the episode does (New run takes a seed).")
    attrs: dict[str, Any] = {
        "__doc__": doc, "__module__": __name__, "title": f"gym:{env_id}",
        "env_id": env_id, "make_kwargs": dict(make_kwargs),
        "state_space": state_space, "action_space": action_space,
        "max_episode_steps": spec.max_episode_steps if spec else None,
        "state_format": f"JSON of a value of {_short(probe.observation_space)} (the card's state_space)",
        "action_format": f"JSON of a value of {_short(probe.action_space)} (the card's action_space)",
    }
    return type(f"Gym_{name}", (GymWorld,), attrs)


def _renders_rgb(env_id: str) -> bool:
    """Whether the environment ``env_id`` declares the rgb_array render mode (False when
    it is not registered: gym.make says so next)."""
    try:
        spec = gym.spec(env_id)
    except gym.error.Error:
        return False
    try:
        creator = gym.envs.registration.load_env_creator(spec.entry_point) if isinstance(spec.entry_point, str) \
            else spec.entry_point
    except Exception:  # (a module that does not import: gym.make reports it)
        return False
    return "rgb_array" in (getattr(creator, "metadata", None) or {}).get("render_modes", [])


def _short(space: gym.Space[Any]) -> str:
    return " ".join(str(space).split())
