"""T-World's action strings, parsed into :class:`Action` values.

Accepts every form of ``_ACTION_REGEX`` (case-insensitive): moves by name or number
(west 0, east 1, north 2, south 3), ``none``, ``restore``, peer and team messages, and the
console actions (accepted and ignored). Anything else raises :class:`ActionError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["move", "none", "restore", "message", "team_message", "console"]
DIRECTIONS: dict[str, tuple[int, int]] = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
_NUMBERS = {"0": "west", "1": "east", "2": "north", "3": "south"}

_MOVE = re.compile(r"^(?:action\(\s*)?(north|south|east|west|[0-3])(?:\s*\))?$", re.IGNORECASE)
_NONE = re.compile(r"^(?:action\(\s*)?(none|null|4)(?:\s*\))?$", re.IGNORECASE)
_RESTORE = re.compile(r"^(?:action\(\s*)?(restore|restore_battery|revive|5)(?:\s*\))?$", re.IGNORECASE)
_PEER = re.compile(r"^(?:message|msg|p_msg|peer_message):(\d+):(.*)$", re.IGNORECASE | re.DOTALL)
_PEER_CALL = re.compile(r"^(?:message|msg|p_msg|peer_message)\(\s*(\d+)\s*,\s*'(.*)'\s*\)$", re.IGNORECASE | re.DOTALL)
_TEAM = re.compile(r"^(?:team_message|tm_msg):(.*)$", re.IGNORECASE | re.DOTALL)
_TEAM_CALL = re.compile(r"^(?:team_message|tm_msg)\(\s*'(.*)'\s*\)$", re.IGNORECASE | re.DOTALL)
_CONSOLE = re.compile(r"^(?:(?:log|error):.*|clear|6|paint:\d+:\d+|clear_cells|key_(?:down|up):\w+)$",
                      re.IGNORECASE | re.DOTALL)


class ActionError(ValueError):
    """An action string T-World does not understand; the message says what was received."""


@dataclass(frozen=True, slots=True)
class Action:
    kind: Kind
    direction: str | None = None
    to: int | None = None
    text: str = ""

    @property
    def is_message(self) -> bool:
        """Messages and console lines are not actions: they cost no time and trigger no percept."""
        return self.kind in ("message", "team_message", "console")

    def __str__(self) -> str:
        if self.kind == "move":
            return str(self.direction)
        if self.kind == "message":
            return f"message:{self.to}:{self.text}"
        if self.kind == "team_message":
            return f"team_message:{self.text}"
        if self.kind == "console":
            return f"log:{self.text}"
        return self.kind


NONE = Action("none")


def parse_action(text: str) -> Action:
    """Parse one action string; raise :class:`ActionError` naming it if it is not one."""
    if not isinstance(text, str):
        raise ActionError(f"an action is a string, got {type(text).__name__}")
    s = text.strip()
    if m := _MOVE.match(s):
        word = m.group(1).lower()
        return Action("move", direction=_NUMBERS.get(word, word))
    if _NONE.match(s):
        return NONE
    if _RESTORE.match(s):
        return Action("restore")
    if m := _PEER.match(s) or _PEER_CALL.match(s):
        return Action("message", to=int(m.group(1)), text=m.group(2))
    if m := _TEAM.match(s) or _TEAM_CALL.match(s):
        return Action("team_message", text=m.group(1))
    if _CONSOLE.match(s):
        return Action("console", text=s)
    shown = s if len(s) <= 60 else s[:57] + "..."
    raise ActionError(f'invalid action "{shown}" was received: use north, south, east, west (or 2, 3, 1, 0), '
                      f"none, restore, message:<id>:<text> or team_message:<text>")
