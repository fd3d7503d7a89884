"""The portal's web application (Starlette): browse servers, register one by URL; it mounts
the rest (a visitor's identity: :mod:`.identities`; compose, runs, challenges, searches).

Every page is a template in ``templates/`` (escaped by default), every response carries a
Content-Security-Policy that allows no inline script (:mod:`.visitors`), every POST is checked
for its origin (:mod:`.origins`), its address's rate (:mod:`.ratelimits`) and the visitor's
CSRF token, and every URL a visitor gives is fetched through :mod:`.fetching`. The store is
synchronous (SQLAlchemy); handlers call it in a worker thread.
A periodic checker (in the app's lifespan) re-reads each server's card: up, down, latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, Headers, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from ..server.templates import environment
from ..store import RunStore
from . import look, runpages
from .cards import ROLES, read_card, tidy_url
from .challenges import Challenges, Judge
from .combinations import Combinations
from .fetching import FetchError, Policy, society_guard
from .identities import Identities, client_address
from .malformed import MAX_ID, BigIds, too_big_a_number
from .models import Combination, Server
from .origins import OriginCheck, canonical_origin
from .prose import prose
from .rankings import Scored, scored
from .ratelimits import WORDS, RateLimitMiddleware, RateLimits
from .runs import RunService
from .searches import Searches
from .signins import SigninGuard, SigninLimits
from .store import NotFound, PortalError, PortalStore
from .visitors import HEADERS as SECURITY_HEADERS
from .visitors import Signer, Visitor, VisitorMiddleware, visitor_of

PACKAGE = "wwm.portal"
MAX_FORM_BYTES = 64 * 1024
DB_THREADS = 16                  # worker threads for the pages' database calls
HASH_THREADS = 1                 # password hashing (argon2, ~0.1-1 s of CPU each): one at a time, so
                                 # a flood of sign-ups queues there and the other core keeps the pages
HOME_FEATURED = 6                # combinations the home page offers to run
HOME_LIVE = 12                   # runs live now, on the home page
LIVE_LOOK = 500                  # running runs of the run store looked through for portal runs
DEMO_SETTING = "demo"            # where `wwm portal --demo` keeps its author (command.DEMO_SETTING; command imports us)
log = logging.getLogger(__name__)

Handler = Callable[[Request], Awaitable[Response]]
FormHandler = Callable[[Request, FormData], Awaitable[Response]]


def _env() -> Any:
    env = environment(PACKAGE)
    env.filters["href"] = href
    env.filters["when"] = when
    env.filters["prose"] = prose        # a server's description: its first paragraph, markup resolved
    env.filters["badge"] = look.badge
    env.filters["status_kind"] = look.status_kind
    return env


def href(url: object) -> str | None:
    """A URL a page may link to (http or https), else None: untrusted text is shown, never
    followed as ``javascript:`` or ``data:``."""
    if isinstance(url, str) and urlsplit(url.strip()).scheme in ("http", "https"):
        return url.strip()
    return None


def when(value: datetime | float | None) -> str:
    if value is None:
        return "never"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return "?"
        value = datetime.fromtimestamp(value).astimezone()
    return value.strftime("%Y-%m-%d %H:%M UTC") if value.utcoffset() == 0 else value.strftime("%Y-%m-%d %H:%M")


class Portal:
    """The application's state: its store, its fetch policy, its signer."""

    def __init__(self, store: PortalStore, policy: Policy, signer: Signer, check_every: float,
                 signin_limits: SigninLimits | None = None, clock: Callable[[], float] | None = None) -> None:
        self.store, self.policy, self.signer, self.check_every = store, policy, signer, check_every
        self.signins = SigninGuard(store, signin_limits) if clock is None else SigninGuard(store, signin_limits, clock)
        self.env = _env()
        self.run_store: RunStore | None = None     # where portal runs' scores are (Top 10, histories)
        self.threads = ThreadPoolExecutor(DB_THREADS, thread_name_prefix="wwm-portal-db")
        self.hashing = ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="wwm-portal-hash")

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Template ``name``; an identity made implicitly by the request before has its
        recovery link shown here, once (``recovery_notice``, by base.html)."""
        visitor = visitor_of(request)
        context.setdefault("message", None)
        context.setdefault("notice", look.notice_of(request.query_params.get("done")))
        token = visitor.take_recovery() if status < 400 else None
        html = self.env.get_template(f"portal/{name}").render(
            csrf=self.signer.csrf_token(visitor), signed_in=visitor.user_id is not None,
            account=visitor.account, public=self.policy.public, here=_here(request),
            base_url=str(request.base_url).rstrip("/"), recovery_notice=self.recovery_url(request, token),
            **context)
        return HTMLResponse(html, status)

    async def db(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in one of the pages' worker threads (the store is
        synchronous). Through an asyncio executor: the result reaches the handler in two turns
        of the event loop, where anyio's ``to_thread`` (Starlette's ``run_in_threadpool``)
        takes four (two checkpoints and the limiter's besides), and under load each turn waits
        behind every task that is ready (runs, viewers). The pages have threads of their own,
        so that a burst of viewers reading their records does not queue the pages."""
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.threads, call)

    async def hashed(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, a store call that hashes a password, in the one hashing thread."""
        call = functools.partial(contextvars.copy_context().run, fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self.hashing, call)

    async def user_id(self, visitor: Visitor) -> int:
        """The visitor's user, made (anonymous) on first need: its recovery link is then
        shown once, by the next page (:meth:`page`)."""
        if visitor.user_id is not None:
            try:
                await self.db(self.store.user, visitor.user_id)
                return visitor.user_id
            except NotFound:
                pass            # a cookie from another database: start again
        made = await self.db(self.store.new_user)
        visitor.become(made.user.id, recovery=made.recovery_token)
        return int(made.user.id)

    # -- pages ----------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        """Where a visitor starts: featured combinations to run in one click, the runs live
        now, each World's Top 10, and the ways to compose or register."""
        servers: list[Server] = await self.db(self.store.servers)
        counts = {role: sum(1 for s in servers if s.role == role) for role in ROLES}
        featured: list[Combination] = await self.db(self._featured)
        live: list[Scored] = await self.db(self._live)
        titles = {c.id: c.title for c in featured}
        for s in live:
            if s.run.combination_id not in titles:
                titles[s.run.combination_id] = (await self.db(self.store.combination, s.run.combination_id)).title
        worlds = [s for s in servers if s.role == "world"]
        return self.page(request, "home.html", counts=counts, featured=featured, live=live, titles=titles,
                         worlds=worlds, world_of={s.url: s for s in worlds},
                         best=await Combinations(self).best_scores(featured))

    def _live(self) -> list[Scored]:
        """The portal runs the run store has running now, newest first, with their states."""
        if self.run_store is None:
            return []
        runs = self.store.runs_linked(self.run_store.running(LIVE_LOOK), HOME_LIVE)
        return [s for s in scored(runs, self.run_store) if s.status == "running"]

    def _featured(self) -> list[Combination]:
        """The demo's combinations (``wwm portal --demo``), else the newest few."""
        try:
            author = json.loads(self.store.setting(DEMO_SETTING) or "{}").get("author")
        except (ValueError, AttributeError):
            author = None
        found = self.store.combinations_by(int(author)) if isinstance(author, int) else []
        return (found or self.store.recent_combinations(HOME_FEATURED))[:HOME_FEATURED]

    async def servers(self, request: Request, message: str | None = None, typed: str = "",
                      status: int = 200) -> Response:
        role = request.query_params.get("role") or None
        search = (request.query_params.get("q") or "").strip()[:200]
        world = request.query_params.get("world") or None
        if role not in (None, *ROLES):
            role = None
        found = await self.db(self.store.servers, role=role, search=search or None, world=world)
        worlds = await self.db(self.store.worlds)
        return self.page(request, "servers.html", status, servers=found, role=role, search=search,
                         world=world, worlds=worlds, roles=ROLES, message=message, typed=typed)

    async def register(self, request: Request, form: FormData) -> Response:
        typed = str(form.get("url") or "")
        try:
            url = tidy_url(typed)
            existing = await self.db(self.store.server_by_url, url)
            if existing is not None:
                return RedirectResponse(look.done(f"/servers/{existing.id}", "known"), 303)
            card = await read_card(url, self.policy)
            user = await self.user_id(visitor_of(request))
            server = await self.db(self.store.add_server, url, card.card, added_by=user,
                                   latency_ms=card.latency_ms)
        except (FetchError, PortalError) as exc:    # a password typed in the URL is not shown back
            return await self.servers(request, message=str(exc), typed="" if "@" in typed else typed, status=400)
        return RedirectResponse(look.done(f"/servers/{server.id}", "registered"), 303)

    async def server(self, request: Request) -> Response:
        try:
            server = await self.db(self.store.server, request.path_params["id"])
        except NotFound as exc:
            return self.page(request, "message.html", 404, title="Not found", message=str(exc))
        combinations = await self.db(self.store.combinations_with, server.url)
        card = server.card if isinstance(server.card, dict) else {}
        found = card.get("credit_trail")
        trail: dict[str, Any] = found if isinstance(found, dict) else {}
        registered = {s.url: s for s in await self.db(self.store.servers)}
        return self.page(request, "server.html", server=server, card=card, description=_text(card.get("description")),
                         arguments=_arguments(card.get("arguments")),
                         calls=_links(trail.get("calls"), registered),
                         called_by=_links(trail.get("called_by"), registered), combinations=combinations,
                         world_of={s.url: s for s in registered.values() if s.role == "world"},
                         best=await Combinations(self).best_scores(combinations),
                         query_sets=[q for q in card.get("query_sets") or [] if isinstance(q, str)]
                         if isinstance(card.get("query_sets"), list) else [])

    def recovery_url(self, request: Request, token: str | None) -> str | None:
        """The recovery link of ``token`` (the route is :mod:`.identities`'), None without one."""
        return None if token is None else str(request.url_for("recover", token=token))

    # -- the checker ----------------------------------------------------------------------

    async def check_all(self) -> None:
        """Read every server's card once: up (with its latency and new card) or down (why)."""
        for server in await self.db(self.store.servers):
            try:
                card = await read_card(server.url, self.policy)
            except FetchError as exc:
                await self.db(self.store.record_check, server.id, up=False, error=str(exc))
            else:
                await self.db(self.store.record_check, server.id, up=True, latency_ms=card.latency_ms,
                              card=card.card if card.card.get("role") == server.role else None)

    async def checker(self) -> None:
        while True:
            await asyncio.sleep(self.check_every)
            try:
                await self.check_all()
            except Exception:                       # a database hiccup: try again next time
                log.exception("checking the servers failed")

    def posted(self, handler: FormHandler) -> Handler:
        """``handler`` given the form, if it carries this visitor's CSRF token; else 403."""
        async def checked(request: Request) -> Response:
            declared = request.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > MAX_FORM_BYTES:
                return self.page(request, "message.html", 413, title="Form too large",
                                 message=f"A form here is at most {MAX_FORM_BYTES // 1024} KB.")
            form = await read_form(request)
            if form is None:
                return self.page(request, "message.html", 413, title="Form too large",
                                 message=f"A form here is at most {MAX_FORM_BYTES // 1024} KB.")
            if isinstance(form, str):
                return self.page(request, "message.html", 400, title="Form refused", message=form)
            if not self.signer.csrf_ok(visitor_of(request), form.get("csrf")):
                return self.page(request, "message.html", 403, title="Form refused",
                                 message="This form was refused: its security token is missing or does not "
                                         "match your cookie. Reload the page and send it again.")
            return await handler(request, form)
        return checked


async def read_form(request: Request) -> FormData | str | None:
    """The URL-encoded form of a POST (every form here is one; no file is uploaded), None
    when it is longer than ``MAX_FORM_BYTES``, or why it cannot be read (not UTF-8). Another
    body reads as an empty form."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return FormData()
    pairs: list[tuple[str, str | UploadFile]] = []
    try:
        text = bytes(body).decode("ascii")      # URL-encoded: the bytes past ASCII are %-escaped
        pairs += parse_qsl(text, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        return "This form was refused: its fields are not UTF-8 text. Send it again from the portal's page."
    return FormData(pairs)


def _here(request: Request) -> str:
    """The page's path as the navigation names it (``/servers?role=world`` for the Worlds)."""
    role = request.query_params.get("role") if request.url.path == "/servers" else None
    return f"/servers?role={role}" if role in ROLES else request.url.path


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _links(value: object, registered: dict[str, Server]) -> list[dict[str, Any]]:
    """A credit trail's side, as rows a page can show (untrusted: only strings and numbers),
    each with the server registered here at that URL (its page is linked), if any."""
    rows = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            queries = item.get("queries")
            url = _text(item.get("url"))
            rows.append({"url": url, "queries": queries if isinstance(queries, int) else None,
                         "server": registered.get(url) or registered.get(_tidy_or_blank(url))})
    return rows[:200]


def _tidy_or_blank(url: str) -> str:
    try:
        return tidy_url(url)
    except FetchError:
        return ""


def _arguments(schema: object) -> list[dict[str, str]]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    rows = []
    for name, spec in (properties if isinstance(properties, dict) else {}).items():
        spec = spec if isinstance(spec, dict) else {}
        rows.append({"name": str(name), "type": str(spec.get("type", "")),
                     "default": "" if "default" not in spec else str(spec["default"]),
                     "title": _what(str(name), spec)})
    return rows[:200]


def _what(name: str, spec: dict[str, Any]) -> str:
    """What an argument is for: its description, else a title its author gave (pydantic's own
    title, the name capitalised, only repeats the name)."""
    title = _text(spec.get("title"))
    return _text(spec.get("description")) or ("" if title == name.title().replace("_", " ") else title)


class PackageFiles(StaticFiles):
    """The portal's own static files (a few small files of the package, which do not change
    while it runs), kept in memory from their first request: answered in the event loop,
    without the four trips to worker threads (stat, open, read, close) of a file response,
    which cost most under load. ETag and Last-Modified as the file's; no ranges."""

    MAX_BYTES = 1024 * 1024

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._kept: dict[str, tuple[bytes, dict[str, str]]] = {}

    async def get_response(self, path: str, scope: Scope) -> Response:
        kept = self._kept.get(path) if scope["method"] in ("GET", "HEAD") else None
        if kept is None:
            response = await super().get_response(path, scope)
            if not isinstance(response, FileResponse) or response.status_code != 200:
                return response
            body = await run_in_threadpool(_read_small, str(response.path), self.MAX_BYTES)
            if body is None:
                return response
            headers = {k: v for k, v in response.headers.items() if k not in ("content-length", "accept-ranges")}
            kept = self._kept[path] = (body, headers)
        body, headers = kept
        if self.is_not_modified(Headers(headers), Headers(scope=scope)):
            return NotModifiedResponse(Headers(headers))
        return Response(body, headers=headers)


def _read_small(path: str, limit: int) -> bytes | None:
    with open(path, "rb") as f:
        body = f.read(limit + 1)
    return body if len(body) <= limit else None


def make_app(store: PortalStore, *, public: bool = False, check_every: float = 300.0,
             policy: Policy | None = None, secure_cookie: bool | None = None,
             runs: RunService | None = None, end_runs_on_exit: bool = False,
             signin_limits: SigninLimits | None = None, origin: str | None = None,
             rate_limits: RateLimits | None = None, clock: Callable[[], float] | None = None) -> Starlette:
    """The portal on ``store``; ``public`` refuses private addresses and (unless
    ``secure_cookie`` says otherwise) sets Secure cookies, for a portal behind HTTPS;
    ``check_every`` seconds between checks of every server (0: never). Runs execute in this
    process through ``runs`` (default: a :class:`RunService` on the portal's own database,
    which resumes the runs a stopped or dead portal left, closed with the app: its runs are
    suspended, for the next start to resume, or ended with ``end_runs_on_exit``); their
    records (scores, for histories and Top 10s) are in the run service's store.
    ``signin_limits``: how failed sign-ins are slowed and refused (:mod:`.signins`);
    ``rate_limits``: how often one address may send each costly form (:mod:`.ratelimits`);
    ``origin``: the portal's own origin as browsers name it (``https://portal.example.org``),
    the only one a POST may come from (None: the request's own scheme and Host;
    :mod:`.origins`); ``clock``: the sign-in counts' clock (a test's)."""
    policy = policy or Policy(public=public)
    own = None
    if origin is not None:
        own = canonical_origin(origin)
        if own is None:
            raise ValueError(f"origin must be an http(s) origin such as https://portal.example.org, not {origin!r}")
    portal = Portal(store, policy, Signer(store.secret_key()), check_every, signin_limits, clock)
    # -- runs (runpages.py): the run service on the portal's database --------------------------
    service = runs or RunService(store.url.render_as_string(hide_password=False))
    if service.guard is None:               # every connection a run makes: the address policy first
        service.guard = society_guard(policy)
        service.policy = policy             # and on the Ray workers, before they (re)connect
    portal.run_store = service.store

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(portal.checker()) if check_every > 0 else None
        service.activate()                  # the runs a stopped portal left go on
        await challenges.judge.recover()    # entries a stopped portal left unjudged are judged again
        try:
            yield
        finally:
            await challenges.judge.close()
            searches.close()
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if runs is None:                # its runs "suspended at step k", viewers told (or ended)
                await service.close(end_runs=end_runs_on_exit)
            portal.threads.shutdown(wait=False)
            portal.hashing.shutdown(wait=False)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        title = "Not found" if status == 404 else "Error"
        text = "There is no page here." if status == 404 else "The portal could not answer that."
        if status == 500 and too_big_a_number(exc):    # a form's number past any id, met by the database
            status, title, text = 400, "Bad request", (f"A number in this request is larger than any id here "
                                                       f"(at most {MAX_ID}).")
        response = portal.page(request, "message.html", status, title=title, message=text)
        if status in (400, 500):  # answered outside the middleware that adds them to every other response
            response.headers.update(SECURITY_HEADERS)
        return response

    posted = portal.posted
    challenges = Challenges(portal, Judge(store, service))
    challenges.judge.policy = policy
    searches = Searches(portal, store.url.render_as_string(hide_password=False))
    routes = [
        Route("/", portal.home),
        Route("/servers", portal.servers, methods=["GET"]),
        Route("/servers", posted(portal.register), methods=["POST"]),
        Route("/servers/{id:int}", portal.server),
        *Identities(portal).routes(),            # /me, recovery, sign-up, sign-in, sign-out (identities.py)
        *Combinations(portal).routes(),          # compose, link, listings, Top 10 (combinations.py)
        Mount("/static", PackageFiles(packages=[(PACKAGE, "static")]), name="static"),
        *runpages.routes(portal, service),  # start, watch and end runs
        *challenges.routes(),               # competitions and the Λ* test as a service (challenges.py)
        *searches.routes(),                 # automated searches, started from a combination (searches.py)
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: not_found, 500: not_found})
    app.state.portal = portal
    app.state.runs = service
    app.state.judge = challenges.judge
    secure = public if secure_cookie is None else secure_cookie

    def refused(request: Request, why: str) -> Response:
        return portal.page(request, "message.html", 403, title="Form refused", message=why)

    def too_often(request: Request, action: str, wait: int) -> Response:
        return portal.page(request, "message.html", 429, title="Too many requests",
                           message=f"Too many requests to {WORDS[action]} from your address: try again in {wait} s.")

    def no_such(request: Request, why: str, status: int) -> Response:
        return portal.page(request, "message.html", status, title="Not found" if status == 404 else "Bad request",
                           message=why)

    # outermost last: the visitor (cookie, security headers) around every answer, then big
    # ids, the origin check and the rate limits, before any route reads a form
    app.add_middleware(RateLimitMiddleware, limits=rate_limits or RateLimits(), refuse=too_often,
                       address=client_address)
    app.add_middleware(OriginCheck, refuse=refused, origin=own)
    app.add_middleware(BigIds, refuse=no_such)
    app.add_middleware(VisitorMiddleware, signer=portal.signer, secure_cookie=secure)
    return app
