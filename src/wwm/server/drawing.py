"""Pictures on a run's display page, drawn on the server as SVG: no script is needed to see
them, and a test can read them.

A run's object offers a picture with an optional ``display_grid()`` returning a grid::

    {"columns": 10, "rows": 10, "y_up": true,
     "marks": {"food": [[1, 2], [6, 6]], "hazard": [[2, 1]], "agent": [[5, 5]]},
     "caption": "step 3 of 100 · score 1"}

Cells are ``[x, y]``, x counted from the left, y from the bottom when ``y_up`` (else from the
top). Marks are drawn in the order given, so the last kind is on top. The kinds in
:data:`LOOKS` have their own look (``wall`` and ``obstacle`` fill their cell); any other kind
is a grey dot, named in the legend all the same.
"""

from __future__ import annotations

import html
from typing import Any

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


def _e(value: Any) -> str:
    return html.escape(str(value))


def _mark(kind: str, x: int, y: int, left: float, top: float, cell: float) -> str:
    """One mark in the cell whose top left corner is (left, top), tagged with its kind and
    grid coordinates (class, data-x, data-y) and titled for a pointer resting on it."""
    shape, colour = LOOKS.get(kind, OTHER)
    tag = f'class="{_e(kind)}" data-x="{x}" data-y="{y}" fill="{colour}"'
    title = f"<title>{_e(kind)} at ({x}, {y})</title>"
    cx, cy, half = left + cell / 2, top + cell / 2, cell / 2
    if shape == "block":
        return f'<rect {tag} x="{left:g}" y="{top:g}" width="{cell:g}" height="{cell:g}">{title}</rect>'
    if shape == "diamond":
        r = half * 0.8
        points = f"{cx:g},{cy - r:g} {cx + r:g},{cy:g} {cx:g},{cy + r:g} {cx - r:g},{cy:g}"
        return f'<polygon {tag} points="{points}">{title}</polygon>'
    r = half * (0.8 if shape == "disc" else 0.4)
    return f'<circle {tag} cx="{cx:g}" cy="{cy:g}" r="{r:g}">{title}</circle>'


def grid_svg(grid: dict[str, Any]) -> str:
    """A grid (see the module docstring) as an inline ``<svg class="grid">``: a ground, one
    path for the lines between cells, then the marks; ``data-columns`` and ``data-rows`` give
    its size. Cells are squares sized so the longer side is about :data:`MAX_SIDE` pixels."""
    columns, rows = int(grid["columns"]), int(grid["rows"])
    if columns < 1 or rows < 1:
        raise ValueError(f"a grid of {columns}x{rows} cells has nothing to draw")
    cell = max(MIN_CELL, min(MAX_CELL, MAX_SIDE // max(columns, rows)))
    width, height = columns * cell, rows * cell
    lines = "".join(f"M{i * cell} 0V{height}" for i in range(1, columns)) + \
        "".join(f"M0 {j * cell}H{width}" for j in range(1, rows))
    marks = []
    for kind, cells in grid.get("marks", {}).items():
        for x, y in cells:
            x, y = int(x), int(y)
            row = rows - 1 - y if grid.get("y_up") else y
            marks.append(_mark(str(kind), x, y, x * cell, row * cell, cell))
    return (f'<svg class="grid" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" data-columns="{columns}" data-rows="{rows}" role="img" '
            f'aria-label="a grid of {columns} by {rows} cells">'
            f'<rect class="ground" width="{width}" height="{height}" fill="#f8fafc" stroke="#94a3b8"/>'
            f'<path class="lines" d="{lines}" stroke="#e2e8f0" stroke-width="1"/>'
            f'{"".join(marks)}</svg>')


def grid_figure(grid: dict[str, Any]) -> str:
    """The grid's SVG with its caption and a legend of the kinds of mark it shows."""
    looks = {str(kind): LOOKS.get(str(kind), OTHER) for kind in grid.get("marks", {})}
    legend = " ".join(f'<span class="key"><span style="color:{colour}">{GLYPHS[shape]}</span> {_e(kind)}</span>'
                      for kind, (shape, colour) in looks.items())
    caption = _e(grid.get("caption", ""))
    return f"<figure>{grid_svg(grid)}<figcaption>{caption}<br>{legend}</figcaption></figure>"
