"""The portal's run pages (issue 14, items 5 and 6): start a combination's run, watch it live,
end it with its owner's secret.

Routes (``routes(portal, service)``, mounted by :func:`wwm.portal.app.make_app`):

- ``POST /combination/{cid}/runs`` (CSRF-checked; form ``steps``: a whole number, default
  200, or ``until ended``; or ``until_ended`` set; ``pace``: steps per second for watching,
  empty or ``flat out`` for as fast as the servers answer): starts the combination's society document
  through :class:`~wwm.portal.runs.RunService` in the portal's process, records a
  ``portal_runs`` row linked to the run-store run and the visitor, sets the end cookie, and
  sends the visitor to the run's page, which shows the secret end URL once.
- ``GET /user/{uid}/combination/{cid}/run/{rid}``: the run's page, open to anyone: its status
  in plain words (:mod:`.watching`), the World's own drawing of the run (:mod:`.pictures`),
  the score chart (SVG drawn here, extended by ``static/run.js`` from the stream), live step,
  action, state and score, the servers (their portal pages) and their display pages of this
  run; a finished run's whole record, paginated (``?page=N``). ``GET /run/{rid}`` sends on to it.
- ``GET /run/{rid}/live``: the run's server-sent events (:mod:`.live`), the World's drawings
  among them.
- ``GET /run/{rid}/end/{secret}``: a page that asks to confirm; ``POST`` there (CSRF) ends the
  run. A wrong or guessed secret is 403, a used one or a finished run 410, each a page saying so.
- ``POST /run/{rid}/end`` (CSRF): the End button of the visitor whose cookie holds the secret.

The secret itself lives only in the starter's bookmark and cookie; the database keeps its
SHA-256 (``portal_run_secrets``), so ending works across restarts of the portal.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..client.society import SocietyError, parse
from ..store import RunDetail, StepRecord
from .combinations import Portal as Pages
from .fetching import Policy
from .live import live_events
from .models import PortalRun
from .pictures import Picture, Pictures
from .runs import COULD_NOT_START, DISPLAY_EVENTS, EndRefused, RunService, check_pace
from .store import NotFound, PortalError, urls_in
from .visitors import visitor_of
from .watching import degraded_words, score_chart, status_words, totals

log = logging.getLogger(__name__)

DEFAULT_STEPS = 200
MAX_STEPS = 1_000_000
PAGE_STEPS = 100                 # steps a page of a finished run's record shows
END_COOKIE = "wwm_end_{}"         # the end secret of portal run {}, for its starter's End button
NEW_COOKIE = "wwm_new_run"        # the run whose page shows its secret URL (once)
END_COOKIE_SECONDS = 400 * 24 * 3600
UNTIL_ENDED = ("until ended", "until-ended", "until_ended", "forever")
FLAT_OUT = ("", "flat out", "flat-out", "flat_out", "0")
PICTURE_WAIT = 1.0    # seconds a page with no drawing yet waits for the one being fetched
CHART_FRESH = 1.0     # seconds a running run's chart points are reused by other viewers' pages

class Portal(Pages, Protocol):
    """What the run pages need of the application (:class:`wwm.portal.app.Portal`; app imports
    this module, not the other way round): the compose pages' needs and the address policy."""

    policy: Policy


class BadStart(PortalError):
    pass


def steps_of(form: FormData) -> int | None:
    """The number of steps the form asks for: None for "until ended"."""
    if str(form.get("until_ended") or "").strip() not in ("", "0", "off", "false"):
        return None
    text = str(form.get("steps") or "").strip()
    if not text:
        return DEFAULT_STEPS
    if text.lower() in UNTIL_ENDED:
        return None
    if not text.isdigit() or not 1 <= int(text) <= MAX_STEPS:
        raise BadStart(f"steps must be a whole number from 1 to {MAX_STEPS:,}, or \"until ended\"; "
                       f"not {text[:40]!r}")
    return int(text)


def pace_of(form: FormData) -> float | None:
    """The pace the form asks for, in steps per second: None for flat out (the default)."""
    text = str(form.get("pace") or "").strip().lower()
    if text in FLAT_OUT:
        return None
    try:
        return check_pace(float(text[:40]))
    except ValueError:
        raise BadStart(f"the pace must be a number of steps per second from 0.1 to 100, or \"flat out\"; "
                       f"not {text[:40]!r}") from None


def run_url(run: PortalRun) -> str:
    return f"/user/{run.user_id}/combination/{run.combination_id}/run/{run.id}"


def _number(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return ""
    return f"{value:g}"


class RunPages:
    """The handlers; ``portal`` is the app's :class:`~wwm.portal.app.Portal`."""

    def __init__(self, portal: Portal, service: RunService, *, pictures: Pictures | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.portal, self.service, self.clock = portal, service, clock
        self.pictures = pictures if pictures is not None else Pictures(portal.policy)
        self._charts: OrderedDict[int, tuple[float, int, list[tuple[int, float]]]] = OrderedDict()

    # ---- start -----------------------------------------------------------------------------
    async def start(self, request: Request, form: FormData) -> Response:
        portal = self.portal
        cid = request.path_params["cid"]
        try:
            combination = await portal.db(portal.store.combination, cid)
        except NotFound as exc:
            return portal.page(request, "message.html", 404, title="Not found", message=str(exc))
        try:
            steps = steps_of(form)
            pace = pace_of(form)
            society = parse(combination.document, source=f"combination {cid}")
        except (BadStart, SocietyError) as exc:
            return portal.page(request, "message.html", 400, title="The run was not started",
                               message=f"The run was not started: {exc}")
        uid = await portal.user_id(visitor_of(request))
        run: PortalRun = await portal.db(portal.store.new_run, cid, uid, steps)
        store = portal.store
        try:
            started = await self.service.start(society, steps=steps, owner=f"user:{uid}", pace=pace)
        except Exception as exc:  # noqa: BLE001 - the run is recorded as not started, saying why
            await portal.db(store.set_run, run.id, status=COULD_NOT_START, ended=True)
            log.warning("portal run %s could not start: %s", run.id, exc)
            return portal.page(request, "message.html", 500, title="The run was not started",
                               message=f"The run could not start: {exc}")
        await portal.db(store.link_run, run.id, started.run_id)
        reply = RedirectResponse(run_url(run), 303)
        secure = portal.policy.public or request.url.scheme == "https"
        reply.set_cookie(END_COOKIE.format(run.id), started.end_secret, max_age=END_COOKIE_SECONDS,
                         path="/", httponly=True, samesite="strict", secure=secure)
        reply.set_cookie(NEW_COOKIE, str(run.id), max_age=600, path="/", httponly=True, samesite="strict",
                         secure=secure)
        return reply

    # ---- watch -----------------------------------------------------------------------------
    async def find(self, request: Request) -> PortalRun | Response:
        try:
            run: PortalRun = await self.portal.db(self.portal.store.run, request.path_params["rid"])
        except NotFound as exc:
            return self.portal.page(request, "message.html", 404, title="Not found", message=str(exc))
        return run

    async def go_to_run(self, request: Request) -> Response:
        run = await self.find(request)
        return run if isinstance(run, Response) else RedirectResponse(run_url(run), 303)

    async def run_page(self, request: Request) -> Response:
        portal = self.portal
        page = _page_number(request.query_params.get("page"))
        secret = request.cookies.get(END_COOKIE.format(request.path_params["rid"]))
        try:  # every read in one trip to a worker thread (each trip costs a GIL hand-over under load)
            run, combination, record, pages, can_end, links, points = await portal.db(
                self._read, request.path_params["rid"], page, secret)
        except NotFound as exc:
            return portal.page(request, "message.html", 404, title="Not found", message=str(exc))
        if (request.path_params["uid"], request.path_params["cid"]) != (run.user_id, run.combination_id):
            return RedirectResponse(run_url(run), 308)
        page = min(page, pages)
        secret = request.cookies.get(END_COOKIE.format(run.id))
        running = record is not None and record.status == "running"
        show_secret = can_end and request.cookies.get(NEW_COOKIE) == str(run.id)
        end_url = str(request.url_for("end-confirm", rid=run.id, secret=secret)) if show_secret else None
        status = record.status if record is not None else run.status
        reason = ""
        events = record.events if record is not None else []
        for event in events:
            if event.kind == "run-ended" or (event.kind == "interrupted" and status.startswith("interrupted")):
                reason = event.text
        displays = {DISPLAY_EVENTS[e.kind]: e.text for e in events if e.kind in DISPLAY_EVENTS}
        degraded = [degraded_words(e.text) for e in events if e.kind == "degraded"]
        steps_asked = "until ended" if run.steps_asked is None else f"{run.steps_asked:,}"
        count = record.step_count if record is not None else 0
        says = status_words(status, count, record.total_score if record is not None else None,
                            asked=run.steps_asked, reason=reason)
        picture: Picture | None = None
        if run.run_store_id is not None and "world" in displays:
            # a page waits for a fetch under way only when it has no drawing at all to show
            first = running and self.pictures.known(run.run_store_id) is None
            picture = await self.pictures.latest(run.run_store_id, displays["world"],
                                                 wait=PICTURE_WAIT if first else 0.0)
        reply = portal.page(
            request, "run.html", run=run, combination=combination, record=record, run_status=status,
            reason=reason, says=says, count=count, picture=picture, chart=score_chart(points),
            running=running, degraded=degraded, can_end=can_end, end_url=end_url, displays=displays, links=links,
            steps_asked=steps_asked, page=page, pages=pages, steps=_rows(record) if record and not running else [],
            events=[e for e in events if e.kind not in DISPLAY_EVENTS],
            live_url=f"/run/{run.id}/live", run_url=run_url(run), number=_number)
        reply.headers["cache-control"] = "no-store"
        if show_secret:
            reply.delete_cookie(NEW_COOKIE, path="/")
        return reply

    def _read(self, rid: int, page: int, secret: str | None
              ) -> tuple[PortalRun, Any, RunDetail | None, int, bool, dict[str, Any], list[tuple[int, float]]]:
        """What a run's page shows: the portal run, its combination, a page of its record (and
        how many pages), whether ``secret`` (the visitor's cookie) ends it, the portal's pages
        of its servers (:meth:`_links`) and the points of its score chart. The run's status is
        its record's: the run store is the one place it lives."""
        store = self.portal.store
        run = store.run(rid)
        combination = store.combination(run.combination_id)
        links = self._links(combination)
        if run.run_store_id is None:
            return run, combination, None, 1, False, links, []
        store_id = run.run_store_id
        record, pages = self._record(store_id, page)
        can_end = bool(record.status == "running" and secret and self.service.check_end_secret(store_id, secret))
        return run, combination, record, pages, can_end, links, self._points(store_id, record)

    def _links(self, combination: Any) -> dict[str, Any]:
        """The servers of a combination, each with its page on this portal when registered:
        ``world`` (the World's page, ``/world/N``, or None) and ``servers`` (URL, portal page
        or None, name), the World first."""
        store = self.portal.store
        world = store.server_by_url(combination.world_url)
        servers = []
        for url in sorted(urls_in(combination.document), key=lambda u: (u != combination.world_url, u)):
            known = world if url == combination.world_url else store.server_by_url(url)
            servers.append({"url": url, "page": f"/servers/{known.id}" if known is not None else None,
                            "name": known.name if known is not None else None,
                            "role": known.role if known is not None else None})
        return {"world": f"/world/{world.id}" if world is not None else None,
                "world_name": world.name if world is not None else None, "servers": servers}

    def _points(self, run_store_id: int, record: RunDetail) -> list[tuple[int, float]]:
        """The run's (step, total score) for the chart: a finished run's once, a running
        run's at most every :data:`CHART_FRESH` seconds, shared by every page shown meanwhile."""
        now, running = self.clock(), record.status == "running"
        cached = self._charts.get(run_store_id)
        if cached is not None and (now - cached[0] < CHART_FRESH if running else cached[1] == record.step_count):
            return cached[2]
        points = totals(self.service.store.step_scores(run_store_id))
        self._charts[run_store_id] = (now, record.step_count, points)
        self._charts.move_to_end(run_store_id)
        while len(self._charts) > 64:
            self._charts.popitem(last=False)
        return points

    def _record(self, run_store_id: int, page: int) -> tuple[RunDetail, int]:
        head = self.service.store.get_run(run_store_id, max_steps=0)
        pages = max(1, -(-head.step_count // PAGE_STEPS))
        if head.status == "running":
            return head, pages
        first = (min(page, pages) - 1) * PAGE_STEPS
        return self.service.store.get_run(run_store_id, from_step=first, max_steps=PAGE_STEPS), pages

    async def live(self, request: Request) -> Response:
        run = await self.find(request)
        if isinstance(run, Response):
            return run
        if run.run_store_id is None:
            return self.portal.page(request, "message.html", 404, title="Not started",
                                    message=f"run {run.id} has not started ({run.status})")
        service = self.service
        return await live_events(run.run_store_id, service.hub, service.store, poll=service.poll,
                                 pictures=self.pictures)

    # ---- end -------------------------------------------------------------------------------
    async def end_confirm(self, request: Request) -> Response:
        run = await self.find(request)
        if isinstance(run, Response):
            return run
        refused = await self._refusal(run, request.path_params["secret"])
        if refused is not None:
            return self._refused(request, run, refused)
        reply = self.portal.page(request, "end.html", 200, run=run, run_url=run_url(run), ended=None,
                                 refused=None, action=request.url.path)
        reply.headers["cache-control"] = "no-store"
        return reply

    async def end_by_url(self, request: Request, form: FormData) -> Response:
        run = await self.find(request)
        if isinstance(run, Response):
            return run
        return await self._end(request, run, request.path_params["secret"])

    async def end_by_cookie(self, request: Request, form: FormData) -> Response:
        run = await self.find(request)
        if isinstance(run, Response):
            return run
        return await self._end(request, run, request.cookies.get(END_COOKIE.format(run.id)) or "")

    async def _refusal(self, run: PortalRun, secret: str) -> EndRefused | None:
        """Why ``secret`` cannot end ``run`` now, or None if it can (the same checks as
        :meth:`RunService.end`, without ending)."""
        if run.run_store_id is None:
            return EndRefused("already-finished", f"run {run.id} never started ({run.status}); there is nothing to end")
        ok = await self.portal.db(self.service.check_end_secret, run.run_store_id, secret)
        if not ok:
            return EndRefused("wrong-secret", f"that is not the link that ends run {run.id}; only the person who "
                                              "started it has it (the link given at its start)")
        row = await self.portal.db(self.service._secret_row, run.run_store_id)
        if row is not None and row["end_requested_at"] is not None:
            return EndRefused("already-ended", f"run {run.id} was already ended with this link; a link ends a "
                                               "run once")
        summary = await self.portal.db(self.service.store.get_run, run.run_store_id, max_steps=0)
        if summary.status != "running":
            return EndRefused("already-finished", f"run {run.id} has already finished ({summary.status}) after "
                                                  f"{summary.step_count} steps; there is nothing to end")
        return None

    async def _end(self, request: Request, run: PortalRun, secret: str) -> Response:
        if run.run_store_id is None:
            return self._refused(request, run, EndRefused("already-finished", f"run {run.id} never started"))
        try:
            ended = await self.service.end(run.run_store_id, secret)
        except EndRefused as refused:
            return self._refused(request, run, refused)
        reply = self.portal.page(request, "end.html", 200, run=run, run_url=run_url(run), ended=ended,
                                 refused=None, action=None)
        reply.delete_cookie(END_COOKIE.format(run.id), path="/")
        return reply

    def _refused(self, request: Request, run: PortalRun, refused: EndRefused) -> Response:
        status = {"wrong-secret": 403, "not-a-portal-run": 403, "unknown-run": 404,
                  "still-running": 409}.get(refused.code, 410)
        reply = self.portal.page(request, "end.html", status, run=run, run_url=run_url(run), ended=None,
                                 refused=refused, action=None)
        reply.headers["cache-control"] = "no-store"
        return reply


def _page_number(text: str | None) -> int:
    return int(text) if text and text.isdigit() and 0 < int(text) < 10**9 else 1


def _rows(record: RunDetail | None) -> list[dict[str, Any]]:
    """A page of a finished run's steps, with the score so far (from the steps before it)."""
    if record is None:
        return []
    steps: list[StepRecord] = record.steps
    return [{"index": s.index, "state": s.state, "action": "(no action)" if s.action is None else s.action,
             "new_state": s.new_state, "score": _number(s.score), "note": s.note or ""} for s in steps]


def routes(portal: Portal, service: RunService) -> list[BaseRoute]:
    """The run pages' routes, for the portal's app."""
    pages = RunPages(portal, service)
    posted = portal.posted
    return [
        Route("/combination/{cid:int}/runs", posted(pages.start), methods=["POST"]),
        Route("/user/{uid:int}/combination/{cid:int}/run/{rid:int}", pages.run_page, methods=["GET"],
              name="run"),
        Route("/run/{rid:int}", pages.go_to_run, methods=["GET"]),
        Route("/run/{rid:int}/live", pages.live, methods=["GET"]),
        Route("/run/{rid:int}/end/{secret}", pages.end_confirm, methods=["GET"], name="end-confirm"),
        Route("/run/{rid:int}/end/{secret}", posted(pages.end_by_url), methods=["POST"]),
        Route("/run/{rid:int}/end", posted(pages.end_by_cookie), methods=["POST"]),
    ]


__all__ = ["RunPages", "routes", "steps_of"]
