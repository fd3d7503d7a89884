"""A trained Stable-Baselines3 policy served as a Mind: ``wwm serve sb3:ppo model.zip``
(the optional extra ``wwm[sb3]``).

:func:`policy_mind` makes a Mind class for one saved model. Get action decodes the state
text into a value of the policy's observation space, asks ``model.predict`` (deterministic
by default) and answers the action's text. The texts follow the JSON form of
:mod:`.spaces`: without arguments, the plain JSON form of the model's own spaces (what a
served Gymnasium environment speaks, ``wwm serve gym:CartPole-v1``); with the New run
argument ``world`` (a World's URL, or ``--arg world=URL`` for every run), the form that
World's card declares (``key=value`` pairs, action labels: the grid World's, the Ant
World's), after checking that its spaces are the policy's. The Mind's card declares the
policy's spaces as ``state_space`` / ``action_space``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym

from ..client.cards import fetch_card
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion
from .spaces import Encoded, SpaceError, decode_space, encode_space, from_text, to_text

# The algorithms a saved model may come from, by the name ``sb3:<algo>`` gives.
ALGORITHMS = ("a2c", "ddpg", "dqn", "ppo", "sac", "td3")


class PolicyError(ValueError):
    """A model that cannot be served (unknown algorithm, missing or unreadable file, a space
    with no JSON form)."""


def load_model(algo: str, path: str | Path) -> Any:
    """The Stable-Baselines3 model of algorithm ``algo`` saved at ``path``, on the CPU."""
    name = algo.strip().lower()
    if name not in ALGORITHMS:
        raise PolicyError(f"unknown algorithm {algo!r}: one of {', '.join(ALGORITHMS)}")
    file = Path(path)
    if not file.is_file():
        raise PolicyError(f"no model file {str(file)!r} (give the .zip that model.save wrote)")
    try:
        import stable_baselines3
    except ImportError as exc:
        raise PolicyError("serving a policy needs the optional extra: "
                          f"pip install 'world-wide-mind[sb3]' ({exc})") from None
    import torch

    # one small forward pass per Get action: more intra-op threads only contend (a server's
    # process; the same setting made training 5x faster on a busy 2-core machine)
    torch.set_num_threads(1)
    cls = getattr(stable_baselines3, name.upper())
    try:
        return cls.load(str(file), device="cpu")
    except Exception as exc:  # SB3 raises whatever unpickling or its checks raise
        raise PolicyError(f"{file} is not a saved {name.upper()} model: {type(exc).__name__}: {exc}") from None


class PolicyMind(Mind):
    """A saved policy answering Get action; :func:`policy_mind` makes one class per model."""

    model: ClassVar[Any] = None
    algo: ClassVar[str] = ""
    model_path: ClassVar[str] = ""
    state_space: ClassVar[Encoded] = {}
    action_space: ClassVar[Encoded] = {}

    def __init__(self, world: str | None = None, deterministic: bool = True) -> None:
        if world is not None and not world.startswith(("http://", "https://")):
            raise ValueError(f"world must be a World's http(s) URL, got {world[:60]!r}")
        self.world = world
        self.deterministic = deterministic
        self.state_form: Encoded = self.state_space
        self.action_form: Encoded = self.action_space
        self.steps = 0

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)
        if self.world is not None:
            self.state_form, self.action_form = await forms_of(self.world, self.model.observation_space,
                                                               self.model.action_space)
        return None

    async def get_action(self, state: str) -> Suggestion:
        try:
            observation = from_text(self.state_form, self.model.observation_space, state)
        except SpaceError as exc:
            raise Refusal("bad-parameters", f"Get action: the state is not an observation of the "
                                            f"policy: {exc}") from None
        action, _ = self.model.predict(observation, deterministic=self.deterministic)
        self.steps += 1
        return Suggestion(to_text(self.action_form, self.model.action_space, action))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the model's algorithm and file, and the run's own state: a server's
        snapshot (``--state``) restores the run on the same policy class."""
        return (_restore, (self.algo, self.model_path, self.__dict__))

    def display_details(self) -> dict[str, Any]:
        return {"policy": f"{self.algo.upper()} from {Path(self.model_path).name}", "actions suggested": self.steps,
                "world": self.world or "(the policy's own spaces, as JSON)"}


async def forms_of(world: str, observation: gym.Space[Any], action: gym.Space[Any]) -> tuple[Encoded, Encoded]:
    """The state and action forms the World at ``world`` declares on its card, checked to be
    spaces equal to the policy's; a bad-parameters refusal saying what does not fit."""
    try:
        card = await fetch_card(world)
    except Refusal as exc:
        raise Refusal("bad-parameters", f"world: {exc.text}") from None
    found = []
    for field, mine in (("state_space", observation), ("action_space", action)):
        form = card.get(field)
        if not isinstance(form, dict):
            raise Refusal("bad-parameters", f"world: {world} declares no {field} on its card")
        try:
            theirs = decode_space(form, field)
        except SpaceError as exc:
            raise Refusal("bad-parameters", f"world: {world}: {exc}") from None
        if theirs != mine:
            raise Refusal("bad-parameters", f"world: {world}'s {field} is {theirs}, the policy's is {mine}")
        found.append(form)
    return found[0], found[1]


@functools.cache
def policy_mind(algo: str, path: str) -> type[PolicyMind]:
    """A Mind class serving the ``algo`` model saved at ``path``; a :class:`PolicyError`
    naming the problem."""
    model = load_model(algo, path)
    try:
        state_space = encode_space(model.observation_space)
        action_space = encode_space(model.action_space)
    except SpaceError as exc:
        raise PolicyError(f"{path}: {exc}") from None
    name = "".join(ch if ch.isalnum() else "_" for ch in Path(path).stem)
    doc = (f"A {algo.upper()} policy trained with Stable-Baselines3 ({Path(path).name}), served as a Mind.\n\n"
           f"State: an observation in `state_space` (its JSON, or the form the card of the World "
           f"named by the `world` argument declares); action: the policy's, as text of `action_space`.")
    attrs: dict[str, Any] = {
        "__doc__": doc, "__module__": __name__, "title": f"sb3:{algo.lower()} {Path(path).name}",
        "model": model, "algo": algo.lower(), "model_path": str(path),
        "state_space": state_space, "action_space": action_space,
        "state_format": f"an observation of {_short(model.observation_space)} (the card's state_space)",
        "action_format": f"an action of {_short(model.action_space)} (the card's action_space)",
    }
    return type(f"Policy_{algo.upper()}_{name}", (PolicyMind,), attrs)


def _restore(algo: str, path: str, state: dict[str, Any]) -> PolicyMind:
    cls = policy_mind(algo, path)
    mind = cls.__new__(cls)
    mind.__dict__.update(state)
    return mind


def _short(space: gym.Space[Any]) -> str:
    return " ".join(str(space).split())
