"""Answering one query: find its row in the section-9 table, check the server supports its
query set, find the run, convert the data items to Python arguments, call the object's
method, and encode what it returns. Every failure becomes a refusal with a code and a text;
a failing method never ends the run or the server.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from time import monotonic
from typing import Any, Protocol

import orjson

from ..protocol import encoding, jsoncodec, limits
from ..protocol import queries as Q
from ..protocol.arguments import Arguments
from ..protocol.context import TOKEN_ITEM, current_server
from ..protocol.encoding import Codec
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind, ServedClass, World
from ..protocol.messages import Query, Response
from ..protocol.queries import PROTOCOL_VERSION
from ..protocol.results import Outcome, RunStarted
from ..protocol.sequence import LARGEST, SEQUENCE, SEQUENCED, numbered
from ..protocol.sequence import read as read_sequence
from .access import Access
from .gate import peer
from .once import Answers
from .resumed import Resumed
from .runs import Run, RunTable
from .trail import CreditTrail, is_caller_url

log = logging.getLogger("wwm.server")

# New run items that are not constructor arguments
_MIND_CONTEXT = ("world display URL", "world run ID", "other client URL")


class Router(Protocol):
    """The other workers of a server served by several (:class:`wwm.server.workers.Workers`)."""

    def owner(self, run_id: object) -> int | None: ...
    async def fetch(self, index: int, path: str, accept: str) -> tuple[int, str, bytes]: ...
    async def forward(self, index: int, raw: bytes) -> bytes: ...
    async def listen(self, dispatcher: Dispatcher, max_body: int) -> None: ...
    def close(self) -> None: ...


class Dispatcher:
    """Answers queries for one World or Mind class."""

    def __init__(self, cls: ServedClass, *, url: str, defaults: dict[str, Any] | None = None,
                 runs: RunTable | None = None, access: Access | None = None) -> None:
        self.cls = cls
        self.access = access  # who may use this server (None: anyone); checked on every query
        self.role: str = cls.role
        self.query_sets = cls.query_sets()
        self.arguments = Arguments(cls)
        self.raw_defaults = dict(defaults or {})
        # Validated now, so a bad --arg stops the server at start, not at the first New run;
        # defaults may leave a required argument for each run to give (then kept as given).
        # No defaults are validated too: a run that gives nothing then gets the class's own
        # (a ``wire_items`` parameter its empty dict), or is refused naming what is missing.
        built = self.arguments.build_if_complete(self.raw_defaults)
        self.defaults_complete = built is not None
        self.defaults: dict[str, Any] = built if built is not None else dict(self.raw_defaults)
        # What a run that gives nothing gets, and where each value was set: what the
        # description page and card show
        self.in_force = self.arguments.in_force(self.raw_defaults)
        self.runs = runs or RunTable(cls)
        self._runs = self.runs.runs  # (the table's dict of runs by ID, looked up on every query)
        self.trail = CreditTrail(url)
        if self.runs.snapshots is not None:  # --state: the trail outlives a restart (7.2)
            self.runs.snapshots.keep(self.trail)
        self.url = url
        self.bindings: dict[str, str] = {}  # further ways in besides HTTP: "tcp" -> tcp://host:port
        self.workers: Router | None = None  # the other workers of `wwm serve --workers N` (.workers)
        self._accepts: dict[Any, _Takes] = {}
        self._plans: dict[str, _Plan] = {}
        # the queries :meth:`answer_payload` answers straight from their JSON, by wire name
        # (an alias too, whose answer carries the alias: the name the client asked by)
        self._direct: dict[str, _Plan] = {
            name: self._plan(spec, name) for spec in Q.queries_of(self.role, self.query_sets)
            if spec.method not in ("new_run", "end_run", "get_display_url") for name in spec.names}

    async def answer_bytes(self, raw: bytes, content_type: str | None = None) -> tuple[Codec, Response]:
        """Decode one message in whichever encoding it came, answer it, and return the codec to
        answer in with the response (a refusal when the message itself is bad)."""
        codec: Codec = jsoncodec
        name = "?"
        try:
            if content_type is not None or raw[:1] != b"{":  # (an untyped JSON object: the usual case)
                codec = encoding.choose(content_type, raw)
            message = codec.decode(raw)
            name = message.name
            if not isinstance(message, Query):
                raise Refusal("malformed-message", "a server receives queries, not responses")
            if self.workers is not None:  # a run another worker holds: answered there
                owner = self.workers.owner(message.data.get(f"{self.role} run ID"))
                if owner is not None:
                    answer = codec.decode(await self.workers.forward(owner, raw))
                    if not isinstance(answer, Response):
                        raise Refusal("server-error", f"worker {owner} answered with a query")
                    return codec, answer
            return codec, await self.answer(message)
        except Refusal as refusal:
            return codec, Response.refused(name, refusal)

    async def answer_payload(self, raw: bytes) -> bytes:
        """:meth:`answer_bytes` for a binding without content types (TCP frames, WebSocket
        messages): the answer encoded, in the encoding of the question. The usual query goes
        the short way (:meth:`answer_at_once`), anything else the general way; both give the
        same answers. The caller has :data:`current_server` set to this server's trail (each
        binding sets it once per connection)."""
        answer = self.answer_at_once(raw)
        if answer is None:
            return await self.answer_in_general(raw)
        if isinstance(answer, Unfinished):
            return await self.finish(answer)
        return answer

    async def answer_in_general(self, raw: bytes) -> bytes:
        """The answer to a message that does not go the short way, in the encoding of the
        question (a refusal naming what is wrong with it, if anything)."""
        codec, response = await self.answer_bytes(raw)
        return codec.encode(response)

    def answer_at_once(self, raw: bytes) -> bytes | Unfinished | None:
        """The short way for the usual query (a JSON object naming a query of a run in
        progress, with the items its row declares and nothing else): its answer, worked out
        without waiting, straight from the parsed JSON (no :class:`Query` made; what its row
        needs was worked out once, :class:`_Plan`); an :class:`Unfinished` answer when the
        method has to wait (:meth:`finish` it); None for any other message, decided before
        anything is done (answered by :meth:`answer_in_general`, which refuses by name what is
        wrong).

        Not a coroutine, and written out in one function (an Outcome's encoding too, the
        answer of a World's every step; :meth:`usual_answer` gives the same for any value):
        this is what a persistent binding's round trip spends on the protocol, and every
        function and object it touches costs several times over between processes, where
        code and data are cold after each wake-up (folding the layers into one function
        took 5-6 µs of CPU a query off the server's 40; ``benchmarks/network.py``). Every other
        result is settled by :meth:`_settle`, as the general way settles it; that the two ways
        answer alike, the written-out Outcome too, is under test
        (``tests/server/test_two_ways_agree.py``)."""
        if raw[:1] != b"{" or self.access is not None:  # (the owner's rules: the general way)
            return None
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        if type(doc) is not dict:
            return None
        name = doc.get("query")
        plan = self._direct.get(name) if type(name) is str else None
        data = doc.get("data", _EMPTY)
        version = doc.get("wwm", PROTOCOL_VERSION)
        if (plan is None or type(data) is not dict or len(doc) != 1 + ("wwm" in doc) + ("data" in doc)
                or type(version) is not str or version not in _VERSIONS):
            return None
        run_id = data.get(plan.run_id_field)
        client = data.get("client URL")
        if type(run_id) is not str or (client is not None and (type(client) is not str
                                                               or len(client) > limits.CLIENT_URL)):
            return None
        kwargs: dict[str, Any] = {}
        found = 1 if client is None else 2
        number = data.get(SEQUENCE)  # (a numbered query: acted on once, however often sent)
        if number is not None:
            if type(number) is not int or not 0 <= number <= LARGEST or not plan.changes_run:
                return None
            found += 1
        for wire, py, optional, item, as_is in plan.conversions:
            value = data.get(wire, _EMPTY)
            if value is _EMPTY:
                if not optional:
                    return None
                continue
            if as_is and type(value) is str:
                kwargs[py] = value
            elif type(value) in _SCALARS:
                try:
                    kwargs[py] = Q.read_value(item, value, plan.name)
                except Refusal:  # refused the general way, by name
                    return None
            else:
                return None
            found += 1
        if found != len(data):  # items its row does not declare: open-ended, or refused
            return None
        run = self._runs.get(run_id) or self._runs.get(run_id.strip())
        if run is None:
            return None
        if number is not None and run.answers is not None and not run.answers.fresh(number):
            return None  # a query sent again: answered the general way, from what was kept
        method = getattr(run.obj, plan.method)
        function = getattr(method, "__func__", method)
        fits = plan.fits_of.get(function)
        if fits is None:
            fits = plan.fits_of[function] = plan.fits(self._takes(method))
        if not fits:
            return None
        # from here on the query is answered the short way (its caller in the trail once answered)
        run.last_seen = monotonic()  # (RunTable.seen, written out)
        run.queries += 1
        try:
            coroutine = method(**kwargs)
            awaited = coroutine.send(None)
        except StopIteration as done:
            result = done.value
            if plan.outcome and type(result) is Outcome and type(result.state) is str:
                state, score = result.state, result.score
                if score is None:
                    out: dict[str, Q.Wire] = {"state": state}
                else:
                    out = {"state": state, "score": Q.write_number(score)}
                    run.score = _finite((run.score or 0.0) + float(score))
                if result.finished:
                    out["run finished"] = True
                run.last_state = state if len(state) <= limits.KEPT_TEXT else state[:limits.KEPT_TEXT]
                if "action" in kwargs:
                    run.last_action = limits.kept(kwargs["action"])
                if number is not None:
                    _keep(run, number, plan.method, out)
                if self.runs.snapshots is not None:
                    self.runs.save(run)  # (with the answer kept: both or neither)
                if client:
                    self.trail.called_by(client.strip())
                return orjson.dumps({"wwm": PROTOCOL_VERSION, "response": plan.name, "data": out})
            if client:
                self.trail.called_by(client.strip())
            return self.usual_answer(plan, run, kwargs, result, number)
        except Refusal as refusal:
            return jsoncodec.encode(Response.refused(plan.name, refusal))
        except Exception as exc:
            return jsoncodec.encode(Response.refused(plan.name, self._failed(plan.spec, exc)))
        if number is not None:
            _begin(run, number)
        return Unfinished(coroutine, awaited, plan, run, kwargs, number=number, client=client)

    async def finish(self, unfinished: Unfinished, context: contextvars.Context | None = None) -> bytes:
        """The answer of a method that had to wait, once it has returned (each of its steps
        run in ``context``, where it started, when given)."""
        plan, number, run = unfinished.plan, unfinished.number, unfinished.run
        try:
            result = await Resumed(unfinished.coroutine, unfinished.awaited, context)
        except Refusal as refusal:
            return jsoncodec.encode(Response.refused(plan.name, refusal))
        except Exception as exc:
            return jsoncodec.encode(Response.refused(plan.name, self._failed(plan.spec, exc)))
        finally:
            if number is not None and run.answers is not None:
                run.answers.done(number)
        if unfinished.client:
            self.trail.called_by(unfinished.client.strip())
        return self.usual_answer(plan, run, unfinished.kwargs, result, number)

    def usual_answer(self, plan: _Plan, run: Run, kwargs: dict[str, Any], result: Any,
                     number: int | None = None) -> bytes:
        """What a method returned to the short way, settled as the general way settles it
        (:meth:`_settle`), encoded."""
        try:
            out = self._settle(plan, run, kwargs, result, number)
        except Refusal as refusal:  # a result the protocol refuses (Get values with neither Q nor W)
            return jsoncodec.encode(Response.refused(plan.name, refusal))
        except Exception as exc:  # a method that returned the wrong kind of value
            return jsoncodec.encode(Response.refused(plan.name, self._failed(plan.spec, exc)))
        return orjson.dumps({"wwm": PROTOCOL_VERSION, "response": plan.name, "data": out} if out
                            else {"wwm": PROTOCOL_VERSION, "response": plan.name})

    def _settle(self, plan: _Plan, run: Run, kwargs: dict[str, Any], result: Any,
                number: int | None = None) -> dict[str, Q.Wire]:
        """What follows a run's method returning, on either way: its result as the query's
        data items, the run's display fields noted (:meth:`_observe`), the run ended (End run)
        or its snapshot saved (a query that may change it) with the answer to its sequence
        ``number`` kept, if it has one."""
        if plan.method == "get_display_url" and result is None:
            result = run.display_url or f"{self.url.rstrip('/')}/display/{run.display_token}"
        out = Q.encode_result(plan.spec, result)
        self._observe(run, plan.spec, kwargs, result, out)
        if plan.method == "end_run":
            self.runs.end(run.run_id)
        elif plan.changes_run:
            if number is not None:
                _keep(run, number, plan.method, out)
            self.runs.save(run)
        return out

    def _plan(self, spec: Q.QuerySpec, name: str | None = None) -> _Plan:
        """What answering ``spec`` asked by ``name`` (its wire name unless an alias) needs."""
        name = name or spec.name
        plan = self._plans.get(name)
        if plan is None:
            plan = self._plans[name] = _Plan(spec, name)
        return plan

    async def answer(self, query: Query) -> Response:
        spec = None
        try:
            if self.access is not None:  # before anything else: an outsider learns nothing
                query = Query(query.name, self.access.admit(query.data), query.version)
            elif TOKEN_ITEM in query.data:  # a token this server does not ask for: not an argument
                query = Query(query.name, {k: v for k, v in query.data.items() if k != TOKEN_ITEM}, query.version)
            spec = Q.lookup(self.role, query.name)
            query.data = Q.canonical_items(spec, query.data)  # the seed's spellings, any case
            if spec.query_set not in self.query_sets:
                raise Refusal("unsupported-query",
                              f'"{query.name}" belongs to the {spec.query_set} query set, which this '
                              f'{self.role} server does not support (it supports {", ".join(sorted(self.query_sets))})')
            client = _checked(query.data)
            token = current_server.set(self.trail)
            try:
                if spec.method == "new_run":
                    response = await self._new_run(spec, query)
                else:
                    response = await self._call(spec, query)
            finally:
                current_server.reset(token)
            if client:  # (a refused query leaves no trace in the trail)
                self.trail.called_by(client)
            return response
        except Refusal as refusal:
            return Response.refused(query.name, refusal)
        except Exception as exc:  # the object's own failure: report it, keep the run
            return Response.refused(query.name, self._failed(spec, exc, query.name))

    def _failed(self, spec: Q.QuerySpec | None, exc: Exception, name: str | None = None) -> Refusal:
        """The refusal for the object's own failure (logged): the run goes on."""
        log.exception("%s failed answering %r", self.cls.__name__, name or (spec.name if spec else "?"))
        where = f"{self.cls.__name__}.{spec.method}" if spec else self.cls.__name__
        return Refusal("server-error", f"{where} failed: {type(exc).__name__}: {exc}")

    # ---- New run --------------------------------------------------------------------------
    async def _new_run(self, spec: Q.QuerySpec, query: Query) -> Response:
        data = dict(query.data)
        client_url = _pop_text(data, "client URL")
        context: dict[str, Any] = {}
        declared = {f.wire: f for f in spec.arguments}
        raw_args: dict[str, Any] = {}
        for key, value in data.items():
            item = declared.get(key)
            if item is not None and key in _MIND_CONTEXT:
                context[item.py] = Q.read_value(item, value, spec.name)
            elif item is not None:
                raw_args[item.py] = Q.read_value(item, value, spec.name)
            else:
                raw_args[key] = value
        # The server's defaults, overridden by this run's own items (merged before validation,
        # since a validated model holds every field, the class's own defaults included).
        if raw_args or not self.defaults_complete:
            args = self.arguments.build({**self.raw_defaults, **raw_args})
        else:
            args = dict(self.defaults)
            if self.arguments.wire_items:  # each run its own dict
                args[Q.WIRE_ITEMS] = dict(args[Q.WIRE_ITEMS])

        def build(shared: bool = False) -> World | Mind:
            try:
                if shared:  # the one instance is built with the server's defaults alone
                    return self.cls(**(self.defaults if self.defaults_complete
                                       else self.arguments.build(self.raw_defaults)))
                return self.cls(**args)
            except Refusal:
                raise
            except (TypeError, ValueError) as exc:
                raise Refusal("bad-parameters", f"{self.cls.__name__}: {exc}") from None

        join_args = args if self.runs.sharing == "shared" else {}
        run = await self.runs.create(build, client_url, join_args, peer.get())
        try:
            kwargs = self._fit(self._takes(run.obj.new_run), spec, {"client_url": client_url, **context})
            started = await run.obj.new_run(**kwargs)
        except BaseException:
            self.runs.end(run.run_id)
            raise
        self.runs.save(run)
        out = Q.encode_result(spec, started if isinstance(started, RunStarted) else None)
        out = {spec.run_id_field: run.run_id, **out, SEQUENCED: True}  # (wwm.protocol.sequence)
        out.setdefault(f"{self.role} display URL", f"{self.url.rstrip('/')}/display/{run.display_token}")
        display_url = out[f"{self.role} display URL"]
        run.display_url = display_url if isinstance(display_url, str) else None
        return Response(query.name, out)

    # ---- every other query ----------------------------------------------------------------
    async def _call(self, spec: Q.QuerySpec, query: Query) -> Response:
        data = query.data
        run_id = data.get(spec.run_id_field)
        run = self.runs.get(run_id.strip() if isinstance(run_id, str) else "")
        plan = self._plan(spec)
        method = getattr(run.obj, spec.method)
        takes = self._takes(method)
        kwargs: dict[str, Any] = {}
        for item, py in plan.items:
            if item.wire in data:
                kwargs[py] = Q.read_value(item, data[item.wire], spec.name)
            elif not item.optional:
                raise Refusal("bad-parameters", f'"{spec.name}" needs the item "{item.wire}"')
        extra: dict[str, Any] = {}
        if len(data) > len(kwargs) + 1:  # more than the run ID: a client URL, or open-ended items
            extra = {k: v for k, v in data.items() if k not in plan.known}
            if extra and not spec.open_arguments:
                raise Refusal("bad-parameters", f'"{spec.name}" takes no item(s) {limits.some(extra)}')
        if takes.wire_items and spec.open_arguments:
            kwargs[Q.WIRE_ITEMS] = extra  # by their wire names, exactly as received
        elif extra:
            kwargs.update({Q.snake(k): v for k, v in extra.items()})
        kwargs = self._fit(takes, spec, kwargs)
        number = data.get(SEQUENCE)
        if number is None or not plan.changes_run:  # (a number on a query that changes nothing: moot)
            return Response(query.name, self._settle(plan, run, kwargs, await method(**kwargs)))
        number = read_sequence(number, spec.name)
        answers = run.answers = run.answers or Answers()
        repeated = await answers.repeat(number, spec.method, spec.name)
        if repeated is not None:  # sent again: answered as the first time, not acted on again
            return Response(query.name, repeated)
        answers.begin(number)
        try:
            out = self._settle(plan, run, kwargs, await method(**kwargs), number)
        finally:
            answers.done(number)
        return Response(query.name, out)  # (the name asked by: an alias is answered as asked)

    def _fit(self, takes: _Takes, spec: Q.QuerySpec, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Drop absent optional items; refuse items the method cannot take."""
        accepts = takes.names
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if accepts is None:
            return kwargs
        unknown = [k for k in kwargs if k not in accepts]
        if unknown:
            if spec.method == "new_run" and unknown == ["client_url"]:
                return {k: v for k, v in kwargs.items() if k != "client_url"}
            raise Refusal("bad-parameters",
                          f'{self.cls.__name__} does not take {limits.some(unknown)} with "{spec.name}"')
        return kwargs

    def _takes(self, method: Any) -> _Takes:
        key = getattr(method, "__func__", method)
        takes = self._accepts.get(key)
        if takes is None:
            takes = self._accepts[key] = _Takes(method)
        return takes

    def _observe(self, run: Run, spec: Q.QuerySpec, kwargs: dict[str, Any], result: Any,
                 out: dict[str, Q.Wire]) -> None:
        """Remember what the display page shows: the last state, action and score."""
        if "state" in out:
            run.last_state = limits.kept(_text_or_none(out["state"]))
        elif "state" in kwargs:
            run.last_state = limits.kept(kwargs["state"])
        if "action" in kwargs:
            run.last_action = limits.kept(kwargs["action"])
        elif "action" in out:
            run.last_action = limits.kept(_text_or_none(out["action"]))
        if spec.method in ("get_current_score", "end_run") and result is not None:
            run.score = _finite(float(result))
        elif spec.method == "execute_action" and isinstance(result, Outcome) and result.score is not None:
            run.score = _finite((run.score or 0.0) + float(result.score))


class _Takes:
    """What a method's signature takes, worked out once per function: the keywords it
    accepts (None: any, it has ``**kwargs``), and whether it wants the open-ended items by
    their wire names in one dict (a parameter named ``wire_items``, not ``**wire_items``)."""

    __slots__ = ("names", "wire_items")

    def __init__(self, method: Any) -> None:
        params = inspect.signature(method).parameters.values()
        self.names: frozenset[str] | None = (
            None if any(p.kind is p.VAR_KEYWORD for p in params) else frozenset(p.name for p in params))
        self.wire_items = any(p.name == Q.WIRE_ITEMS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                              for p in params)


@dataclass(slots=True)
class Unfinished:
    """The usual query's method, started by :meth:`Dispatcher.answer_at_once`, waiting for
    ``awaited`` (what its first ``send`` gave); with what its answer needs once it returns
    (:meth:`Dispatcher.finish`)."""

    coroutine: Coroutine[Any, Any, Any]
    awaited: Any
    plan: _Plan
    run: Run
    kwargs: dict[str, Any]
    number: int | None = None  # its sequence number, being acted on
    client: str | None = None  # its client URL, for the trail once it is answered


def _keep(run: Run, number: int, method: str, out: dict[str, Q.Wire]) -> None:
    """Keep the answer to a numbered query, to answer it again if it comes again."""
    if run.answers is None:
        run.answers = Answers()
    run.answers.keep(number, method, out)


def _begin(run: Run, number: int) -> None:
    if run.answers is None:
        run.answers = Answers()
    run.answers.begin(number)


class _Plan:
    """What answering one query needs to know of its row, worked out once."""

    __slots__ = ("spec", "name", "method", "run_id_field", "known", "changes_run", "items", "conversions",
                 "outcome", "fits_of", "_fits")

    def __init__(self, spec: Q.QuerySpec, name: str | None = None) -> None:
        self.spec = spec
        self.name = name or spec.name  # the name asked by, which the answer carries
        self.method = spec.method
        self.outcome = spec.returns is Q.Returns.OUTCOME  # (Execute action: answered in place)
        self.fits_of: dict[Any, bool] = {}  # by method function: whether it takes the short way
        self.run_id_field = spec.run_id_field  # (a property that formats the name each time)
        self.items = tuple((item, item.py) for item in spec.arguments)  # item.py is worked out each time
        self.known = frozenset({f.wire for f in spec.arguments} | {spec.run_id_field, "client URL", SEQUENCE})
        self.changes_run = numbered(spec.method)  # (the queries that may carry a sequence number)
        # each item by wire name and keyword, whether it may be left out, and whether a str
        # passes read_value unchanged (text), to skip the call
        self.conversions = tuple((item.wire, py, item.optional, item, item.kind is Q.Kind.TEXT)
                                 for item, py in self.items)
        self._fits: dict[_Takes, bool] = {}

    def fits(self, takes: _Takes) -> bool:
        """Whether a method of this signature takes every item of the row by its keyword and
        wants no open-ended items (then nothing is left for :meth:`Dispatcher._fit` to do)."""
        fits = self._fits.get(takes)
        if fits is None:
            fits = self._fits[takes] = (
                not (takes.wire_items and self.spec.open_arguments)
                and (takes.names is None or all(py in takes.names for _, py in self.items)))
        return fits


_EMPTY: dict[str, Any] = {}
_SCALARS = frozenset({str, int, float, bool})
_VERSIONS = Q.SUPPORTED_VERSIONS


def _finite(score: float) -> float:
    """A run's score as its display page shows it: a sum past the float range is held at it."""
    return score if -_LARGEST <= score <= _LARGEST else (_LARGEST if score > 0 else -_LARGEST)


_LARGEST = sys.float_info.max


def _text_or_none(value: Q.Wire) -> str | None:
    return value if isinstance(value, str) else None


def _pop_text(data: dict[str, Any], key: str) -> str | None:
    value = data.pop(key, None)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refusal("bad-parameters", f'"{key}" should be a URL')
    value = value.strip()
    if value and not is_caller_url(value):
        raise Refusal("client-url-invalid", f"{limits.quote(value)} is not a URL (http://..., https://... "
                      f"or urn:..., at most {limits.CLIENT_URL} characters)")
    return value or None


def _checked(data: dict[str, Any]) -> str | None:
    """The query's client URL (stripped; None if it gives none), after checking the query's
    items are within :mod:`~wwm.protocol.limits`: their count, their names' length and the
    client URL's."""
    if len(data) > limits.ITEMS:
        raise Refusal("bad-parameters", f"the query has {len(data)} data items; at most {limits.ITEMS} are taken")
    long = [name for name in data if len(name) > limits.ITEM_NAME]
    if long:
        raise Refusal("bad-parameters", f"data item names are at most {limits.ITEM_NAME} characters: "
                      f"{limits.some(long)}")
    client = data.get("client URL")
    if client is None or client == "":
        return None
    text = str(client).strip() if isinstance(client, (str, int, float)) else ""
    if len(text) > limits.CLIENT_URL:
        raise Refusal("client-url-invalid", f'"client URL" is at most {limits.CLIENT_URL} characters, '
                      f"got {len(text)}: {limits.quote(text)}")
    return text or None
