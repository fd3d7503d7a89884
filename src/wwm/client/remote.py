"""Remote Worlds and Minds: the same async interface as local objects, answered by a server.

``connect(url, **args)`` gives a :class:`RemoteWorld` or :class:`RemoteMind` (``role=``
says which; without it the server's description is asked once). Its ``new_run()`` sends
"New run" with ``args`` (``run_args={...}`` gives them as a mapping, for names that are also
options of the connection, such as a Mind_AS's own ``timeout``) and keeps the run ID the
server mints; every later call sends the query of section 9 with that run ID, the caller's URL
(for the credit trail, section 7.2) and its arguments, and decodes the response into the
value a local object would return.

Over HTTP it speaks the encoding given (``encoding="xml"``) or, without one, JSON until the
server shows it reads XML only: its card's ``encodings`` (:meth:`_Remote.speak_as`, done by
:func:`connect` and :meth:`_Remote.describe`) or its first answer (see :mod:`.transport`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeVar, overload

from ..protocol import queries as Q
from ..protocol import sequence as S
from ..protocol.context import TOKEN_ITEM, current_server
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind, World
from ..protocol.messages import Query, Response
from ..protocol.results import Outcome, RunStarted, Suggestion, Values
from ..protocol.transport import Transport, settle
from .bindings import open_transport
from .cards import fetch_card, fetch_card_sync
from .inprocess import InProcessTransport, ServerApp
from .statuses import NothingThere
from .transport import DEFAULT_TIMEOUT, HttpTransport

if TYPE_CHECKING:
    from .facade import SyncMind, SyncWorld

T = TypeVar("T")

# The content types of each encoding a card may list (its "encodings").
_ENCODINGS = {"json": frozenset({"application/json"}), "xml": frozenset({"application/xml", "text/xml"})}

class _Asking:
    """How one method's query is asked, worked out once per (role, method) and kept
    (:meth:`of`): its row, wire name, run ID item (None for New run), its items' wire names by
    Python keyword, and the reader of its answer's data; and the one path a query takes
    (:meth:`send`): the transport's short way where the binding has one (the persistent
    bindings: no :class:`Query` or :class:`Response` made), else the general way. ``general``
    marks the queries that go the general way even then (New run and End run set the run; a
    query the seed names otherwise may be asked again by that name: see
    :meth:`_Remote._exchange`)."""

    __slots__ = ("spec", "name", "run_id_field", "wire_of", "read", "general", "numbered")

    _kept: ClassVar[dict[tuple[str, str], _Asking]] = {}

    def __init__(self, spec: Q.QuerySpec) -> None:
        self.spec, self.name = spec, spec.name
        self.run_id_field = None if spec.method == "new_run" else spec.run_id_field
        self.wire_of = {f.py: f.wire for f in spec.arguments}
        self.read = Q.reader(spec)
        self.general = self.run_id_field is None or spec.method == "end_run" or bool(spec.aliases)
        self.numbered = S.numbered(spec.method)  # carries a sequence number (wwm.protocol.sequence)

    @classmethod
    def of(cls, role: str, method: str) -> _Asking:
        """The asking of ``method`` for ``role`` (query sets registered since are found)."""
        asking = cls._kept.get((role, method))
        if asking is None:
            spec = next((s for s in Q.QUERIES.values() if s.role == role and s.method == method), None)
            if spec is None:
                raise KeyError((role, method))
            asking = cls._kept[(role, method)] = cls(spec)
        return asking

    async def send(self, remote: _Remote, kwargs: dict[str, Any]) -> Any:
        """Ask ``remote``'s server this query with these arguments; its decoded return (a
        query that changes the run numbered, where the server keeps sequence numbers)."""
        if self.numbered and remote.sequenced:
            return (await remote._once(self, remote._numbered(self, kwargs)))[0]
        if self.general or remote._asks is None:  # (through _build, which a subclass may extend)
            spec, query = remote._build(self.spec.method, kwargs)
            return remote._result(spec, await remote._exchange(spec, query))
        return self.read(await remote._asks(self.name, remote._data(self.run_id_field, self.wire_of, kwargs)))


def _to_wire(value: Any) -> Q.Wire:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):  # a mapping in a list (a member {url, args}) as JSON text
        return [v if isinstance(v, str) else json.dumps(v) if isinstance(v, dict) else str(v) for v in value]
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


class _Remote:
    role: ClassVar[str]

    def __init__(self, target: str | Transport, *, client_url: str | None = None,
                 transport: str = "http", encoding: str | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT, run_args: Mapping[str, Any] | None = None,
                 token: str | None = None, **args: Any) -> None:
        # an encoding chosen here is kept; without one, JSON until the server shows otherwise
        self._chosen = encoding is not None
        encoding = encoding or "json"
        self._options = {"client_url": client_url, "transport": transport, "encoding": encoding,
                         "timeout": timeout, "token": token}
        # the server's access token (wwm.server.access), sent with every query; never shown
        self.token = token.strip() if isinstance(token, str) and token.strip() else None
        self.transport: Transport = (open_transport(target, transport, encoding=encoding, timeout=timeout)
                                     if isinstance(target, str) else target)
        if self._chosen and isinstance(self.transport, HttpTransport):
            self.transport.settled = True
        self.url: str = self.transport.url
        self._target = target
        self.args = {**(run_args or {}), **args}
        self.client_url = client_url
        self.run_id: str | None = None
        self.display_url: str | None = None
        # Sequence numbers (wwm.protocol.sequence), when the server said at New run it keeps
        # them: the last one given, and the numbered query whose answer was lost, if any
        self.sequenced = False
        self._sequence = 0
        self._lost: tuple[_Asking, dict[str, Q.Wire]] | None = None
        self._seed_names: set[str] = set()  # queries this server knows by the seed's name only
        # the transport's short way for the usual query (persistent bindings): name, data -> data
        self._asks: Callable[[str, dict[str, Q.Wire]], Awaitable[dict[str, Q.Wire]]] | None = \
            getattr(self.transport, "ask", None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r}, run_id={'set' if self.run_id else None})"

    def __reduce__(self) -> tuple[Callable[..., _Remote], tuple[Any, ...]]:
        """Pickled as its URL, options, arguments and run: a server snapshot that holds remote
        minds (a wrapper, an AS server) reconnects to the same runs when it is restored."""
        if not isinstance(self._target, str):
            raise TypeError(f"a {type(self).__name__} over a custom transport cannot be pickled")
        state = {"run_id": self.run_id, "display_url": self.display_url, "sequenced": self.sequenced}
        return (_restore, (type(self), self._target, self._options, self.args, state))

    @property
    def encoding(self) -> str:
        """The encoding queries are sent in now ("json" or "xml")."""
        spoken = getattr(self.transport, "encoding", None)
        return spoken if isinstance(spoken, str) else str(self._options["encoding"])

    def speak_as(self, card: Mapping[str, Any]) -> str:
        """Speak an encoding the server's ``card`` lists among its ``encodings`` (content types),
        keeping the one in use when it is listed, when the card lists none this client knows,
        or when the caller chose it (``encoding=``); returns the encoding spoken from now on.
        (Only the HTTP binding switches.)"""
        if self._chosen:
            return self.encoding
        listed = card.get("encodings")
        types = {str(t).split(";", 1)[0].strip().lower() for t in listed} if isinstance(listed, list) else set()
        known = [name for name, ctypes in _ENCODINGS.items() if types & ctypes]
        speak = getattr(self.transport, "speak", None)
        if known and self.encoding not in known and callable(speak):
            speak(known[0])
            self._options["encoding"] = known[0]
        return self.encoding

    def attachment(self) -> dict[str, Any]:
        """What re-attaches to this object's run from another process (a client restarted):
        the server's URL, binding and encoding, the run ID it gave, its display URL."""
        return {"url": self.url, "transport": self._options["transport"], "encoding": self.encoding,
                "run_id": self.run_id, "display_url": self.display_url, "sequenced": self.sequenced}

    def reattach(self, attachment: Mapping[str, Any]) -> None:
        """Carry on the run ``attachment`` (from :meth:`attachment`) names, with no New run:
        later queries carry its run ID. The server refuses them (``unknown-run``) if it has
        forgotten the run (its idle time-out, a restart without snapshots)."""
        run_id = attachment.get("run_id")
        if not isinstance(run_id, str) or not run_id:
            raise ValueError(f"no run ID to re-attach to at {self.url}")
        self.run_id = run_id
        display = attachment.get("display_url")
        self.display_url = display if isinstance(display, str) else None
        self._carry_on(attachment.get("sequenced") is True)

    def _carry_on(self, sequenced: bool) -> None:
        """Number the queries of a run this object did not start from a random number: the
        last one the server kept is not known here (wwm.protocol.sequence)."""
        self.sequenced = sequenced
        self._sequence = S.fresh_start()
        self._lost = None

    async def query(self, method: str, /, **kwargs: Any) -> Any:
        """Send the query answered by ``method`` with these arguments; decode its return.
        A query of a run in progress goes by the transport's ``ask`` where it has one (the
        persistent bindings: no :class:`Query` or :class:`Response` made)."""
        return await _Asking.of(self.role, method).send(self, kwargs)

    async def _ask(self, kind: type[T], method: str, /, **kwargs: Any) -> T:
        """:meth:`query` for a method whose row says what it returns: that value, checked."""
        result = await _Asking.of(self.role, method).send(self, kwargs)
        if type(result) is not kind and not isinstance(result, kind):
            raise self._misread(kind, method, result)
        return result

    def _numbered(self, asking: _Asking, kwargs: dict[str, Any]) -> dict[str, Q.Wire]:
        """The data items of a query that changes the run, with the next sequence number."""
        data = self._data(asking.run_id_field, asking.wire_of, kwargs)
        self._sequence += 1
        data[S.SEQUENCE] = self._sequence
        return data

    async def _once(self, asking: _Asking, data: dict[str, Q.Wire]) -> tuple[Any, bool]:
        """Send a numbered query; its decoded answer, and whether the server answered it from
        what it kept (it had acted on it already). Until the answer is in, the query is the
        one :meth:`resend_lost` sends again: a server that cannot be reached, an answer that
        did not come in time, or a caller that gave up leave it so."""
        self._lost = (asking, data)
        try:
            if asking.general or self._asks is None:
                spec = asking.spec
                response = await self._exchange(spec, Query(self._name_of(spec), data))
                answer, result = response.data, self._result(spec, response)
            else:
                answer = await self._asks(asking.name, data)
                result = asking.read(answer)
        except Refusal as refusal:
            if refusal.code not in ("unreachable", "timeout"):  # answered: refused, not lost
                self._lost = None
            raise
        self._lost = None
        return result, answer.get(S.REPEATED) is True

    @property
    def lost(self) -> str | None:
        """The name of the query that changes the run whose answer was lost (None: none was)."""
        return None if self._lost is None else self._lost[0].name

    async def resend_lost(self) -> tuple[Any, bool] | None:
        """Send once more the query that changes the run whose answer was lost (the server
        could not be reached, did not answer in time, or died), with the same sequence
        number: a server that acted on it answers it from what it kept, one that did not acts
        on it now; either way it is done once. Returns its decoded answer and whether it was
        the kept one; None when no answer was lost (or the server keeps no sequence
        numbers: then nobody can tell whether it acted)."""
        if self._lost is None:
            return None
        return await self._once(*self._lost)

    async def _number(self, method: str, /, **kwargs: Any) -> float | None:
        """:meth:`query` for a method that returns a number or nothing."""
        result = await self.query(method, **kwargs)
        return None if result is None else self._checked(float, method, result)

    def _checked(self, kind: type[T], method: str, result: object) -> T:
        if not isinstance(result, kind):  # decode_result gives each row's type: a bug otherwise
            raise self._misread(kind, method, result)
        return result

    def _misread(self, kind: type, method: str, result: object) -> Refusal:
        return Refusal("server-error", f"{method} of {self.url} decoded as {type(result).__name__}, "
                       f"not {kind.__name__}")

    @property
    def pipelines(self) -> bool:
        """Whether :meth:`query_in_order` sends its queries in one round trip (an ordered
        binding: TCP, WebSocket, or HTTP/1.1 pipelining on plain http://)."""
        return self.transport.pipelines

    async def query_in_order(self, *calls: tuple[str, dict[str, Any]], within: float | None = None) -> list[Any]:
        """Send several queries back to back, each ``(method, arguments)``; the server answers
        them in the order sent. Returns each one's decoded return, or the :class:`Refusal`
        that refused it, in order, waiting at most ``within`` seconds for each answer (when
        shorter than this object's time-out). Without an ordered binding they are sent one by
        one."""
        built = [self._build(method, kwargs) for method, kwargs in calls]
        replies = await self.transport.exchange_in_order([query for _, query in built], within=within)
        return [reply if isinstance(reply, Refusal) else settle(self._result, spec, reply)
                for (spec, _), reply in zip(built, replies, strict=True)]

    async def _exchange(self, spec: Q.QuerySpec, query: Query) -> Response:
        """The server's answer to ``query``; a server written from the seed that knows a query
        only by the seed's own name ("Add mind to collection" for "Add mind": its
        ``unknown-query``) is asked again by that name, and asked by it from then on."""
        try:
            return await self.transport.exchange(query)
        except NothingThere as nothing:  # a wrong path, most likely: the server's root may be the right one
            raise await nothing.with_root(fetch_card) from None
        except Refusal as refusal:
            if refusal.code != "unknown-query" or not spec.aliases or query.name != spec.name:
                raise
        self._seed_names.add(spec.name)
        return await self.transport.exchange(Query(spec.aliases[0], query.data, query.version))

    def _build(self, method: str, kwargs: dict[str, Any]) -> tuple[Q.QuerySpec, Query]:
        asking = _Asking.of(self.role, method)
        name = self._name_of(asking.spec)
        if asking.numbered and self.sequenced:
            return asking.spec, Query(name, self._numbered(asking, kwargs))
        return asking.spec, Query(name, self._data(asking.run_id_field, asking.wire_of, kwargs))

    def _name_of(self, spec: Q.QuerySpec) -> str:
        """The name this server knows ``spec``'s query by (the seed's, once it said so)."""
        return spec.aliases[0] if spec.aliases and spec.name in self._seed_names else spec.name

    def _data(self, run_id_field: str | None, wire_of: dict[str, str], kwargs: dict[str, Any]) -> dict[str, Q.Wire]:
        """The data items of a query with these arguments: the run ID (in ``run_id_field``),
        the caller's URL (recording the call in the caller's credit trail), and each argument
        by its wire name (``wire_of``)."""
        if run_id_field is None:
            data: dict[str, Q.Wire] = {}
        elif self.run_id is None:
            raise Refusal("unknown-run", f"no run in progress with {self.url}: call new_run() first")
        else:
            data = {run_id_field: self.run_id}
        trail = current_server.get()
        if trail is not None:
            if trail.url:
                data["client URL"] = trail.url
            trail.calls(self.url)
        elif self.client_url:
            data["client URL"] = self.client_url
        if self.token is not None:
            data[TOKEN_ITEM] = self.token
        for key, value in kwargs.items():
            if type(value) is str:
                data[wire_of.get(key, key)] = value
            elif value is None:
                continue
            elif key == "wire_items" and isinstance(value, dict):  # open items by their wire names
                data.update({name: _to_wire(v) for name, v in value.items() if v is not None})
            else:
                data[wire_of.get(key, key)] = _to_wire(value)
        return data

    def _result(self, spec: Q.QuerySpec, response: Response) -> Any:
        if spec.method == "new_run":
            run_id = response.data.get(spec.run_id_field)
            if not isinstance(run_id, str) or not run_id:
                raise Refusal("server-error", f"{self.url} started a run without giving a run ID")
            self.run_id = run_id
            self.sequenced = response.data.get(S.SEQUENCED) is True  # the server keeps sequence numbers
            self._sequence, self._lost = 0, None
            started = Q.decode_result(spec, response.data)
            self.display_url = started.display_url
            return started
        result = Q.decode_result(spec, response.data)
        if spec.method == "end_run":
            self.run_id = None
        return result

    async def describe(self) -> dict[str, Any]:
        """The server's JSON card (what it is, its query sets, formats, credit trail); from
        then on this object speaks an encoding the card lists (:meth:`speak_as`)."""
        card = await fetch_card(self.url)
        self.speak_as(card)
        return card

    async def get_display_url(self) -> str | None:
        url = await self.query("get_display_url")
        return None if url is None else self._checked(str, "get_display_url", url)

    async def no_operation(self) -> None:
        await self.query("no_operation")

    async def aclose(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


class RemoteWorld(_Remote, World):
    role = "world"

    def sync(self) -> SyncWorld:
        """This World behind the synchronous facade (:mod:`wwm.client.sync`)."""
        from .facade import SyncWorld

        return SyncWorld(self)

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        if client_url:
            self.client_url = client_url
        return await self._ask(RunStarted, "new_run", **self.args)

    async def get_state(self) -> str:
        return await self._ask(str, "get_state")

    async def execute_action(self, action: str) -> Outcome:
        return await self._ask(Outcome, "execute_action", action=action)

    async def reset(self) -> None:
        await self.query("reset")

    async def reset_score(self) -> None:
        await self.query("reset_score")

    async def get_current_score(self) -> float | None:
        return await self._number("get_current_score")

    async def end_run(self) -> float | None:
        return await self._number("end_run")


class RemoteMind(_Remote, Mind):
    """A remote Mind; it carries every query set's methods (a server that lacks a set
    refuses its queries with ``unsupported-query``)."""

    role = "mind"

    def sync(self) -> SyncMind:
        """This Mind behind the synchronous facade (:mod:`wwm.client.sync`)."""
        from .facade import SyncMind

        return SyncMind(self)

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None, other_client_url: str | None = None) -> RunStarted:
        if client_url:
            self.client_url = client_url
        return await self._ask(RunStarted, "new_run", world_display_url=world_display_url,
                               world_run_id=world_run_id, other_client_url=other_client_url, **self.args)

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        return await self._ask(bool, "ready_to_suggest", state=state)

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return await self._ask(Suggestion, "get_action", state=state, **step)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        return await self._number("inform", state=state, score=score)

    async def reset_score(self) -> None:
        await self.query("reset_score")

    async def get_current_score(self, score: float | None = None) -> float | None:
        return await self._number("get_current_score", score=score)

    async def end_run(self, score: float | None = None) -> float | None:
        return await self._number("end_run", score=score)

    # Mind_L
    async def get_q_temperature(self) -> float | None:
        return await self._number("get_q_temperature")

    async def reset_q_temperature(self, run_length: float | None = None) -> None:
        await self.query("reset_q_temperature", run_length=run_length)

    async def send_q_temperature(self, q_temperature: float, run_length: float | None = None) -> None:
        await self.query("send_q_temperature", q_temperature=q_temperature, run_length=run_length)

    # Mind_i
    async def get_strength(self) -> float | None:
        return await self._number("get_strength")

    async def change_strength(self, strength: float) -> None:
        await self.query("change_strength", strength=strength)

    async def get_w_temperature(self) -> float | None:
        return await self._number("get_w_temperature")

    async def reset_w_temperature(self, run_length: float | None = None) -> None:
        await self.query("reset_w_temperature", run_length=run_length)

    async def send_w_temperature(self, w_temperature: float, run_length: float | None = None) -> None:
        await self.query("send_w_temperature", w_temperature=w_temperature, run_length=run_length)

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        return await self._ask(Suggestion, "get_suggestion", state=state, **step)

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        return await self._ask(Values, "get_values", state=state, action=action, **step)

    async def inform_winner(self, state: str, obeyed: bool | None = None, payment: float | None = None,
                            winner_url: str | None = None, action: str | None = None,
                            score: float | None = None) -> Values:
        return await self._ask(Values, "inform_winner", state=state, obeyed=obeyed, payment=payment,
                               winner_url=winner_url, action=action, score=score)

    # Mind_Feu
    async def take_me_to(self, state: str, destination: str, **step: Any) -> Suggestion:
        return await self._ask(Suggestion, "take_me_to", state=state, destination=destination, **step)

    async def how_good(self, state: str, destination: str, action: str, **step: Any) -> Values:
        return await self._ask(Values, "how_good", state=state, destination=destination, action=action,
                                **step)

    # Mind_AS
    async def add_mind(self, mind_url: str) -> None:
        await self.query("add_mind", mind_url=mind_url)

    async def remove_mind(self, mind_url: str) -> None:
        await self.query("remove_mind", mind_url=mind_url)


def _restore(cls: type[_Remote], target: str, options: dict[str, Any], args: dict[str, Any],
             state: dict[str, Any]) -> _Remote:
    remote = cls(target, **options, run_args=args)
    remote.run_id = state["run_id"]
    remote.display_url = state["display_url"]
    # (the snapshot may be older than the last number sent: counted afresh from a random one)
    remote._carry_on(state.get("sequenced") is True)
    return remote


async def aconnect(url: str, *, role: str | None = None, **options: Any) -> RemoteWorld | RemoteMind:
    """:func:`connect` for use inside an event loop: the server's description, when needed to
    tell a World from a Mind, is fetched without blocking the loop."""
    if role is not None:
        return connect(url, role=role, **options)
    card = await fetch_card(url)
    remote = connect(url, role=card.get("role"), **options)
    remote.speak_as(card)  # (an encoding asked for is kept)
    return remote


@overload
def connect(url: str, *, role: Literal["world"], app: ServerApp | None = None, **options: Any) -> RemoteWorld: ...
@overload
def connect(url: str, *, role: Literal["mind"], app: ServerApp | None = None, **options: Any) -> RemoteMind: ...
@overload
def connect(url: str, *, role: str | None = None, app: ServerApp | None = None,
            **options: Any) -> RemoteWorld | RemoteMind: ...


def connect(url: str, *, role: str | None = None, app: ServerApp | None = None,
            **options: Any) -> RemoteWorld | RemoteMind:
    """A remote World or Mind at ``url`` (without ``role=``, its description is fetched, which
    blocks: inside an event loop use :func:`aconnect`, or :func:`connect_mind` /
    :func:`connect_world`). ``app``: a server app in this process (:func:`wwm.server.make_app`),
    reached in process (:mod:`.inprocess`), its card read from it. Keyword options: ``client_url``, ``transport``
    ("http", "ws", "tcp" or "inprocess"), ``encoding`` ("json" or "xml"; without it, JSON unless the
    server's card or first answer says it reads only XML), ``timeout`` (seconds per query),
    ``token`` (the server's access token, sent with every query, for a server whose card says
    ``access.token_required``),
    ``run_args`` (a mapping of New run arguments, whatever their names); every other keyword
    is an argument sent with "New run"."""
    card = None
    if role is None:
        card = app.card() if app is not None else fetch_card_sync(url)
        role = card.get("role")
    target: str | Transport = url
    if app is not None:
        options.pop("transport", None)
        target = InProcessTransport(app, encoding=options.get("encoding") or "json",
                                    timeout=options.get("timeout", DEFAULT_TIMEOUT))
    remote: RemoteWorld | RemoteMind
    if role == "world":
        remote = RemoteWorld(target, **options)
    elif role == "mind":
        remote = RemoteMind(target, **options)
    else:
        raise Refusal("bad-parameters", f"{url} is neither a World nor a Mind server (role {role!r})")
    if card is not None:
        remote.speak_as(card)  # (an encoding asked for is kept)
    return remote


def connect_world(url: str, **options: Any) -> RemoteWorld:
    """A remote World at ``url`` (no description fetched)."""
    return RemoteWorld(url, **options)


def connect_mind(url: str, **options: Any) -> RemoteMind:
    """A remote Mind at ``url`` (no description fetched)."""
    return RemoteMind(url, **options)
