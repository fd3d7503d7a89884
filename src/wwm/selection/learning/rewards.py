"""Named reward functions a learning mind can be given at New run (``reward="ant.food"``).

A Q-learner "can calculate its own reward based on x, a and y" (section 10.4): each entry
here is a good event read from the ``key=value`` items of x and y, worth ``r`` when it
happens and 0 otherwise (the r-or-0 rewards of [PhD] ch. 8, reference notes 4.10), or
``score``, the points the World reported. Only names in :data:`REWARDS` are accepted, so a
client can choose a goal but never make the server import or evaluate anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Items = dict[str, str]
Event = Callable[[Items, Items], bool]


def items(state: str) -> Items:
    """The ``key=value`` items of a state (other words are ignored)."""
    out: Items = {}
    for word in state.split():
        key, sep, value = word.partition("=")
        if sep and key:
            out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class Reward:
    name: str
    event: Event | None  # None: the World's score
    size: float          # r, the default reward for the event
    doc: str

    def __call__(self, x: Items, y: Items, score: float | None, r: float) -> float:
        if self.event is None:
            return r * (score or 0.0)
        try:
            return r if self.event(x, y) else 0.0
        except KeyError:
            return 0.0  # the state lacks an item this goal reads: no event


def _arrived(key: str, here: str = "8") -> Event:
    return lambda x, y: x[key] != here and y[key] == here


REWARDS: dict[str, Reward] = {r.name: r for r in [
    Reward("score", None, 1.0, "the points the World scored for the action (times r)"),
    # Ant World (reference notes 5.2, from w.html): Af, An, Ap
    Reward("ant.food", lambda x, y: x["i"] == "0" and y["i"] == "1", 0.7,
           "Af: just picked up food"),
    Reward("ant.nest", _arrived("n"), 0.1, "An: just arrived at the nest"),
    Reward("ant.predator", lambda x, y: x["p"] != "9" and y["p"] == "9", 0.5,
           "Ap: just shook off the predator (no longer visible)"),
    # House Robot (reference notes 5.1; Adirt and Aplug from code.houserobot)
    Reward("house.dirt", lambda x, y: x["dirt"] != "8" and y["dirt"] == "8" and y["full"] == "0", 1.0,
           "Adirt: arrived at dirt while not full"),
    Reward("house.plug", _arrived("plug"), 0.1, "Aplug: arrived at the plug"),
    Reward("house.smoke", _arrived("smoke"), 1.0, "smoke-seeker: arrived at the smoke"),
    Reward("house.intruder", lambda x, y: x["human"] != "8" and y["human"] == "8" and y["class"] == "1", 1.0,
           "security camera: arrived at a stranger"),
    Reward("house.family", lambda x, y: x["human"] != "9" and x["class"] == "0" and y["human"] == "9", 1.0,
           "keep out of the family's way: a family member no longer visible"),
    Reward("house.open", lambda x, y: x["wall"] != "9" and y["wall"] == "9", 1.0,
           "open-area seeker: no wall visible any more"),
    Reward("house.wall", lambda x, y: y["wall"] != "9", 1.0,
           "wall-follower: a wall is visible (it learns to stay still by one)"),
]}


def reward(name: str) -> Reward:
    try:
        return REWARDS[name]
    except KeyError:
        raise ValueError(f"unknown reward {name!r}; choose one of {', '.join(sorted(REWARDS))}") from None
