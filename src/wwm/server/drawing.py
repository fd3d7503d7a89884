"""Pictures on a run's display page, drawn on the server as SVG: no script is needed to see
them, and a test can read them.

A run's object offers a picture with an optional ``display_grid()`` returning a grid::

    {"columns": 10, "rows": 10, "y_up": true,
     "marks": {"food": [[1, 2], [6, 6]], "hazard": [[2, 1]], "agent": [[5, 5]]},
     "caption": "step 3 of 100 · score 1",
     "looks": {"swamp": ["block", "#a3b18a"]}}

Cells are ``[x, y]``, x counted from the left, y from the bottom when ``y_up`` (else from the
top). Marks are drawn in the order given, so the last kind is on top. The kinds in
:data:`LOOKS` have their own look (``wall`` and ``obstacle`` fill their cell); any other kind
is a grey dot, named in the legend all the same, unless the grid's optional ``looks`` gives it
a shape (``disc``, ``dot``, ``diamond`` or ``block``) and a colour.

Here is the geometry (:func:`layout`, :func:`figure`); the markup is in the templates
``grid.svg`` and ``figure.html``.
"""

from __future__ import annotations

import re
from typing import Any

from .templates import render

_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")

# kind -> (shape, colour): "disc" a circle filling most of the cell, "dot" a small circle,
# "diamond" a square on its point, "block" the whole cell
LOOKS: dict[str, tuple[str, str]] = {
    "agent": ("disc", "#1d4ed8"),
    "food": ("dot", "#16a34a"),
    "hazard": ("diamond", "#dc2626"),
    "predator": ("diamond", "#dc2626"),
    "nest": ("block", "#f59e0b"),
    "wall": ("block", "#374151"),
    "obstacle": ("block", "#374151"),
}
OTHER = ("dot", "#6b7280")
GLYPHS = {"disc": "●", "dot": "•", "diamond": "◆", "block": "■"}  # each shape in the legend
MAX_SIDE = 480  # pixels: the picture's longer side, unless cells would be under MIN_CELL
MIN_CELL, MAX_CELL = 6, 48


def looks_of(grid: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each kind's (shape, colour): the grid's own ``looks`` first, then :data:`LOOKS`. A
    ValueError names a look that is not a known shape and a colour."""
    looks = dict(LOOKS)
    for kind, look in (grid.get("looks") or {}).items():
        if not (isinstance(look, (list, tuple)) and len(look) == 2 and look[0] in GLYPHS
                and isinstance(look[1], str) and _COLOUR.fullmatch(look[1])):
            raise ValueError(f"the look of {kind!r} must be [shape, '#rrggbb'] with a shape of "
                             f"{', '.join(GLYPHS)}, got {look!r}")
        looks[str(kind)] = (look[0], look[1])
    return looks


def _mark(kind: str, x: int, y: int, left: float, top: float, cell: float,
          looks: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """One mark in the cell whose top left corner is (left, top): its kind, grid
    coordinates, look, and the numbers its shape is drawn with."""
    shape, colour = looks.get(kind, OTHER)
    mark: dict[str, Any] = {"kind": kind, "x": x, "y": y, "shape": shape, "colour": colour}
    cx, cy, half = left + cell / 2, top + cell / 2, cell / 2
    if shape == "block":
        return mark | {"left": f"{left:g}", "top": f"{top:g}", "cell": f"{cell:g}"}
    if shape == "diamond":
        r = half * 0.8
        return mark | {"points": f"{cx:g},{cy - r:g} {cx + r:g},{cy:g} {cx:g},{cy + r:g} {cx - r:g},{cy:g}"}
    r = half * (0.8 if shape == "disc" else 0.4)
    return mark | {"cx": f"{cx:g}", "cy": f"{cy:g}", "r": f"{r:g}"}


def layout(grid: dict[str, Any]) -> dict[str, Any]:
    """Where everything of a grid (see the module docstring) goes: cells are squares sized so
    the longer side is about :data:`MAX_SIDE` pixels. A ValueError for a grid of no cells."""
    columns, rows = int(grid["columns"]), int(grid["rows"])
    if columns < 1 or rows < 1:
        raise ValueError(f"a grid of {columns}x{rows} cells has nothing to draw")
    cell = max(MIN_CELL, min(MAX_CELL, MAX_SIDE // max(columns, rows)))
    width, height = columns * cell, rows * cell
    lines = "".join(f"M{i * cell} 0V{height}" for i in range(1, columns)) + \
        "".join(f"M0 {j * cell}H{width}" for j in range(1, rows))
    marks = []
    looks = looks_of(grid)
    for kind, cells in grid.get("marks", {}).items():
        for x, y in cells:
            x, y = int(x), int(y)
            row = rows - 1 - y if grid.get("y_up") else y
            marks.append(_mark(str(kind), x, y, x * cell, row * cell, cell, looks))
    return {"columns": columns, "rows": rows, "width": width, "height": height, "lines": lines, "marks": marks}


def figure(grid: dict[str, Any]) -> dict[str, Any]:
    """A grid's layout with its caption and a legend of the kinds of mark it shows."""
    known = looks_of(grid)
    looks = {str(kind): known.get(str(kind), OTHER) for kind in grid.get("marks", {})}
    legend = [{"kind": kind, "glyph": GLYPHS[shape], "colour": colour} for kind, (shape, colour) in looks.items()]
    return {"svg": layout(grid), "caption": grid.get("caption", ""), "legend": legend}


def grid_svg(grid: dict[str, Any]) -> str:
    """A grid as an inline ``<svg class="grid">``; ``data-columns`` and ``data-rows`` give
    its size, and each mark has its kind as class and its cell as ``data-x``, ``data-y``."""
    return render("grid.svg", svg=layout(grid))


def grid_figure(grid: dict[str, Any]) -> str:
    """The grid's SVG with its caption and a legend, as a ``<figure>``."""
    return render("figure.html", figure=figure(grid))
