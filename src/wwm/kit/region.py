"""The region Mind_M wrapper of sections 2.3 and 3.5: "if the state is in region X1 do what
mind M1 does, else if it is in X2 do what M2 does, ..., otherwise do what the last mind does".

Regions are predicates on the state's documented format, parsed (never ``eval``-ed) by
:func:`parse_region`: comparisons of the state's ``key=value`` items (or a JSON object's
top-level fields) with numbers or quoted text, chained (``2<=x<5``) and combined with
``and`` / ``or`` / ``not`` and parentheses, e.g. ``hd<=1``, ``x<3 and not y==0``.
The minds are Mind objects, URLs of Mind servers (opened with :func:`wwm.connect`, so a
served wrapper calls its minds over the network), or ``action:A`` for the fixed action A
(the "if input is x then take action a, otherwise do what the old server does" of 2.3).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import Field

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion

log = logging.getLogger("wwm.kit.region")

Variables = dict[str, float | str]

# ---- reading a state -------------------------------------------------------------------------


def state_variables(state: str) -> Variables:
    """The named items of a state: a JSON object's top-level scalars, or ``key=value`` items
    separated by white space. Values that read as numbers become numbers."""
    text = state.strip()
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return {str(k): _number(v) if isinstance(v, str) else float(v)
                    for k, v in obj.items()
                    if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    out: Variables = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if sep and key:
            out[key] = _number(value)
    return out


def _number(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value


# ---- the region language ---------------------------------------------------------------------

_TOKEN = re.compile(r"""
    \s*(?:
      (?P<num>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?\.\d+)
    | (?P<op><=|>=|==|!=|<|>|=)
    | (?P<paren>[()])
    | (?P<str>"[^"]*"|'[^']*')
    | (?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)
    )""", re.VERBOSE)

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    at: int


class RegionError(ValueError):
    """A region that cannot be parsed; the text says where and why."""


def _tokens(text: str) -> list[_Token]:
    out, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            rest = text[at:].lstrip()
            column = len(text) - len(rest) + 1
            raise RegionError(f"region {text!r}: cannot read {rest[:10]!r} at column {column}")
        kind = match.lastgroup or ""
        value, column = match.group(kind), match.start(kind) + 1
        if kind == "name" and value in ("and", "or", "not"):
            kind = value
        out.append(_Token(kind, value, column))
        at = match.end()
    return out


Predicate = Callable[[Variables], bool]


class Region:
    """One parsed region: call it with a state's text."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not text.strip():
            raise RegionError("a region must be a non-empty predicate such as 'x<3'")
        self.text = text.strip()
        self._tokens = _tokens(self.text)
        self._at = 0
        self.names: set[str] = set()
        self._test = self._or()
        if self._at < len(self._tokens):
            token = self._tokens[self._at]
            raise RegionError(f"region {self.text!r}: unexpected {token.text!r} at column {token.at}")

    def __repr__(self) -> str:
        return f"Region({self.text!r})"

    def __reduce__(self) -> tuple[type[Region], tuple[str]]:
        return (Region, (self.text,))  # parsed again: the compiled predicate is closures

    def __call__(self, state: str | Variables) -> bool:
        variables = state_variables(state) if isinstance(state, str) else state
        missing = sorted(self.names - set(variables))
        if missing:
            has = ", ".join(sorted(variables)) or "no key=value items"
            raise Refusal("bad-parameters", f"region {self.text!r} tests {', '.join(missing)}, "
                                            f"which the state does not have (it has: {has})")
        return self._test(variables)

    # recursive descent: or -> and -> not -> comparison
    def _peek(self) -> _Token | None:
        return self._tokens[self._at] if self._at < len(self._tokens) else None

    def _take(self) -> _Token:
        token = self._peek()
        if token is None:
            raise RegionError(f"region {self.text!r} ends too early")
        self._at += 1
        return token

    def _or(self) -> Predicate:
        parts = [self._and()]
        while (t := self._peek()) is not None and t.kind == "or":
            self._at += 1
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else (lambda v: any(p(v) for p in parts))

    def _and(self) -> Predicate:
        parts = [self._not()]
        while (t := self._peek()) is not None and t.kind == "and":
            self._at += 1
            parts.append(self._not())
        return parts[0] if len(parts) == 1 else (lambda v: all(p(v) for p in parts))

    def _not(self) -> Predicate:
        token = self._peek()
        if token is not None and token.kind == "not":
            self._at += 1
            inner = self._not()
            return lambda v: not inner(v)
        if token is not None and token.kind == "paren" and token.text == "(":
            self._at += 1
            inner = self._or()
            close = self._take()
            if close.text != ")":
                raise RegionError(f"region {self.text!r}: expected ')' at column {close.at}")
            return inner
        return self._comparison()

    def _operand(self) -> Callable[[Variables], float | str]:
        token = self._take()
        if token.kind == "num":
            number = float(token.text)
            return lambda v: number
        if token.kind == "str":
            text = token.text[1:-1]
            return lambda v: text
        if token.kind == "name":
            name = token.text
            self.names.add(name)
            return lambda v: v[name]
        raise RegionError(f"region {self.text!r}: expected a name or a number at column {token.at}, "
                          f"got {token.text!r}")

    def _comparison(self) -> Predicate:
        operands = [self._operand()]
        ops: list[str] = []
        while (t := self._peek()) is not None and t.kind == "op":
            self._at += 1
            ops.append(t.text)
            operands.append(self._operand())
        if not ops:
            raise RegionError(f"region {self.text!r}: a comparison such as 'x<3' is needed, "
                              "not a bare name or number")
        text = self.text

        def test(v: Variables) -> bool:
            values = [o(v) for o in operands]
            # one more value than operators (each operator sits between two): the last value is only a b
            for op, a, b in zip(ops, values, values[1:], strict=False):
                if op in ("==", "=", "!="):
                    same = a == b
                    if (op == "!=") == same:
                        return False
                    continue
                if not (isinstance(a, float) and isinstance(b, float)):
                    raise Refusal("bad-parameters", f"region {text!r} compares {a!r} {op} {b!r}: "
                                                    "only numbers can be ordered")
                if not _COMPARE[op](a, b):
                    return False
            return True

        return test


def parse_region(text: str) -> Region:
    """Parse a region predicate; :class:`RegionError` (a ValueError) names what is wrong."""
    return Region(text)


# ---- the wrapper -----------------------------------------------------------------------------


class FixedAction(Mind):
    """A mind that always suggests the same action (``action:A`` in a wrapper's mind list)."""

    def __init__(self, action: str) -> None:
        self.action = action

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion(self.action)


def open_mind(entry: str | Mapping[str, Any] | Mind, timeout: float = 10.0, where: str = "mind") -> Mind:
    """A Mind object for one entry of a wrapper's mind list: a Mind object, ``action:A``, a
    URL, or a member ``{url, args}`` (or its JSON text) whose ``args`` go in the New run sent
    to it (see :mod:`wwm.client.members`). A wrong entry is a ValueError naming ``where``."""
    if isinstance(entry, Mind):
        return entry
    if not isinstance(entry, (str, Mapping)) or (isinstance(entry, str) and not entry.strip()):
        raise ValueError(f"{where}: a mind must be a Mind object, a URL or 'action:A', not {entry!r}")
    if isinstance(entry, str) and entry.strip().startswith("action:"):
        return FixedAction(entry.strip()[len("action:"):].strip())
    from ..client.members import connect_member, read_member

    spec = read_member(entry, where)
    if not spec.url.startswith(("http://", "https://")):
        raise ValueError(f"{where}: {spec.url!r} is neither an http(s) URL of a Mind server nor 'action:A'")
    return connect_member(spec, timeout=timeout)


def freeze(mind: Mind) -> Any:
    """What a snapshot keeps of a mind: a remote one as its URL and run ID, a local one as is."""
    from ..client.remote import RemoteMind

    return _RemoteRef.of(mind) if isinstance(mind, RemoteMind) else mind


def thaw(kept: Any) -> Mind:
    """The mind again from what :func:`freeze` kept (a remote one is connected to again)."""
    return kept.open() if isinstance(kept, _RemoteRef) else kept


@dataclass(frozen=True)
class _RemoteRef:
    """A remote mind in a snapshot: where it is, and which of its runs is ours."""

    url: str
    run_id: str | None
    client_url: str | None
    timeout: float | None
    token: str | None = field(default=None, repr=False)  # its server's access token, if it asks one

    @classmethod
    def of(cls, mind: Any) -> _RemoteRef:
        return cls(mind.url, mind.run_id, mind.client_url, getattr(mind.transport, "timeout", None),
                   getattr(mind, "token", None))

    def open(self) -> Mind:
        from ..client.remote import connect_mind

        mind = connect_mind(self.url, timeout=self.timeout, client_url=self.client_url, token=self.token)
        mind.run_id = self.run_id
        return mind


def _entries(value: Any, separator: str) -> list[Any]:
    """A list argument that may also come as one text (``separator`` between entries)."""
    items = re.split(separator, value) if isinstance(value, str) else list(value)
    return [i.strip() if isinstance(i, str) else i for i in items if not isinstance(i, str) or i.strip()]


class CallsMinds(Mind):
    """A Mind_M that calls the minds in ``self.minds`` (section 3.5): New run starts a run on
    each of them (once per distinct mind), and a snapshot (the server pickles own runs so that
    a restarted server resumes them) keeps each remote mind as its URL and run ID and connects
    to it again when it is taken back."""

    minds: list[Mind]

    def __getstate__(self) -> dict[str, Any]:
        refs: dict[int, Any] = {}
        return {**self.__dict__, "minds": [refs.setdefault(id(m), freeze(m)) for m in self.minds]}

    def __setstate__(self, state: dict[str, Any]) -> None:
        opened: dict[int, Mind] = {}
        self.__dict__.update(state, minds=[opened.setdefault(id(m), thaw(m)) for m in state["minds"]])

    def _distinct(self) -> list[Mind]:
        seen: dict[int, Mind] = {}
        for mind in self.minds:
            seen.setdefault(id(mind), mind)
        return list(seen.values())

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)

        async def start(mind: Mind) -> None:
            await speak_as_described(mind)
            await mind.new_run(world_display_url=world_display_url, world_run_id=world_run_id)

        await asyncio.gather(*(start(m) for m in self._distinct()))
        return None

    async def inform(self, state: str, score: float | None = None) -> float | None:
        """Every mind hears of the new state ("Inform it about state"), whichever acted; one that
        fails is logged, not fatal."""
        minds = self._distinct()
        answers = await asyncio.gather(*(m.inform(state, score) for m in minds), return_exceptions=True)
        for mind, answer in zip(minds, answers, strict=True):
            if isinstance(answer, BaseException):
                log.warning("informing %r failed: %s", mind, answer)
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        """End run on every mind, then let go of the remote ones' connections."""
        minds = self._distinct()
        await asyncio.gather(*(m.end_run(score) for m in minds), return_exceptions=True)
        for mind in minds:
            close = getattr(mind, "aclose", None)
            if close is not None:
                await close()
        return None


async def speak_as_described(mind: Mind) -> None:
    """A remote mind reached over HTTP speaks an encoding its card lists from the first query
    on (an XML-only CGI mind gets XML, not a JSON query it refuses first). A card that cannot
    be had changes nothing: the first answer still shows the server's encoding."""
    from ..client.remote import RemoteMind

    if not (isinstance(mind, RemoteMind) and mind.url.lower().startswith(("http://", "https://"))):
        return
    try:
        await mind.describe()
    except Refusal as exc:
        log.info("%s could not be described (%s): its first answer will show its encoding", mind.url, exc)


class RegionMind(CallsMinds):
    """Mind_M: ``minds[i]`` acts in ``region[i]`` (the first that holds), the last mind in every
    other state. With one region and two minds: "if x in X do what M1 does, else what M2 does".

    ``region`` is a list, or one text with the regions separated by ``;``; ``minds`` (wire
    name "mind URL", repeated) holds one more entry than there are regions, each a URL,
    ``action:A``, or a member ``{"url": ..., "args": {...}}`` (JSON text on the wire) whose
    ``args`` this mind sends in that member's own New run (3.5); either may be
    fixed for every run by the server (``wwm serve ... --arg region=...``). Every mind is told
    the new state after each step ("Inform it about state"), whichever acted.
    """

    state_format: ClassVar[str] = "whatever the wrapped minds read; regions test its key=value items"

    def __init__(
            self, minds: Sequence[str | Mapping[str, Any] | Mind] | str = (),
            region: Annotated[list[str] | str, Field(
                description="Where each member acts: one region per member but the last, separated by ';' "
                            "(e.g. hd<=2); the last member acts everywhere else.")] = "",
            timeout: Annotated[float, Field(description="Seconds to wait for a member's answer.",
                                            json_schema_extra={"exclusiveMinimum": 0, "x-advanced": True})]
            = 10.0) -> None:
        from ..client.members import member_entries

        self.regions = [parse_region(r) for r in _entries(region, r"[;\n]")]
        entries = _entries(member_entries(minds) if isinstance(minds, str) else minds, r"[\s,]+")
        if not self.regions:
            raise ValueError("RegionMind needs at least one region, e.g. region='x<3'")
        if len(entries) != len(self.regions) + 1:
            raise ValueError(f"RegionMind needs one mind per region plus one for every other state: "
                             f"{len(self.regions)} region(s) need {len(self.regions) + 1} minds, "
                             f"{len(entries)} given")
        self.minds: list[Mind] = [open_mind(e, timeout, f"minds[{i}]") for i, e in enumerate(entries)]
        self.chosen: Counter[int] = Counter()

    def choose(self, state: str) -> int:
        """The index of the mind that acts in ``state``."""
        variables = state_variables(state)
        for i, region in enumerate(self.regions):
            if region(variables):
                return i
        return len(self.regions)

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        if state is None:
            answers = await asyncio.gather(*(m.ready_to_suggest() for m in self._distinct()))
            return any(answers)
        return await self.minds[self.choose(state)].ready_to_suggest(state)

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        index = self.choose(state)
        self.chosen[index] += 1
        mind = self.minds[index]
        return await (mind.get_action(state, **step) if step else mind.get_action(state))


    async def no_operation(self) -> None:
        await asyncio.gather(*(m.no_operation() for m in self._distinct()), return_exceptions=True)

