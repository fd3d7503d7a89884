"""Robots driven from a browser page: a person at the keyboard, or a JavaScript agent that the
person wrote in the editor and runs as a Web Worker.

A game's robot ``{"kind": "browser", "name": N}`` is a :class:`PageLink` that waits for a page
to take seat ``N`` over the ``/api/robot/N`` WebSocket (either may come first, as with the
proxy's magic strings). Once paired the page gets every line the robot is sent (T-World's
percepts, ``{"header", "data"}``) as one text message each and answers with action strings,
one per message; before that it gets ``_WAITING_``, then ``_CONNECTED_``. A seat has one page:
a second page asking for a taken or already awaited seat gets an ``error`` percept naming why.
A page that leaves mid-game frees the seat: the robot stands still until a page takes it again.
"""

from __future__ import annotations

import asyncio
import re

from . import percepts
from .links import LinkClosed
from .proxy import CONNECTED

WAITING = "_WAITING_"
OPEN_TIMEOUT = 60.0
_SEAT = re.compile(r"^[\w.-]{1,64}$")


def check_seat(name: object) -> str:
    """A seat name (letters, digits, ``_.-``, at most 64), or ValueError saying what is wrong."""
    text = str(name if name is not None else "").strip()
    if not _SEAT.match(text):
        raise ValueError(f"a browser robot needs a name of 1 to 64 letters, digits, '_', '.' or '-', got {text!r}")
    return text


def error_line(text: str) -> str:
    return percepts.message("error", text)


class Page:
    """One page's WebSocket as the seat sees it: lines to send, actions received."""

    def __init__(self, seat: str) -> None:
        self.seat = seat
        self.outgoing: asyncio.Queue[str | None] = asyncio.Queue()   # None: close the socket
        self.actions: asyncio.Queue[str] = asyncio.Queue()
        self.gone = asyncio.Event()
        self.link: PageLink | None = None
        self.sent = 0   # lines the robot has sent this page

    def take(self, text: str) -> None:
        """One message from the page: action lines (several if it sent them at once)."""
        for line in text.split("\n"):
            if line.strip():
                self.actions.put_nowait(line.strip())


class PageLink:
    """The robot's side of a seat: a :class:`~wwm.tileworld.links.Link` whose agent is a page.
    When its page leaves mid-game the seat is free again: another page (or the same one,
    reloaded) may take the robot and drive it on from the next percept."""

    def __init__(self, seats: Seats, seat: str) -> None:
        self.seats, self.seat = seats, seat
        self.name = f"browser:{seat}"
        self.page: Page | None = None
        self.arrived = asyncio.Event()
        self.refused: str | None = None   # why this robot will never be taken (a new game took its seat)
        self.closed = False

    async def open(self, timeout: float = OPEN_TIMEOUT) -> None:
        """Wait until a page has taken this robot's seat."""
        try:
            await asyncio.wait_for(self.arrived.wait(), timeout)
        except TimeoutError:
            self.seats.drop(self)
            raise LinkClosed(f"nobody took robot {self.name!r} in a browser within {timeout:.0f} s") from None
        if self.refused is not None:
            raise LinkClosed(self.refused)

    def _driver(self) -> Page:
        page = self.page
        if page is None or page.gone.is_set():
            raise LinkClosed(f"the page driving {self.name!r} has gone")
        return page

    async def send(self, line: str) -> None:
        page = self._driver()
        page.outgoing.put_nowait(line.rstrip("\n"))
        page.sent += 1

    async def receive(self, timeout: float) -> str | None:
        page = self._driver()
        if not page.actions.empty():
            return page.actions.get_nowait()
        if page.sent == 0:   # it took the robot between a percept and its answer: no wait, a fresh percept
            await asyncio.sleep(min(timeout, 0.05))
            return None
        action = asyncio.ensure_future(page.actions.get())
        gone = asyncio.ensure_future(page.gone.wait())
        try:
            await asyncio.wait({action, gone}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not action.done():
                action.cancel()
        if action.done() and not action.cancelled():
            return action.result()
        self._driver()   # raises if the page went while we waited
        return None

    async def close(self) -> None:
        self.closed = True
        self.seats.drop(self)
        if self.page is not None and not self.page.gone.is_set():
            self.page.outgoing.put_nowait(None)   # after the lines queued before it
        if not self.arrived.is_set():
            self.refused = f"the game of {self.name!r} is over"
            self.arrived.set()


class Seats:
    """Pairs browser robots of the running game with the pages that take them, by seat name."""

    def __init__(self) -> None:
        self.links: dict[str, PageLink] = {}   # robots waiting for a page
        self.pages: dict[str, Page] = {}       # pages waiting for a robot, or driving one

    def robot(self, seat: str) -> PageLink:
        """A new robot for ``seat``; it replaces a robot of an earlier game still waiting there."""
        old = self.links.pop(seat, None)
        if old is not None and not old.arrived.is_set():
            old.refused = f"a new game took seat {seat!r}"
            old.arrived.set()
        link = PageLink(self, seat)
        page = self.pages.get(seat)
        if page is not None and page.link is None:
            self._pair(link, page)
        else:
            self.links[seat] = link
        return link

    def arrive(self, page: Page) -> bool:
        """A page asks for its seat: True when paired at once, False when it waits; ValueError
        when another page has the seat."""
        if page.seat in self.pages:
            other = self.pages[page.seat]
            state = "drives" if other.link is not None else "waits for"
            raise ValueError(f"another page already {state} robot 'browser:{page.seat}'")
        self.pages[page.seat] = page
        link = self.links.pop(page.seat, None)
        if link is None:
            return False
        self._pair(link, page)
        return True

    def leave(self, page: Page) -> None:
        """A page has gone; the robot it drove, if its game goes on, waits for another."""
        page.gone.set()
        if self.pages.get(page.seat) is page:
            del self.pages[page.seat]
        link = page.link
        if link is not None and link.page is page and not link.closed and page.seat not in self.links:
            self.links[page.seat] = link

    def drop(self, link: PageLink) -> None:
        if self.links.get(link.seat) is link:
            del self.links[link.seat]

    def _pair(self, link: PageLink, page: Page) -> None:
        page.link, link.page = link, page
        link.arrived.set()
        page.outgoing.put_nowait(CONNECTED)
