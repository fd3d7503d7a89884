"""The World's own drawing on a portal run's page (issue 26 item 3): fetched by the portal from
the World's display page of the run, drawn as SVG once, and shared by every viewer of the run.

A World that can draw itself offers ``display_grid()`` (:mod:`wwm.server.drawing`): its
display page of a run (``GET /display/{token}.json``, the URL the run's ``world-display``
event names) then carries the ``grid``. :class:`Pictures` fetches that JSON (through
:mod:`.fetching`, so a public portal's address policy holds) at most once every ``every``
seconds per run, however many viewers ask, makes the SVG with the World server's own
drawing code, and keeps the latest picture of the last ``keep`` runs it was asked about.

Why the portal fetches rather than each browser: with many viewers the World's server is
asked once per interval, not once per viewer and step; the SVG is made (and, pushed live,
encoded to JSON) once; and browsers load nothing from other origins (the portal's CSP allows
none). A World's server forgets a run when it ends, so the picture of a finished run is the
last one this process got (a portal restarted since has none: the page says so).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..server.drawing import grid_svg, looks_of
from .fetching import Fetched, FetchError, Policy, fetch

Fetch = Callable[[str, Policy], Awaitable[Fetched]]


@dataclass(frozen=True)
class Picture:
    """One drawing of a run's World: the SVG (made by :func:`wwm.server.drawing.grid_svg`
    from escaped values), its caption and legend (each kind's colour), and its ``version``
    (1, 2, ... within the run: a viewer is sent a picture only when the version moves on)."""

    svg: str
    caption: str
    legend: list[dict[str, str]]
    version: int
    encoded: str = field(init=False, repr=False, compare=False)   # message() as JSON, made once

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoded", json.dumps(self.message(), allow_nan=False))

    def message(self) -> dict[str, Any]:
        return {"svg": self.svg, "caption": self.caption, "legend": self.legend, "version": self.version}


MAX_SIDE = 400        # cells a drawn grid may have on a side (a World's answer is not trusted)
MAX_MARKS = 20_000    # marks a drawn grid may have


def picture_of(grid: Any, version: int) -> Picture | None:
    """The picture of a display page's ``grid``; None for one that cannot be drawn (or that
    is too big to draw: more than :data:`MAX_SIDE` cells on a side, :data:`MAX_MARKS` marks)."""
    if not isinstance(grid, dict) or "error" in grid:
        return None
    try:
        marks = grid.get("marks") or {}
        if not (0 < int(grid["columns"]) <= MAX_SIDE and 0 < int(grid["rows"]) <= MAX_SIDE) \
                or sum(len(cells) for cells in marks.values()) > MAX_MARKS:
            return None
        looks = looks_of(grid)
        svg = grid_svg(grid)
    except (KeyError, TypeError, ValueError):
        return None
    legend = [{"kind": str(kind), "colour": looks.get(str(kind), ("dot", "#6b7280"))[1]}
              for kind in grid.get("marks", {})]
    return Picture(svg, str(grid.get("caption", ""))[:300], legend, version)


@dataclass
class _Entry:
    url: str
    picture: Picture | None = None
    grid: str | None = None      # the last grid's JSON, to tell a new drawing from the same one
    at: float = -1e18            # when it was last fetched (the clock's seconds)
    gone: bool = False           # the World's server no longer shows the run (it ended there)
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class Pictures:
    """The latest picture of each run, fetched at most once every ``every`` seconds per run
    (see the module's docstring). ``clock`` and ``fetcher`` are injectable for tests."""

    def __init__(self, policy: Policy, *, every: float = 0.25, keep: int = 256,
                 clock: Callable[[], float] = time.monotonic, fetcher: Fetch = fetch) -> None:
        self.policy = dataclasses.replace(policy, timeout=min(policy.timeout, 3.0))   # a picture is not worth a wait
        self.every, self.keep, self.clock, self.fetcher = every, keep, clock, fetcher
        self._entries: collections.OrderedDict[int, _Entry] = collections.OrderedDict()
        self.fetches = 0

    def known(self, run_id: int) -> Picture | None:
        """The last picture of ``run_id`` this process got, without fetching."""
        entry = self._entries.get(run_id)
        return entry.picture if entry is not None else None

    async def latest(self, run_id: int, display_url: str | None, *, wait: float | None = None) -> Picture | None:
        """The latest picture of ``run_id`` from its World's display page ``display_url``
        (fetched if the last fetch is ``every`` seconds old; viewers asking meanwhile share
        the fetch under way, waiting for it at most ``wait`` seconds: None, until it is done);
        None if the World offers none (or cannot be reached)."""
        if not display_url:
            return self.known(run_id)
        entry = self._entries.get(run_id)
        if entry is None or entry.url != display_url:
            entry = self._entries[run_id] = _Entry(display_url)
            while len(self._entries) > self.keep:
                self._entries.popitem(last=False)
        self._entries.move_to_end(run_id)
        if entry.task is None and not entry.gone and self.clock() - entry.at >= self.every:
            entry.at = self.clock()
            entry.task = asyncio.ensure_future(self._fetch(entry))
        if entry.task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(entry.task), wait)
        return entry.picture

    async def _fetch(self, entry: _Entry) -> None:
        try:
            self.fetches += 1
            url = entry.url.split("?", 1)[0].split("#", 1)[0]
            got = await self.fetcher(url if url.endswith(".json") else f"{url}.json", self.policy)
            if got.status == 404:
                entry.gone = True   # the run ended on the World's server: its last picture stays
                return
            if got.status != 200:
                return
            grid = json.loads(got.body).get("grid")
            text = json.dumps(grid, sort_keys=True)
            if text != entry.grid:
                # drawn in a worker thread: a big grid takes a while, and the loop serves the viewers
                picture = await asyncio.to_thread(picture_of, grid, (entry.picture.version if entry.picture else 0) + 1)
                if picture is not None:
                    entry.picture, entry.grid = picture, text
        except (FetchError, ValueError, AttributeError):
            pass    # the page shows the last picture, and the link to the World's own page
        finally:
            entry.task = None
