"""Team messages in the WWM-served Tileworlds: each robot's inbox, carried by its next state.

T-World delivers a teammate's message as a percept of its own (header ``message``); a WWM
World answers one state per query, so there the messages ride in the state: every state a
client is given (by "Get state" or as the outcome of "Execute action") has a ``messages``
list beside ``header`` and ``data``, holding each message sent to that client's robot since
the previous state it was given, oldest first, each exactly once::

    {"from": 0, "to": 1, "team": true, "step": 17, "time": 6.05, "text": "target 3 4"}

``from`` is the sender's robot id, ``team`` whether it was a ``team_message`` (to every
teammate) rather than a ``message:<id>:<text>`` to this robot alone, ``step`` and ``time``
the world's step count and world seconds when it was sent. Only teammates hear each other.
"""

from __future__ import annotations

from typing import Any

from . import percepts
from .engine import Engine
from .forms import Form, encode

MESSAGES_FORMAT = ('"messages" lists what teammates sent this robot since its previous state, each once: '
                   '{"from": robot id, "to": this robot, "team": true for team_message, "step": world step, '
                   '"time": world seconds, "text": the text}')
FIELDS = ("from", "to", "team", "step", "time", "text")


class Inbox:
    """The messages for one robot that its next state has not carried yet."""

    def __init__(self, robot: int) -> None:
        self.robot = robot
        self.seen = 0  # how many of the engine's messages earlier states have looked through

    def take(self, engine: Engine) -> list[dict[str, Any]]:
        """The messages to this robot since the last call, and forget them."""
        fresh = engine.messages[self.seen:]
        self.seen = len(engine.messages)
        return [{k: m[k] for k in FIELDS} for m in fresh if m["to"] == self.robot]


def state(engine: Engine, robot: int, header: str, inbox: Inbox, form: Form = "json") -> str:
    """One robot's state in its percept form: its percept, with the messages its inbox holds
    (then emptied)."""
    message = {"header": header, "data": percepts.full(engine, robot), "messages": inbox.take(engine)}
    return encode(message, form).rstrip("\n")
