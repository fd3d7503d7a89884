"""Running a society from start to end: check its servers, build its Mind and World, drive
them with the client algorithm, record the run in the store, show progress, close the
connections. Shared by ``wwm run``, ``wwm demo`` and the portal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..protocol.errors import Refusal
from ..protocol.records import Event, RunResult, Step
from ..store import RunStore, StoreRecorder
from .cards import wait_for_card
from .runner import Runner, RunSettings
from .society import Society, SocietyError
from .statuses import NotListening

TOP_LEVEL = ("mind", "world")  # where Society.roles() puts the document's own mind and world


class RoleError(SocietyError):
    """A server whose card says it is a World where a Mind is wanted, or the reverse; ``where``
    is the document's path to a server named in an argument (``mind.args.minds[1]``), None for
    the top-level mind or world."""

    def __init__(self, slot: str, url: str, found: str, swapped: bool = False, where: str | None = None) -> None:
        self.slot, self.url, self.found, self.swapped, self.where = slot, url, found, swapped, where
        super().__init__(self.text())

    def text(self, label: str | None = None) -> str:
        """The message, naming the slot as ``label`` (``--mind``, say) or as the document's."""
        label = label or self.where or f"the society's {self.slot}"
        hint = " (the mind and the world look swapped)" if self.swapped else ""
        return f"{self.url} is a {self.found.title()} server; {label} needs a {self.slot.title()} server{hint}"


async def run_society(society: Society, *, settings: RunSettings | None = None,
                      store: RunStore | None = None,
                      on_step: Callable[[Step, RunResult], None] | None = None,
                      on_event: Callable[[Event, RunResult], None] | None = None,
                      notify: Callable[[str], None] | None = None) -> RunResult:
    """Run ``society``; ``on_event`` hears of each event as it happens, ``notify`` of the
    wait for a server still starting. Raises :class:`RoleError` for a server of the wrong
    role, ``Refusal("unreachable")`` for one that never starts listening."""
    settings = settings or society.settings()
    await check_servers(society, wait=settings.start_wait, timeout=settings.timeout, notify=notify)
    mind, world = society.build()
    recorder = None
    if store is not None:
        recorder = StoreRecorder(store, mind_url=_where(society.mind), world_url=_where(society.world),
                                 society=society.model_dump(by_alias=True, exclude_none=True),
                                 settings=settings.as_dict(), name=society.name)
    try:
        return await Runner(mind, world, settings, recorder=recorder, on_step=on_step, on_event=on_event).run()
    finally:
        for server in (mind, world):
            close = getattr(server, "aclose", None)
            if close is not None:
                await close()


async def check_servers(society: Society, *, wait: float = 10.0, timeout: float = 5.0,
                        notify: Callable[[str], None] | None = None) -> None:
    """Before a run: read the card of every server the document names (GET ``?format=json``),
    all at once.

    - No server may be of the wrong role (:meth:`Society.roles`): a card that says
      ``"role": "world"`` where a mind is wanted, the top-level mind or one an argument names
      at any depth (an AS's ``minds``), is refused here (:class:`RoleError`, naming its path)
      rather than as a puzzling refusal of New run, or of a member's first query deep in the
      society. Only a card that positively states the other role is refused: a server
      without a readable card (a program behind ``serve-exec`` on an old version, a
      hand-written server in another language) is let through to the run.
    - A server where nothing listens yet (connection refused: started in the background a
      moment ago) is waited for up to ``wait`` seconds, saying so once through ``notify``.
      Still not listening, the top-level mind or world stops the run before it starts
      (``Refusal("unreachable")`` naming it); a server an argument names is let through, for
      the mind that calls it to judge (an AS under ``min_members`` starts without it).
    Any other trouble reading a card (a time-out, an HTTP error, not JSON) is not this check's
    to judge: the run's own queries will meet it and say so."""
    roles = [(where, url, role) for where, url, role in society.roles() if url.startswith(("http://", "https://"))]
    top = {url for where, url, _ in roles if where in TOP_LEVEL}
    urls = list(dict.fromkeys(url for _, url, _ in roles))
    if not urls:
        return
    found = await asyncio.gather(*(_card(url, wait, timeout, notify, url in top) for url in urls))
    cards = dict(zip(urls, found, strict=True))
    wrong = [(where, url, role, card["role"]) for where, url, role in roles
             if (card := cards.get(url)) is not None and card["role"] != role]
    if wrong:
        where, url, role, found_role = wrong[0]
        swapped = [w for w, *_ in wrong if w in TOP_LEVEL] == list(TOP_LEVEL)
        raise RoleError(role, url, found_role, swapped=swapped, where=None if where in TOP_LEVEL else where)


async def _card(url: str, wait: float, timeout: float, notify: Callable[[str], None] | None,
                needed: bool = True) -> dict[str, Any] | None:
    """The server's card, if it has a World-Wide-Mind one that names its role; None if it has
    none (or it cannot be read in time). Waits ``wait`` seconds for a server not listening,
    then raises ``Refusal("unreachable")`` if it is ``needed``, else says so and gives None."""
    def waiting() -> None:
        if notify is not None:
            notify(f"waiting for {url} to start")

    try:
        card = await wait_for_card(url, wait=wait, timeout=timeout, on_wait=waiting)
    except NotListening:
        waited = f", still after waiting {wait:g} s for it to start" if wait else ""
        if not needed:
            if notify is not None:
                notify(f"nothing is listening at {url}{waited}; the mind that calls it will judge")
            return None
        raise NotListening(url, wait) from None
    except Refusal:
        return None
    ok = "wwm" in card and card.get("role") in ("mind", "world")
    return card if ok else None


def _where(spec: Any) -> str:
    return spec.url or f"local:{spec.class_}"
