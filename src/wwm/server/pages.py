"""What a server shows at its URL: the JSON card for programs, the HTML page for people
(what it is, its query sets, the formats of state and action, its arguments, its credit
trail), and the live display page of a run (with a table of whatever the run's object adds
by an optional ``display_details()``, e.g. an AS server's minds and their last answers, and
a picture of the grid it offers by an optional ``display_grid()``: see :mod:`.drawing`).

Here is what the pages show; how they look is in the templates (``wwm/server/templates/``,
see :mod:`.templates`).
"""

from __future__ import annotations

import inspect
import json
import time
from typing import TYPE_CHECKING, Any

from ..protocol import queries as Q
from ..protocol.interfaces import World
from .drawing import figure
from .templates import render

if TYPE_CHECKING:
    from .dispatch import Dispatcher
    from .runs import Run


def card(d: Dispatcher) -> dict[str, Any]:
    cls = d.cls
    doc = inspect.getdoc(cls) or ""
    base = d.url.rstrip("/")
    websocket = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + "/ws"
    info: dict[str, Any] = {
        "wwm": Q.PROTOCOL_VERSION,
        "name": getattr(cls, "title", None) or cls.__name__,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "role": d.role,
        "summary": doc.split("\n\n", 1)[0].replace("\n", " "),
        "description": doc,
        "url": d.url,
        "websocket": websocket,
        "query_sets": sorted(d.query_sets),
        "queries": [s.name for s in Q.queries_of(d.role, d.query_sets)],
        # the seed's own spelling of a query, answered as that query (and named as asked)
        "query_aliases": {a: s.name for s in Q.queries_of(d.role, d.query_sets) for a in s.aliases},
        "bindings": {"http": d.url, "websocket": websocket, **d.bindings},
        "encodings": ["application/xml", "application/json"],
        "understands": Q.UNDERSTANDS,  # what else of a message it reads, and what it ignores (11.2)
        "state_format": getattr(cls, "state_format", "opaque text"),
        "action_format": getattr(cls, "action_format", "opaque text"),
        **({"state_example": example} if (example := getattr(cls, "state_example", None)) else {}),
        # one source for all three: the arguments in force, start-up defaults over the class's
        "arguments": d.arguments.schema(d.in_force),
        "arguments_in_force": d.in_force,
        "defaults": {k: v["value"] for k, v in d.in_force.items() if v["set"] == "start"},
        "display_url": f"{base}/display/{{token}}",
        "runs_in_progress": len(d.runs.runs),
        "runs_ended": d.runs.ended,
        "credit_trail": d.trail.as_dict(),
    }
    if d.access is not None:  # the owner's rules (4.3): whether a token is needed, never the token
        info["access"] = d.access.describe()
    if issubclass(cls, World):
        info["sharing"] = getattr(cls, "sharing", "own")
        info["clock"] = getattr(cls, "clock", "synchronous")
        if info["sharing"] == "exclusive":
            info["lease_seconds"] = cls.lease_seconds
            info["in_use"] = d.runs.holder is not None
        if info["clock"] == "asynchronous":
            info["tick_seconds"] = cls.tick_seconds
    # optional, machine-readable: the spaces of state and action (wwm.gym.spaces' JSON form)
    for field in ("state_space", "action_space", "max_episode_steps"):
        if getattr(cls, field, None):
            info[field] = getattr(cls, field)
    return info


def run_view(d: Dispatcher, run: Run) -> dict[str, Any]:
    return {
        "server": d.url,
        "role": d.role,
        "name": getattr(d.cls, "title", None) or d.cls.__name__,
        "started": run.started,
        "seconds": round(time.time() - run.started, 1),
        "queries": run.queries,
        "state": run.last_state,
        "action": run.last_action,
        "score": run.score,
        "client_url": run.client_url,
        **({"details": details} if (details := _offered(run.obj, "display_details")) is not None else {}),
        **({"grid": grid} if (grid := _offered(run.obj, "display_grid")) is not None else {}),
        # a frame image (PNG) beside the page, from the object's optional display_frame()
        **({"frame": f"{run.display_token}.png"} if _draws_frames(run.obj) else {}),
    }


def _draws_frames(obj: Any) -> bool:
    """Whether a run's object offers frame images: a ``display_frame()`` method, and (when it
    says) ``draws_frames`` true."""
    return callable(getattr(obj, "display_frame", None)) and bool(getattr(obj, "draws_frames", True))


def _offered(obj: Any, hook_name: str) -> Any:
    """What a run's object offers its display page besides state, action and score: the
    JSON-able value of its optional ``display_details()`` or ``display_grid()`` (None when
    it has none)."""
    hook = getattr(obj, hook_name, None)
    if not callable(hook):
        return None
    try:
        return json.loads(json.dumps(hook(), default=str))
    except Exception as exc:  # the page still shows the run
        return {"error": f"{hook_name}() failed: {type(exc).__name__}: {exc}"}


def icon() -> str:
    """The server's icon (SVG): in every page's head as a data: URL, so a browser asks for
    none, and served at /favicon.ico for what is no page of ours (the JSON card opened in a
    browser)."""
    return render("icon.svg")


def description_page(c: dict[str, Any]) -> str:
    return render("description.html", card=c)


def _picture(grid: Any) -> dict[str, Any] | None:
    """The run's picture, when its object offers one: its figure, or why it could not be
    drawn."""
    if grid is None:
        return None
    try:
        return {"figure": figure(grid)}
    except Exception as exc:
        reason = grid.get("error") if isinstance(grid, dict) and "error" in grid else f"{type(exc).__name__}: {exc}"
        return {"error": reason}


def display_page(view: dict[str, Any]) -> str:
    details, grid = view.get("details"), view.get("grid")
    return render("display.html", view=view, picture=_picture(grid), details=details,
                  live={"details": details, "grid": grid})


def gone_page() -> str:
    return render("gone.html")
