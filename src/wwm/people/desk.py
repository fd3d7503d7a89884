"""The person's page: where a person answers for a :class:`~.mind.PersonMind` or a
:class:`~.world.PersonWorld` (seed 000, 10.1.1: "how a *human* could become part of the
response of a World server or a Mind server").

Served by ``wwm serve``, the desk is one of the server's own pages, at its URL + ``pages/``
(the class's ``web_pages``, mounted before any instance is built). Used in a process of its
own making (no server), or given a ``page_port``, it is a small web server on a thread of its
own (Starlette on uvicorn), one per host and port, up from the moment the first person-mind or
person-world is built. Each run of a
person-mind or person-world takes a :class:`Seat` at the desk; a seat shows one
:class:`Question` at a time and waits for the person's answer until its time-out.

A second query of the same run while a question waits (its client timed out and asked again,
or moved on) is not lost: asked the same again (same kind, same text, same allowed answers),
it joins the waiting question, whose countdown starts again, and the person's one answer goes
to every asker; asked something else, it replaces the waiting question, whose askers are
answered at once with :class:`Replaced` (a run is one sequence of steps: a newer question
means the client has moved on), and the page shows the new one.

Routes of the desk:

- ``GET /``: the page, with every seat; ``GET /seat/{token}``: the page of one seat (the
  run's display URL, returned at New run).
- ``GET /api/seats``, ``GET /api/seat/{token}``: what the page shows, as JSON.
- ``POST /api/seat/{token}``: an answer, a JSON object naming the question it answers
  (``question``) and the form's fields; 400 with the reason when the answer is not allowed,
  409 when the question is no longer waiting (timed out, answered already, or replaced).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import secrets
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar, Literal

Kind = Literal["action", "opening", "outcome"]
Reader = Callable[[dict[str, Any]], Any]

HISTORY = 200       # lines a seat keeps to show
ENDED_SEATS = 50    # ended seats the desk keeps showing


class Withdrawn(Exception):
    """The question left the page before the person answered it: its run ended."""


class Replaced(Withdrawn):
    """The question was replaced by a newer question of its run before the person answered it."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"question {old} was replaced by question {new} before the person answered it: "
                         f"the run asked about something else")
        self.old, self.new = old, new


@dataclass(frozen=True, slots=True)
class Answered:
    """The person's answer as one asker gets it: ``first`` is true for the first asker to have
    it (the others asked the same question again and must not act on it twice)."""

    value: Any
    first: bool


@dataclass
class Question:
    """One question put to the person: what they are shown, what they may answer, and until
    when. ``read`` turns the page's form into the answer, or raises ValueError saying what
    is wrong with it (shown on the page). ``asked`` counts the queries it answers (a query
    asked again joins it); ``waiting`` those still waiting for it."""

    number: int
    kind: Kind
    shown: str
    allowed: tuple[str, ...]
    timeout: float
    read: Reader
    since: float = field(default_factory=time.monotonic)
    answer: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    asked: int = 1
    waiting: int = 0
    handed: bool = False
    replaced_by: int | None = None

    def same(self, kind: Kind, shown: str, allowed: tuple[str, ...]) -> bool:
        return (self.kind, self.shown, self.allowed) == (kind, shown, allowed)

    def join(self, timeout: float) -> None:
        """Asked again: the countdown starts again, at the longer of the two times left."""
        self.timeout = max(timeout, self.seconds_left())
        self.since = time.monotonic()
        self.asked += 1

    def seconds_left(self) -> float:
        return max(0.0, self.timeout - (time.monotonic() - self.since))

    def as_json(self) -> dict[str, Any]:
        return {"number": self.number, "kind": self.kind, "shown": self.shown, "allowed": list(self.allowed),
                "timeout": self.timeout, "seconds_left": round(self.seconds_left(), 2), "asked": self.asked}


class Seat:
    """One run's place at the desk: a person acting as a mind or as a world."""

    def __init__(self, desk: Desk, role: Literal["mind", "world"], title: str) -> None:
        self.desk = desk
        self.token = secrets.token_urlsafe(9)
        self.role = role
        self.title = title
        self.started = time.time()
        self.question: Question | None = None
        self.history: deque[dict[str, str]] = deque(maxlen=HISTORY)
        self.ended = False
        self.answered = 0
        self.timed_out = 0
        self.replaced: dict[int, int] = {}   # question number -> the number of the one that replaced it

    @property
    def url(self) -> str:
        return f"{self.desk.url}seat/{self.token}"

    def note(self, what: str, text: str) -> None:
        """A line of the seat's history, shown under the question."""
        with self.desk.lock:
            self.history.append({"what": what, "text": text})

    async def ask(self, kind: Kind, shown: str, allowed: tuple[str, ...], timeout: float,
                  read: Reader) -> Answered:
        """The person's answer to one question; TimeoutError when none came within ``timeout``
        seconds, :class:`Replaced` as soon as a different question of this run replaces it,
        :class:`Withdrawn` when the run ends while it waits. The same question asked while it
        waits joins it (one answer for both). A question every asker stops waiting for
        (cancelled, timed out) is withdrawn from the page."""
        if self.ended:
            raise RuntimeError("this seat's run has ended")
        with self.desk.lock:
            question = self.question
            if question is not None and not question.answer.done() and question.same(kind, shown, allowed):
                question.join(timeout)
                self.note("asked again", f"question {question.number} was asked again: one answer serves both")
            else:
                fresh = Question(next(self.desk.numbers), kind, shown, allowed, timeout, read)
                if question is not None:
                    self._replace(question, fresh.number)
                self.question = question = fresh
            question.waiting += 1
        try:
            got = asyncio.wrap_future(question.answer)
            got.add_done_callback(_retrieved)  # (an asker gone before the answer leaves it unread)
            await asyncio.wait({got}, timeout=timeout)  # (never cancels the question: others may wait)
            if not question.answer.done():
                self.timed_out += 1
                if question.waiting > 1:   # asked again since: the question stays for the later asker
                    self.note("timed out", f"an earlier asking of question {question.number} gave up after "
                                           f"{timeout:g} s; it waits on for the later one")
                else:
                    self.note("timed out", f"nobody answered within {timeout:g} s")
                raise TimeoutError
            if question.answer.cancelled():
                raise Withdrawn(f"the run ended before the person answered question {question.number}")
            value = question.answer.result()  # raises Replaced when a newer question took its place
        finally:
            with self.desk.lock:
                question.waiting -= 1
                if question.waiting == 0:
                    question.answer.cancel()  # (no effect once answered or replaced)
                    if self.question is question:
                        self.question = None
        with self.desk.lock:
            first, question.handed = not question.handed, True
        if first:
            self.answered += 1
        return Answered(value, first)

    def _replace(self, old: Question, new: int) -> None:
        """A different question of this run replaces ``old``: its askers are answered at once."""
        try:
            old.answer.set_exception(Replaced(old.number, new))
        except concurrent.futures.InvalidStateError:   # answered (or withdrawn) at this very moment
            return
        old.replaced_by = new
        self.replaced[old.number] = new
        while len(self.replaced) > HISTORY:
            del self.replaced[next(iter(self.replaced))]
        self.note("replaced", f"question {old.number} was replaced by question {new}: the run asked about "
                              f"something else before you answered")

    def end(self) -> None:
        with self.desk.lock:
            if self.ended:
                return
            self.ended = True
            if self.question is not None:
                self.question.answer.cancel()
        self.desk.retire(self)

    def as_json(self) -> dict[str, Any]:
        with self.desk.lock:
            question = self.question
            return {"token": self.token, "url": self.url, "role": self.role, "title": self.title,
                    "started": self.started, "ended": self.ended, "answered": self.answered,
                    "timed_out": self.timed_out, "history": list(self.history),
                    "question": question.as_json() if question is not None else None}


def _retrieved(got: asyncio.Future[Any]) -> None:
    """Mark an answer's outcome as seen (an asker that stopped waiting never reads it)."""
    if not got.cancelled():
        got.exception()


class AnswerError(Exception):
    """An answer the desk does not take: ``status`` is the HTTP status, the text the reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Desk:
    """The person's page: served by the WWM server itself under its URL + ``pages/`` (see
    :meth:`host`), or by a small web server of its own on ``host:port``, from a thread."""

    _open: ClassVar[dict[tuple[str, int], Desk]] = {}
    _hosted: ClassVar[Desk | None] = None
    _opening: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, url: str, sock: socket.socket | None = None) -> None:
        self.lock = threading.RLock()
        self.numbers = itertools.count(1)
        self.seats: dict[str, Seat] = {}
        self.ended: deque[str] = deque()
        self.url = url
        self.socket = sock
        self.port: int | None = sock.getsockname()[1] if sock is not None else None
        self.app = self._app()
        if sock is not None:
            self._serve()

    @classmethod
    def host(cls, base_url: str) -> Desk:
        """The process's desk served by the WWM server itself at ``base_url`` (its
        :meth:`~wwm.protocol.interfaces.Mind.web_pages`): the server mounts :attr:`app`."""
        with cls._opening:
            if cls._hosted is None:
                cls._hosted = cls(base_url)
                print(f"wwm: the person's page is at {base_url}", file=sys.stderr, flush=True)
            return cls._hosted

    @classmethod
    def open(cls, host: str = "127.0.0.1", port: int = 0) -> Desk:
        """The desk a person-mind or person-world takes: with ``port=0``, the one its server
        hosts when it is served (:meth:`host`), else the desk already open on ``host``, else
        one on any free port; with a port, the desk on ``host:port``, opened on first use. A
        port that cannot be had is a ValueError naming it."""
        from ..server import listen

        with cls._opening:
            if port == 0:
                if cls._hosted is not None:
                    return cls._hosted
                for (h, _), desk in cls._open.items():
                    if h == host:
                        return desk
            known = cls._open.get((host, port))
            if known is None:
                try:
                    sock = listen(host, port)
                except OSError as exc:  # a busy port, an address not of this machine
                    raise ValueError(f"the person's page cannot be served at {host}:{port} (page_port, host): "
                                     f"{str(exc.strerror or exc).split(' (while')[0]}") from None
                shown_host = f"[{host}]" if ":" in host else host
                desk = cls(f"http://{shown_host}:{sock.getsockname()[1]}/", sock)
                cls._open[(host, port)] = desk
                if port == 0:
                    cls._open[(host, sock.getsockname()[1])] = desk
                print(f"wwm: the person's page is at {desk.url}", file=sys.stderr, flush=True)
                return desk
            return known

    def seat(self, role: Literal["mind", "world"], title: str) -> Seat:
        seat = Seat(self, role, title)
        with self.lock:
            self.seats[seat.token] = seat
        return seat

    def retire(self, seat: Seat) -> None:
        """An ended seat stays on the page until ENDED_SEATS later ones have ended."""
        with self.lock:
            self.ended.append(seat.token)
            while len(self.ended) > ENDED_SEATS:
                self.seats.pop(self.ended.popleft(), None)

    def answer(self, token: str, form: dict[str, Any]) -> None:
        """Hand the person's answer to the question it names (the desk's thread)."""
        with self.lock:
            seat = self.seats.get(token)
            if seat is None:
                raise AnswerError(404, "no seat with this token at this desk")
            question = seat.question
        number = form.get("question")
        if question is None or question.number != number:
            newer = seat.replaced.get(number) if isinstance(number, int) else None
            if newer is not None:
                raise AnswerError(409, f"question {number} was replaced by question {newer} (the run asked "
                                       f"about something else): answer that one")
            raise AnswerError(409, f"question {number} is no longer waiting for an answer (it timed out, "
                                   f"was answered, or its run ended): wait for the next one")
        try:
            value = question.read(form)
        except ValueError as exc:
            raise AnswerError(400, str(exc)) from None
        try:
            question.answer.set_result(value)
        except concurrent.futures.InvalidStateError:
            if question.replaced_by is not None:
                raise AnswerError(409, f"question {number} was replaced by question {question.replaced_by} "
                                       f"(the run asked about something else): answer that one") from None
            raise AnswerError(409, f"question {number} timed out before the answer came "
                                   f"({question.timeout:g} s): wait for the next one") from None

    # ---- the web server ------------------------------------------------------------------
    def _serve(self) -> None:
        import uvicorn

        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off",
                                timeout_keep_alive=30)
        self.server = uvicorn.Server(config)
        # uvicorn installs no signal handlers off the main thread: the WWM server keeps its own
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name=f"wwm-person-page-{self.port}", daemon=True)
        self.thread.start()

    def _app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import HTMLResponse, JSONResponse, Response
        from starlette.routing import Route

        from ..server.pages import icon

        page = resources.files("wwm.people").joinpath("static/person.html").read_text(encoding="utf-8")

        async def show(request: Request) -> Response:
            token = request.path_params.get("token")
            if token is not None and token not in self.seats:
                return HTMLResponse("<!doctype html><title>No seat</title><p>No seat with this token at this "
                                    "desk: its run ended long ago, or the server was restarted.</p>", 404)
            return HTMLResponse(page)

        async def seats(request: Request) -> Response:
            with self.lock:
                listed = list(self.seats.values())
            return JSONResponse({"desk": self.url, "seats": [s.as_json() for s in listed]})

        async def one(request: Request) -> Response:
            seat = self.seats.get(request.path_params["token"])
            if seat is None:
                return JSONResponse({"error": "no seat with this token at this desk"}, 404)
            return JSONResponse(seat.as_json())

        async def post(request: Request) -> Response:
            try:
                form = json.loads(await request.body())
            except (ValueError, UnicodeDecodeError):
                return JSONResponse({"error": "the answer must be a JSON object"}, 400)
            if not isinstance(form, dict):
                return JSONResponse({"error": "the answer must be a JSON object"}, 400)
            try:
                self.answer(request.path_params["token"], form)
            except AnswerError as exc:
                return JSONResponse({"error": exc.reason}, exc.status)
            return JSONResponse({"ok": True})

        async def favicon(request: Request) -> Response:
            return Response(icon(), media_type="image/svg+xml")

        return Starlette(routes=[
            Route("/", show, methods=["GET"]),
            Route("/seat/{token}", show, methods=["GET"]),
            Route("/api/seats", seats, methods=["GET"]),
            Route("/api/seat/{token}", one, methods=["GET"]),
            Route("/api/seat/{token}", post, methods=["POST"]),
            Route("/favicon.ico", favicon, methods=["GET"]),
        ])


class AtTheDesk:
    """Where a person-mind or person-world finds its desk: with a ``page_port``, opened when
    it is built (a port that cannot be had is refused at once); without one, at its first run,
    so that the instance a server builds only to check its arguments opens no page."""

    host: str
    page_port: int
    _desk: Desk | None

    def find_desk(self, host: str, page_port: int) -> None:
        self.host, self.page_port = host, page_port
        self._desk = Desk.open(host, page_port) if page_port else None

    @property
    def desk(self) -> Desk:
        if self._desk is None:
            self._desk = Desk.open(self.host, self.page_port)
        return self._desk
