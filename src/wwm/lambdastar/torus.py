"""The toroidal grid of Λ*: cell numbering, the nine king-move actions, Moore neighbourhoods,
toroidal Chebyshev distance and the one-step approach, all precomputed as numpy tables.

Cells are indexed 0..N-1 row-major in code; the wire and the paper number them 1..N (cell
``index + 1``). Actions are 0..8 in code, 1..9 on the wire, in the order
up-left, up, up-right, left, stay, right, down-left, down, down-right.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

Grid = int | tuple[int, int]
"""A grid size: its side (a square) or (rows, columns)."""

ACTION_NAMES: tuple[str, ...] = ("up-left", "up", "up-right", "left", "stay", "right",
                                 "down-left", "down", "down-right")
STAY = 4
# (row step, column step) of each action, in action order
STEPS: tuple[tuple[int, int], ...] = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))


class Torus:
    """An m-by-n toroidal grid with its lookup tables (built once per size, then shared)."""

    def __init__(self, rows: int, cols: int | None = None) -> None:
        cols = rows if cols is None else cols
        if rows < 3 or cols < 3:
            raise ValueError(f"the grid must be at least 3x3 (got {rows}x{cols})")
        self.rows, self.cols = rows, cols
        self.size = rows * cols
        r, c = np.divmod(np.arange(self.size), cols)
        self.row, self.col = r, c
        dr = np.abs(r[:, None] - r[None, :])
        dc = np.abs(c[:, None] - c[None, :])
        dr = np.minimum(dr, rows - dr)
        dc = np.minimum(dc, cols - dc)
        self.distance: np.ndarray = np.maximum(dr, dc).astype(np.int16)
        """``distance[a, b]``: toroidal Chebyshev distance between cells a and b."""
        self._neighbourhoods: dict[int, np.ndarray] = {}
        self.moves: np.ndarray = self.neighbourhood_table(1)
        """``moves[cell, action]``: the cell an action leads to (row-major 3x3 block)."""
        self.approach: np.ndarray = self._approach_table()
        """``approach[target, source]``: the king-move action from source towards target."""

    def index(self, row: int, col: int) -> int:
        """The 0-based index of the cell at (row, col), both 0-based, wrapping."""
        return (row % self.rows) * self.cols + (col % self.cols)

    def neighbourhood_table(self, k: int) -> np.ndarray:
        """``[N, (2k+1)**2]``: each cell's range-k Moore neighbourhood, centre included,
        row-major from the upper-left corner, wrapping around the torus (built once per k)."""
        if k not in self._neighbourhoods:
            self._neighbourhoods[k] = self._neighbourhood_table(k)
        return self._neighbourhoods[k]

    def _neighbourhood_table(self, k: int) -> np.ndarray:
        if k < 1:
            raise ValueError(f"the observation range must be at least 1 (got {k})")
        offsets = [(dr, dc) for dr in range(-k, k + 1) for dc in range(-k, k + 1)]
        table = np.empty((self.size, len(offsets)), dtype=np.int32)
        for j, (dr, dc) in enumerate(offsets):
            table[:, j] = ((self.row + dr) % self.rows) * self.cols + (self.col + dc) % self.cols
        return table

    def neighbourhood(self, cell: int, k: int = 1) -> list[int]:
        cells: list[int] = self.neighbourhood_table(k)[cell].tolist()
        return cells

    def move(self, cell: int, action: int) -> int:
        return int(self.moves[cell, action])

    def _approach_table(self) -> np.ndarray:
        """Per axis: go the direct way unless that is longer than half the axis, in which
        case wrap; a tie at exactly half goes the direct way (as the authors' code does)."""
        def axis(target: np.ndarray, source: np.ndarray, n: int) -> np.ndarray:
            diff = target[:, None] - source[None, :]
            step = np.sign(diff)
            wrap = np.abs(diff) > n // 2
            toward: np.ndarray = np.where(wrap, -step, step)
            return toward

        sr = axis(self.row, self.row, self.rows)
        sc = axis(self.col, self.col, self.cols)
        table: np.ndarray = ((sr + 1) * 3 + (sc + 1)).astype(np.int8)
        return table

    def step_towards(self, target: int, source: int) -> int:
        return int(self.approach[target, source])

    def entropy(self) -> float:
        """H(μ) = log2 of the number of ordered placements of Good and Evil, N(N-1)."""
        return float(np.log2(self.size) + np.log2(self.size - 1))


@lru_cache(maxsize=16)
def torus(rows: int, cols: int | None = None) -> Torus:
    """The shared, cached :class:`Torus` of this size."""
    return Torus(rows, cols)


def grid_shape(grid: object) -> tuple[int, int]:
    """(rows, columns) of a grid given as its side (a square), as (rows, columns) or
    [rows, columns], or as text: ``10`` or ``5x10``. A ValueError names what is wrong."""
    if isinstance(grid, str):
        found = re.fullmatch(r"\s*(\d+)\s*(?:[x×]\s*(\d+)\s*)?", grid.lower())
        if not found:
            raise ValueError(f"a grid is a side such as 10 or ROWSxCOLUMNS such as 5x10 (got {grid!r})")
        rows = int(found[1])
        shape = (rows, int(found[2]) if found[2] else rows)
    elif isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        shape = (int(grid), int(grid))
    elif (isinstance(grid, (tuple, list)) and len(grid) == 2
          and all(isinstance(g, (int, np.integer)) and not isinstance(g, bool) for g in grid)):
        shape = (int(grid[0]), int(grid[1]))
    else:
        raise ValueError(f"a grid is a side such as 10 or [rows, columns] such as [5, 10] (got {grid!r})")
    if min(shape) < 3:
        raise ValueError(f"the grid must be at least 3x3 (got {shape[0]}x{shape[1]})")
    return shape


def grid_value(grid: object) -> Grid:
    """A grid in its plain form: the side of a square, else (rows, columns)."""
    rows, cols = grid_shape(grid)
    return rows if rows == cols else (rows, cols)


def grid_text(grid: object) -> str:
    """``5x10`` (``10x10`` for a square of side 10)."""
    rows, cols = grid_shape(grid)
    return f"{rows}x{cols}"


def grid_arg(grid: object) -> int | str:
    """A grid as an argument on the wire: the side of a square, else ``ROWSxCOLUMNS``."""
    value = grid_value(grid)
    return value if isinstance(value, int) else grid_text(value)
