"""The Tileworld drawn as a grid for a run's display page (and the portal's run page): holes,
chargers, obstacles, tiles and robots in the form :mod:`wwm.server.drawing` draws as SVG.

Both Tileworld servers' run objects offer it by ``display_grid()`` (``TileworldWorld``, one
world per client, and ``RobotBody``, one robot of a shared world): the client's own robot is
the ``agent``, the others ``robot``.
"""

from __future__ import annotations

from typing import Any

from .engine import Engine

# kind -> [shape, colour] (wwm.server.drawing's looks); obstacles and agents keep its defaults
LOOKS: dict[str, list[str]] = {"hole": ["block", "#1f2937"], "charger": ["dot", "#eab308"],
                               "tile": ["diamond", "#b45309"], "robot": ["disc", "#64748b"]}


def tileworld_grid(engine: Engine, robot: int) -> dict[str, Any]:
    """The picture of ``engine`` seen from robot ``robot`` (cells are [column, row], row 0 at
    the top): its caption says the world's time, the robot's team score and the result once over."""
    def cell(rc: tuple[int, int]) -> list[int]:   # engine cells are (row, column)
        return [int(rc[1]), int(rc[0])]

    me = engine.agents[robot] if 0 <= robot < len(engine.agents) else None
    marks = {
        "hole": [cell(c) for c in sorted(engine.hole_at)],
        "charger": [cell(c) for c in engine.chargers],
        "obstacle": [cell(c) for c in sorted(engine.obstacles)],
        "tile": [cell(c) for c in sorted(engine.tiles)],
        "robot": [cell(a.cell) for a in engine.agents if me is None or a.id != me.id],
        "agent": [cell(me.cell)] if me is not None else [],
    }
    score = engine.teams[me.team].score if me is not None else 0
    over = f" · over (result {engine.result})" if engine.finished else ""
    return {"columns": engine.config.columns, "rows": engine.config.rows, "y_up": False,
            "marks": {k: v for k, v in marks.items() if v}, "looks": LOOKS,
            "caption": f"time {engine.time:.0f} s · score {score}{over}"}
