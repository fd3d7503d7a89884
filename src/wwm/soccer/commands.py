"""The soccer server's command language, the subset this world takes: parse a client's text
(``(dash 80)``, ``(dash 80 90)``, ``(turn -30)``, ``(kick 100 0)``, ``(tackle 30)``, ``(move -10 5)``,
``(change_view wide high)``, ``(sense_body)``, ``(done)``, and the UDP-only
``(init TEAM (version V) [(goalie)])`` and ``(bye)``) into
:class:`Command` values, and say what is wrong with anything else.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: commands that move the body: at most one of them counts in a cycle
BODY_COMMANDS = ("dash", "turn", "kick", "move", "catch", "tackle")
ARITY = {"dash": (1, 2), "turn": 1, "kick": 2, "move": 2, "catch": 1, "tackle": (1, 2), "change_view": (1, 2),
         "sense_body": 0, "done": 0, "bye": 0}
FOUL = {"true": "on", "on": "on", "false": "off", "off": "off"}  # (tackle P FOUL): its words
_TOKEN = re.compile(r'\(|\)|"[^"]*"|[^\s()]+')
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,15}$")


class CommandError(ValueError):
    """A message the soccer server would answer with ``(error ...)``: :attr:`code` is that
    error's word (``unknown_command``, ``illegal_command_form``), the text says what was wrong."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    args: tuple[float | str, ...] = ()

    def text(self) -> str:
        return "(" + " ".join([self.name, *(f"{a:g}" if isinstance(a, float) else a for a in self.args)]) + ")"


@dataclass(frozen=True, slots=True)
class Init:
    team: str
    version: float
    goalie: bool


def _tree(text: str) -> list[object]:
    """The s-expressions of ``text`` as nested lists of words."""
    stack: list[list[object]] = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise CommandError("illegal_command_form", f"unbalanced ')' in {text.strip()[:60]!r}")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise CommandError("illegal_command_form", f"unbalanced '(' in {text.strip()[:60]!r}")
    return stack[0]


def _number(word: object, what: str, name: str) -> float:
    try:
        value = float(str(word))
    except ValueError:
        raise CommandError("illegal_command_form", f"({name} ...): {what} must be a number, got {word!r}") from None
    if not math.isfinite(value):
        raise CommandError("illegal_command_form", f"({name} ...): {what} must be finite, got {word!r}")
    return value


def parse(text: str) -> list[Command]:
    """The commands in one message, in order. Empty text is no command."""
    out: list[Command] = []
    for node in _tree(text):
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise CommandError("illegal_command_form",
                               f"expected commands like (dash 80), got {text.strip()[:60]!r}")
        name, args = node[0], node[1:]
        if name not in ARITY:
            raise CommandError("unknown_command", f"unknown command ({name} ...); this server takes "
                               + ", ".join(f"({n})" for n in ARITY))
        arity = ARITY[name]
        counts = arity if isinstance(arity, tuple) else (arity,)
        if len(args) not in counts or any(isinstance(a, list) for a in args):
            raise CommandError("illegal_command_form",
                               f"({name} ...) takes {' or '.join(map(str, counts))} plain argument(s), got {len(args)}")
        if name == "tackle":  # (tackle ANGLE [FOUL]): an angle from protocol 12 on, a power before
            foul = () if len(args) == 1 else (FOUL.get(str(args[1]).lower()) or _bad_foul(args[1]),)
            out.append(Command(name, (_number(args[0], "power or angle", name), *foul)))
        elif name == "change_view":
            width = str(args[0])
            if width not in ("narrow", "normal", "wide"):
                raise CommandError("illegal_command_form", f"(change_view WIDTH [QUALITY]): WIDTH is narrow, normal "
                                   f"or wide, got {width!r}")
            out.append(Command(name, (width, *(str(a) for a in args[1:]))))
        else:
            what = {"dash": ("power", "direction"), "turn": ("moment",), "kick": ("power", "direction"),
                    "move": ("x", "y"), "catch": ("direction",)}.get(name, ())
            out.append(Command(name, tuple(_number(a, w, name) for a, w in zip(args, what, strict=False))))
    return out


def _bad_foul(word: object) -> str:
    raise CommandError("illegal_command_form", f"(tackle POWER_OR_ANGLE [FOUL]): FOUL is true, false, on or off, "
                       f"got {word!r}")


def parse_init(text: str) -> Init:
    """A UDP client's first message, ``(init TEAM [(version V)] [(goalie)])``."""
    nodes = _tree(text)
    if len(nodes) != 1 or not isinstance(nodes[0], list) or not nodes[0] or nodes[0][0] != "init":
        raise CommandError("illegal_command_form", f"a player's first message is (init TEAM (version V)), got "
                           f"{text.strip()[:60]!r}")
    node = nodes[0]
    if len(node) < 2 or not isinstance(node[1], str) or not _NAME.match(node[1]):
        raise CommandError("illegal_command_form", "(init TEAM ...): TEAM is 1-15 letters, digits, _ or -")
    version, goalie = 3.0, False
    for option in node[2:]:
        if isinstance(option, list) and len(option) == 2 and option[0] == "version":
            version = _number(option[1], "version", "init")
        elif option == ["goalie"]:
            goalie = True
        else:
            raise CommandError("illegal_command_form", f"(init ...): unknown option {option!r}")
    return Init(node[1], version, goalie)


def check_team(name: str) -> str:
    if not _NAME.match(name):
        raise CommandError("illegal_command_form", f"a team name is 1-15 letters, digits, _ or -, got {name!r}")
    return name
