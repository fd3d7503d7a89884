"""A person drives a robot of a WWM-served Tileworld (a :class:`~.shared_world.SharedTileworld`
beside other clients' robots, or a :class:`~.wwm_world.TileworldWorld`) from the person's page
of :mod:`wwm.people`.

``wwm serve wwm.tileworld.person:TileworldPersonMind`` serves a Mind whose "Get action" a
person answers: ``wwm run --world URL-of-the-shared-world --mind URL-of-this`` joins the world
as one more client, and each step the page shows what that robot sees, drawn as a text board
(:func:`board`: the robot's percept, in the form the world sent it, JSON, XML or Prolog), and
offers T-World's moves as buttons; a team message is typed (``team_message:<text>``,
``message:<id>:<text>``). Everything else is the person-mind's: the countdown, "Cannot suggest
action", the time-out, the history.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ..people.mind import PersonMind
from ..protocol.errors import Refusal
from ..protocol.results import Suggestion
from .actions import parse_action
from .forms import FormError, decode
from .wwm_world import TileworldWorld

MOVES = ("north", "south", "east", "west", "none", "restore")
_MESSAGE = re.compile(r"^(?:team_message|tm_msg|message|msg):", re.IGNORECASE)
LEGEND = ("@ you   A another robot   T tile   # obstacle   C charger\n"
          "a number: a hole (its id)   . empty   ~ beyond the world's edge")


def read_percept(state: str) -> dict[str, Any]:
    """The T-World percept ``state`` is (any of its three forms), or a refusal naming why not."""
    try:
        percept = decode(state)
        percept["data"]["agent"]["location"]
    except (FormError, ValueError, KeyError, TypeError) as exc:
        raise Refusal("bad-parameters", f"not a T-World percept: {exc!s:.80}") from None
    return percept


def board(percept: dict[str, Any]) -> str:
    """What the robot sees, as a person reads it: a line about the robot, the grid it sees
    (the whole world, or its window under partial observability) with row and column numbers,
    a legend, then its holes, the other robots and the messages it was sent."""
    data = percept["data"]
    env, me = data["environment"], data["agent"]
    grid: list[list[Any]] = env["grid"]
    here = (me["location"]["row"], me["location"]["column"])
    obstacles = {(o["row"], o["column"]) for o in env.get("obstacles", [])}
    knowledge = data.get("builtin_knowledge", {})
    ends = ((knowledge.get("end") or {}).get("neutral") or {}).get("time")
    clock = f"t = {env.get('time', 0)} s" + (f" of {ends:g}" if isinstance(ends, int | float) else "")
    battery = f" · battery {me['battery']}" if (knowledge.get("costs") or {}).get("battery") else ""
    lines = [f"Robot {me['id']} (team {me.get('team_id', 0)}) · score {me.get('score', 0)} · {clock}{battery}",
             f"What it sees ({len(grid)} × {len(grid[0]) if grid else 0} cells; north is up):", ""]
    width = max([2] + [len(str(c)) + 1 for row in grid for c in row if isinstance(c, int)])
    lines.append("    " + "".join(f"{c:>{width}}" for c in range(len(grid[0]) if grid else 0)))
    for r, row in enumerate(grid):
        cells = []
        for c, code in enumerate(row):
            if (r, c) == here:
                mark = "@"
            elif code == " ":
                mark = "."
            elif code == "#" and (r, c) not in obstacles:
                mark = "~"
            else:
                mark = str(code)
            cells.append(f"{mark:>{width}}")
        lines.append(f"{r:>4}" + "".join(cells))
    lines += ["", LEGEND]
    holes = [f"hole {h['id']}: {len(h.get('cells', []))} cell(s), worth {h.get('value', '?')}"
             + (f", {h['lifetime_left']} s left" if "lifetime_left" in h else "") for h in env.get("holes", [])]
    others = [f"robot {a['id']} (team {a.get('team_id', 0)}) at row {a['location']['row']}, "
              f"column {a['location']['column']}" for a in env.get("agents", []) if a.get("id") != me["id"]]
    heard = [f"from robot {m.get('from')}{' to the team' if m.get('team') else ''}: {m.get('text')}"
             for m in percept.get("messages") or []]
    for title, items in (("Holes", holes), ("Other robots", others), ("Messages", heard)):
        if items:
            lines.append(f"{title}: " + "; ".join(items))
    return "\n".join(lines)


class TileworldPersonMind(PersonMind):
    """A person driving a Tileworld robot at the person's page: they see the robot's percept
    drawn as a board and answer with a move (the page's buttons), ``none``, ``restore``, or a
    typed message. ``timeout``, ``page_port``, ``host`` and ``title`` are the person-mind's."""

    state_format: ClassVar[str] = TileworldWorld.state_format
    action_format: ClassVar[str] = ("a T-World action the person picks: north, south, east, west, none or restore "
                                    "(buttons), or a typed team_message:<text> or message:<id>:<text>")

    def __init__(self, timeout: float = 60.0, page_port: int = 0, host: str = "127.0.0.1",
                 title: str = "a person driving a Tileworld robot") -> None:
        super().__init__(actions=",".join(MOVES), timeout=timeout, page_port=page_port, host=host, title=title)

    def shown(self, state: str) -> str:
        return board(read_percept(state))

    def noted(self, state: str) -> str:
        try:
            percept = read_percept(state)
        except Refusal:
            return state[:200]
        me = percept["data"]["agent"]
        return (f"t = {percept['data']['environment'].get('time', 0)} s: robot {me['id']} at row "
                f"{me['location']['row']}, column {me['location']['column']}, score {me.get('score', 0)}")

    def read(self, form: dict[str, Any]) -> str | None:
        text = str(form.get("action") or "").strip()
        if _MESSAGE.match(text):
            parsed = parse_action(text)   # an ActionError (a ValueError) says what is wrong
            if not parsed.is_message:
                raise ValueError(f"{text!r} is not a message")
            return str(parsed)
        try:
            return super().read(form)
        except ValueError as exc:
            if "not an allowed action" not in str(exc):
                raise
            raise ValueError(f"{exc}, or a typed team_message:<text> or message:<id>:<text>") from None

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        if read_percept(state)["header"] == "end":
            return Suggestion.cannot("the Tileworld run is over")
        return await super().get_action(state, **step)
