"""Team messages in the WWM-served Tileworlds: each robot's inbox, carried by its states.

T-World delivers a teammate's message as a percept of its own (header ``message``); a WWM
World answers one state per query, so there the messages ride in the state: every state a
client is given (by "Get state" or as the outcome of "Execute action") has a ``messages``
list beside ``header`` and ``data``, holding each message sent to that client's robot that
its robot has not acted on yet, oldest first::

    {"n": 4, "from": 0, "to": 1, "team": true, "step": 17, "time": 6.05, "text": "target 3 4"}

A message is carried by every state until the robot's next action (an Execute action the
world takes): in the usual loop, where each action is chosen on the state before it, each
message arrives once; a state lost on its way, or asked again after a time-out (section
8.2.2's re-query), carries the same messages again, so none is lost. ``n`` numbers the
game's messages, so an agent that sees one twice can tell. ``from`` is the sender's robot
id, ``team`` whether it was a ``team_message`` (to every teammate) rather than a
``message:<id>:<text>`` to this robot alone, ``step`` and ``time`` the world's step count and
world seconds when it was sent. Only teammates hear each other.
"""

from __future__ import annotations

import json
from typing import Any

from . import percepts
from .engine import Engine
from .forms import StateForm, encode
from .numeric import numeric

MESSAGES_FORMAT = ('"messages" lists what teammates sent this robot that it has not acted on yet (each state '
                   'carries them until its next Execute action): {"n": the message\'s number in the game, '
                   '"from": robot id, "to": this robot, "team": true for team_message, "step": world step, '
                   '"time": world seconds, "text": the text}')
FIELDS = ("from", "to", "team", "step", "time", "text")


class Inbox:
    """The messages for one robot that it has not acted on yet."""

    def __init__(self, robot: int) -> None:
        self.robot = robot
        self.read = 0   # the engine's messages before this one were carried by a state the robot acted on
        self.given = 0  # ... carried (or looked through) by the latest state given

    def take(self, engine: Engine) -> list[dict[str, Any]]:
        """The messages to this robot since its last action, numbered (asked again before the
        robot acts, the same ones, with any new ones after them)."""
        messages = engine.messages
        self.given = len(messages)
        return [{"n": n, **{k: m[k] for k in FIELDS}}
                for n, m in enumerate(messages[self.read:], self.read) if m["to"] == self.robot]

    def acted(self) -> None:
        """The robot acted on the latest state it was given: what that state carried is read."""
        self.read = self.given


def state(engine: Engine, robot: int, header: str, inbox: Inbox, form: StateForm = "json") -> str:
    """One robot's state in its percept form: its percept, with the messages its inbox holds
    (in the numeric form, :mod:`.numeric`: numbers only)."""
    if form == "numbers":
        return json.dumps(numeric(engine, robot), separators=(",", ":"))
    message = {"header": header, "data": percepts.full(engine, robot), "messages": inbox.take(engine)}
    return encode(message, form).rstrip("\n")
