"""The query vocabulary of section 9, as data.

Each :class:`QuerySpec` is one row of a section-9 table: its exact name on the wire, which
query set it belongs to (World; Mind; Mind_L, Mind_i, Mind_Feu, Mind_AS), the Python method
that answers it, its named arguments, whether it takes an open-ended set of further
arguments, and the kind of value it returns. Servers, clients and codecs all work from this
table, so a new query set plugs in by registering more rows (see :func:`register`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from .errors import Refusal
from .results import Outcome, RunStarted, Suggestion, Values

PROTOCOL_VERSION = "1.0"
SUPPORTED_VERSIONS = frozenset({"1", "1.0"})


class Kind(str, Enum):
    """How a data item is read and written. On the XML wire everything is text."""

    TEXT = "text"        # opaque text: a state, an action (section 9.1 note 2)
    ID = "id"            # a run ID: surrounding white space is ignored
    URL = "url"
    NUMBER = "number"
    BOOLEAN = "boolean"
    URLS = "urls"        # a repeated item: a list of URLs (Mind_AS "List of Mind server URLs");
                         # an entry may instead be a JSON object {"url": ..., "args": {...}}: a
                         # mind to call with the arguments of its own New run


@dataclass(frozen=True, slots=True)
class Field:
    wire: str            # the name in <data name="...">
    kind: Kind
    optional: bool = False
    attr: str = ""       # the Python keyword; derived from wire when empty
    invalid: str = ""    # a URL item's own refusal code (section 9), when it has one: the value
                         # must then be an absolute URL of one of URL_SCHEMES
    aliases: tuple[str, ...] = ()  # the seed's own spellings, where its section 9 words the item
                                   # otherwise ("mind strength" for "strength")

    @property
    def py(self) -> str:
        return self.attr or snake(self.wire)


class Returns(str, Enum):
    """The shape of a query's return data; see :func:`encode_result` / :func:`decode_result`."""

    CONFIRM = "confirm"          # None
    RUN = "run"                  # RunStarted (+ the run ID the server mints)
    STATE = "state"              # str
    OUTCOME = "outcome"          # Outcome
    SCORE = "score"              # float | None
    DISPLAY_URL = "display-url"  # str | None
    READY = "ready"              # bool
    SUGGESTION = "suggestion"    # Suggestion
    VALUES = "values"            # Values
    Q = "Q"                      # float | None (the Mind's own points, "Inform it about state")
    Q_TEMPERATURE = "Q-temperature"
    W_TEMPERATURE = "W-temperature"
    STRENGTH = "strength"


@dataclass(frozen=True, slots=True)
class QuerySpec:
    name: str                    # exactly as on the wire, e.g. "Get action"
    role: str                    # "world" or "mind": which kind of server answers it
    query_set: str               # "World", "Mind", "Mind_L", "Mind_i", "Mind_Feu", "Mind_AS", ...
    method: str                  # the Python coroutine method that answers it
    arguments: tuple[Field, ...] = ()
    returns: Returns = Returns.CONFIRM
    open_arguments: bool = False  # takes an open-ended set of further arguments
    doc: str = ""
    refusals: tuple[str, ...] = ()
    # other names the query is answered by: the seed's own spelling of a row whose wire name
    # here is shorter ("Add mind to collection" for "Add mind"); the answer carries the name asked
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every name this query is answered by: its wire name first, then its aliases."""
        return (self.name, *self.aliases)

    @property
    def run_id_field(self) -> str:
        return f"{self.role} run ID"


def snake(name: str) -> str:
    """The Python keyword for a wire name: "Q-temperature" -> "q_temperature"."""
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()


# A method (or constructor) with a parameter of this name receives the items its query's row
# does not name (the open-ended ones) as one dict keyed by their exact wire names, instead of
# as snake-cased keywords (see the text of :mod:`wwm.protocol.interfaces`).
WIRE_ITEMS = "wire_items"


# Items every query may carry besides its own: the run ID (all but New run) and the caller's
# URL, which builds the credit trail of section 7.2.
CLIENT_URL = Field("client URL", Kind.URL, optional=True)

STATE = Field("state", Kind.TEXT)
ACTION = Field("action", Kind.TEXT)
SCORE = Field("score", Kind.NUMBER, optional=True)
RUN_LENGTH = Field("run length", Kind.NUMBER, optional=True,
                   aliases=("Proposed length of next Q learning run", "Proposed length of next W learning run"))
DESTINATION = Field("destination", Kind.TEXT, aliases=("destination state c", "destination state"))
MIND_URL = Field("mind URL", Kind.URL, aliases=("Mind server URL",))

_W = "world"
_M = "mind"

_SPECS: list[QuerySpec] = [
    # ---- 9.1 World server ------------------------------------------------------------------
    QuerySpec("New run", _W, "World", "new_run", (), Returns.RUN, open_arguments=True,
              doc="Start a run for this client: a new copy of the world, a new body in a shared "
                  "world, or the robot, according to the world's kind.",
              refusals=("client-blocked", "client-url-invalid", "credit-trail-failed",
                        "payment-required", "authentication-required", "in-use",
                        "bad-parameters", "busy")),
    QuerySpec("Get display URL", _W, "World", "get_display_url", (), Returns.DISPLAY_URL),
    QuerySpec("No operation", _W, "World", "no_operation", (), Returns.CONFIRM,
              doc="A keep-alive or clock tick: tells the server the client is still running."),
    QuerySpec("Get state", _W, "World", "get_state", (), Returns.STATE),
    QuerySpec("Execute action", _W, "World", "execute_action", (ACTION,), Returns.OUTCOME),
    QuerySpec("Reset", _W, "World", "reset", (), Returns.CONFIRM,
              doc="Reset the world as it would be at the start of a run (may reset the score)."),
    QuerySpec("Reset score", _W, "World", "reset_score", (), Returns.CONFIRM),
    QuerySpec("Get current score", _W, "World", "get_current_score", (), Returns.SCORE),
    QuerySpec("End run", _W, "World", "end_run", (), Returns.SCORE),
    # ---- 9.2 Mind server -------------------------------------------------------------------
    QuerySpec("New run", _M, "Mind", "new_run",
              (Field("world display URL", Kind.URL, optional=True,
                     invalid="world-display-url-invalid"),
               Field("world run ID", Kind.ID, optional=True),
               # 9.2.1: "Give me the version of the Mind you have constructed by learning with
               # the client at this URL."
               Field("other client URL", Kind.URL, optional=True),
               # 9.2.4: the list of Mind server URLs an AS server adjudicates.
               Field("mind URL", Kind.URLS, optional=True, attr="minds",
                     aliases=("List of Mind server URLs", "Mind server URL"))),
              Returns.RUN, open_arguments=True,
              refusals=("client-blocked", "client-url-invalid", "credit-trail-failed",
                        "world-display-url-invalid", "payment-required",
                        "authentication-required", "bad-parameters", "mind-url-invalid",
                        "too-few-minds", "other-client-unknown", "busy")),
    QuerySpec("Get display URL", _M, "Mind", "get_display_url", (), Returns.DISPLAY_URL),
    QuerySpec("No operation", _M, "Mind", "no_operation", (), Returns.CONFIRM),
    QuerySpec("Ready to suggest action?", _M, "Mind", "ready_to_suggest",
              (Field("state", Kind.TEXT, optional=True),), Returns.READY),
    QuerySpec("Get action", _M, "Mind", "get_action", (STATE,), Returns.SUGGESTION,
              open_arguments=True,  # 9.2.1: per-step arguments such as Q-temperature
              doc='Returns an action (and optionally Q), or "Cannot suggest action", which is '
                  'not the action "Do nothing".'),
    QuerySpec("Inform it about state", _M, "Mind", "inform", (STATE, SCORE), Returns.Q,
              doc="Tell the mind what happened when the action was executed: the new state y."),
    QuerySpec("Reset score", _M, "Mind", "reset_score", (), Returns.CONFIRM),
    QuerySpec("Get current score", _M, "Mind", "get_current_score", (SCORE,), Returns.SCORE),
    QuerySpec("End run", _M, "Mind", "end_run", (SCORE,), Returns.SCORE),
    # ---- 9.2.1 Mind_L ----------------------------------------------------------------------
    QuerySpec("Get Q-Temperature", _M, "Mind_L", "get_q_temperature", (), Returns.Q_TEMPERATURE),
    QuerySpec("Reset Q-Temperature", _M, "Mind_L", "reset_q_temperature", (RUN_LENGTH,),
              Returns.CONFIRM, doc="World has changed: reset Q-temperature to something sensible.",
              aliases=("Reset Q-Temperature / World has changed",)),
    QuerySpec("Send explicit Q-Temperature", _M, "Mind_L", "send_q_temperature",
              (Field("Q-temperature", Kind.NUMBER), RUN_LENGTH), Returns.CONFIRM),
    # ---- 9.2.2 Mind_i ----------------------------------------------------------------------
    QuerySpec("Get mind strength", _M, "Mind_i", "get_strength", (), Returns.STRENGTH),
    QuerySpec("Change mind strength", _M, "Mind_i", "change_strength",
              (Field("strength", Kind.NUMBER, aliases=("mind strength",)),), Returns.CONFIRM),
    QuerySpec("Get W-Temperature", _M, "Mind_i", "get_w_temperature", (), Returns.W_TEMPERATURE),
    QuerySpec("Reset W-Temperature", _M, "Mind_i", "reset_w_temperature", (RUN_LENGTH,),
              Returns.CONFIRM, doc="Collection has changed: reset W-temperature.",
              aliases=("Reset W-Temperature / Collection has changed",)),
    QuerySpec("Send explicit W-Temperature", _M, "Mind_i", "send_w_temperature",
              (Field("W-temperature", Kind.NUMBER), RUN_LENGTH), Returns.CONFIRM),
    QuerySpec("Get suggested action with values", _M, "Mind_i", "get_suggestion", (STATE,),
              Returns.SUGGESTION, open_arguments=True,
              doc="An action or the URL of a Mind that will generate it, with Q and W; or "
                  '"Cannot suggest action".'),
    QuerySpec("Get values for this action", _M, "Mind_i", "get_values", (STATE, ACTION),
              Returns.VALUES, open_arguments=True),
    QuerySpec("Inform it about winner", _M, "Mind_i", "inform_winner",
              (Field("obeyed", Kind.BOOLEAN, optional=True),
               Field("W", Kind.NUMBER, optional=True, attr="payment"),
               Field("winner URL", Kind.URL, optional=True),
               Field("action", Kind.TEXT, optional=True),
               STATE, SCORE),
              Returns.VALUES),
    # ---- 9.2.3 Mind_Feu --------------------------------------------------------------------
    QuerySpec("Take me to state", _M, "Mind_Feu", "take_me_to",
              (STATE, DESTINATION), Returns.SUGGESTION, open_arguments=True),
    QuerySpec("How good is this action", _M, "Mind_Feu", "how_good",
              (STATE, DESTINATION, ACTION), Returns.VALUES,
              open_arguments=True, aliases=("How good/bad is this action",)),
    # ---- 9.2.4 Mind_AS ---------------------------------------------------------------------
    QuerySpec("Add mind", _M, "Mind_AS", "add_mind", (MIND_URL,),
              Returns.CONFIRM, refusals=("mind-url-invalid", "credit-trail-failed"),
              aliases=("Add mind to collection",)),
    QuerySpec("Remove mind", _M, "Mind_AS", "remove_mind", (MIND_URL,),
              Returns.CONFIRM, aliases=("Remove mind from collection",)),
]

QUERIES: dict[tuple[str, str], QuerySpec] = {}
QUERY_SETS: dict[str, str] = {}  # query set -> role
ALIASES: dict[tuple[str, str], QuerySpec] = {}  # (role, alias) -> the query it names


def register(spec: QuerySpec) -> QuerySpec:
    """Add a query to the vocabulary (how an extension query set plugs in)."""
    key = (spec.role, spec.name)
    if key in QUERIES and QUERIES[key] != spec:
        raise ValueError(f"query {spec.name!r} is already defined for {spec.role} servers")
    for alias in spec.aliases:
        other = QUERIES.get((spec.role, alias)) or ALIASES.get((spec.role, alias))
        if other is not None and other != spec:
            raise ValueError(f"{alias!r} already names the query {other.name!r} of {spec.role} servers")
    if key in ALIASES and ALIASES[key] != spec:
        raise ValueError(f"{spec.name!r} is already another name of {ALIASES[key].name!r} on {spec.role} servers")
    QUERIES[key] = spec
    for alias in spec.aliases:
        ALIASES[(spec.role, alias)] = spec
    QUERY_SETS.setdefault(spec.query_set, spec.role)
    return spec


for _spec in _SPECS:
    register(_spec)


def lookup(role: str, name: str) -> QuerySpec:
    """The query a server of ``role`` answers by ``name`` (its wire name or an alias, in any case)."""
    try:
        return QUERIES[(role, name)]
    except KeyError:
        spec = ALIASES.get((role, name)) or _by_folded_name(role, name)
        if spec is not None:
            return spec
        other = "mind" if role == "world" else "world"
        if (other, name) in QUERIES or (other, name) in ALIASES:
            raise Refusal("unknown-query", f"{name!r} is a {other} query; this is a {role} server") from None
        raise Refusal("unknown-query", f"{name!r} is not a query of the World-Wide-Mind protocol") from None


def _by_folded_name(role: str, name: str) -> QuerySpec | None:
    """The query named ``name`` without regard to case or runs of spaces (the seed writes
    "Get Q-Temperature", a client may write "get q-temperature")."""
    folded = " ".join(name.split()).casefold()
    for table in (QUERIES, ALIASES):
        for (r, n), spec in table.items():
            if r == role and n.casefold() == folded:
                return spec
    return None


#: Items a query may carry among its open-ended ones, in our spelling, by the seed's (any case).
OPEN_ITEMS: dict[str, str] = {"q-temperature": "Q-temperature", "w-temperature": "W-temperature",
                              "mind strength": "strength"}

_ITEM_NAMES: dict[tuple[str, str], dict[str, str]] = {}


def canonical_items(spec: QuerySpec, data: dict[str, Wire]) -> dict[str, Wire]:
    """``data`` with every item the query's row knows under its wire name, however it was
    spelt: any case, or the seed's own wording (:attr:`Field.aliases`; "mind run ID" is
    "Mind run ID"); the open-ended items the vocabulary names (Q-Temperature) in our spelling.
    Two items that are one refuse the query by name."""
    names = _ITEM_NAMES.get((spec.role, spec.name))
    if names is None:
        names = {**({k: v for k, v in OPEN_ITEMS.items()} if spec.open_arguments else {}),
                 spec.run_id_field.casefold(): spec.run_id_field, CLIENT_URL.wire.casefold(): CLIENT_URL.wire}
        for item in spec.arguments:
            for name in (item.wire, *item.aliases):
                names[name.casefold()] = item.wire
        _ITEM_NAMES[(spec.role, spec.name)] = names
    if all(key in names.values() or key.casefold() not in names for key in data):
        return data  # (the usual case: every item already in our spelling)
    out: dict[str, Wire] = {}
    for key, value in data.items():
        wire = names.get(key.casefold(), key)
        if wire in out:
            raise Refusal("bad-parameters", f'"{spec.name}": the item "{wire}" is given twice (as "{key}" too)')
        out[wire] = value
    return out


#: What a server understands of a message beyond its queries: on every card (``understands``).
UNDERSTANDS: dict[str, str] = {
    "elements": "<xml> holding one <query> (or <response>) of <data> items (and <refusal>); JSON "
                "members wwm, query, response, data, refusal",
    "ignored": "any other element inside <xml>, <query> or <response>, and any other JSON member: "
               "section 11.2 lets tags be added without breaking old servers",
    "names": "query and item names are matched without regard to case, in our spelling or the seed's "
             "section 9 (Q-Temperature, W-Temperature, mind strength, Proposed length of next Q learning "
             "run, Mind server URL, destination state c, ...); an answer carries the name asked by",
}


def queries_of(role: str, query_sets: set[str] | frozenset[str]) -> list[QuerySpec]:
    return [s for s in QUERIES.values() if s.role == role and s.query_set in query_sets]


# ---- values on the wire ------------------------------------------------------------------

Wire = str | float | int | bool | list[str] | None


def read_value(item: Field, value: Any, query: str) -> Any:
    """Convert one received data item to its Python value, or refuse naming the item."""
    kind = item.kind
    try:
        if kind is Kind.URLS:
            values = value if isinstance(value, list) else [value]
            # an entry may be a member {url, args} (3.5): kept as its JSON text, as XML carries it
            return [json.dumps(v) if isinstance(v, dict) else str(v).strip() for v in values]
        if isinstance(value, list):
            raise ValueError("expected one value, got a list")
        if kind is Kind.TEXT:
            if not isinstance(value, str):
                raise ValueError("expected text")
            return value
        if kind in (Kind.ID, Kind.URL):
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise ValueError("expected text")
            text = str(value).strip()
            if item.invalid and text and not is_absolute_url(text):
                raise Refusal(item.invalid, f'{query}: "{item.wire}" should be an absolute URL '
                              f'({", ".join(s + "://..." for s in URL_SCHEMES)}), got {_show(text)}')
            return text or (None if item.invalid else text)
        if kind is Kind.NUMBER:
            number = _number(value)
            if not math.isfinite(number):  # "nan", "inf" or 1e999 would poison what a run learns
                raise ValueError("not a finite number")
            return number
        if kind is Kind.BOOLEAN:
            return read_bool(value)
    except (TypeError, ValueError) as exc:
        raise _refused(item, value, query, exc) from None
    raise AssertionError(kind)


URL_SCHEMES = ("http", "https", "ws", "wss")


def is_absolute_url(text: str) -> bool:
    """Whether ``text`` is an absolute URL of one of :data:`URL_SCHEMES` with a host."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return False
    return parts.scheme.lower() in URL_SCHEMES and bool(parts.hostname) and not any(c.isspace() for c in text)


def read_number(item: Field, value: Any, query: str) -> float:
    """:func:`read_value` of a number item."""
    try:
        return _number(value)
    except (TypeError, ValueError) as exc:
        raise _refused(item, value, query, exc) from None


def _number(value: Any) -> float:
    if isinstance(value, list):
        raise ValueError("expected one value, got a list")
    if isinstance(value, bool):
        raise ValueError("expected a number")
    return float(value.strip()) if isinstance(value, str) else float(value)


def _refused(item: Field, value: Any, query: str, exc: Exception) -> Refusal:
    return Refusal("bad-parameters",
                   f'{query}: "{item.wire}" should be {_KIND_TEXT[item.kind]}, got {_show(value)} ({exc})')


_KIND_TEXT = {Kind.TEXT: "text", Kind.ID: "a run ID", Kind.URL: "a URL", Kind.NUMBER: "a number",
              Kind.BOOLEAN: "true or false", Kind.URLS: "a list of URLs"}


def _show(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise ValueError("not a boolean")


def write_number(value: float) -> float | int:
    """A number as the wire carries it. Only finite numbers go out, as only finite ones are
    read (:func:`read_value`): an infinity or NaN (a sum of scores past the float range) is
    refused, ValueError here, server-error in the answer, never ``-inf`` or ``null``."""
    if type(value) is int and -2**53 < value < 2**53:
        return value
    if not math.isfinite(value):
        raise ValueError(f"{value} is not a finite number (a score past the range of a float?)")
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def encode_result(spec: QuerySpec, value: Any) -> dict[str, Wire]:
    """The return data of a query as named items (the run ID of New run is added by the server)."""
    r = spec.returns
    out: dict[str, Wire] = {}
    if r is Returns.CONFIRM:
        return out
    if r is Returns.RUN:
        if value is not None and value.display_url:
            out[f"{spec.role} display URL"] = value.display_url
        return out
    if r is Returns.STATE:
        _require_text(spec, value)
        out["state"] = value
    elif r is Returns.OUTCOME:
        if not isinstance(value, Outcome):
            raise TypeError(f"{spec.method} must return an Outcome, not {type(value).__name__}")
        _require_text(spec, value.state)
        out["state"] = value.state
        if value.score is not None:
            out["score"] = write_number(value.score)
        if value.finished:
            out["run finished"] = True
    elif r is Returns.DISPLAY_URL:
        if value is not None:
            out[f"{spec.role} display URL"] = value
    elif r is Returns.READY:
        out["ready"] = bool(value)
    elif r is Returns.SUGGESTION:
        if not isinstance(value, Suggestion):
            raise TypeError(f"{spec.method} must return a Suggestion, not {type(value).__name__}")
        if not value.can_suggest:
            out["cannot suggest action"] = value.reason or ""
        if value.action is not None:
            out["action"] = value.action
        if value.mind_url is not None:
            out["mind URL"] = value.mind_url
        if value.q is not None:
            out["Q"] = write_number(value.q)
        if value.w is not None:
            out["W"] = write_number(value.w)
    elif r is Returns.VALUES:
        if not isinstance(value, Values):
            raise TypeError(f"{spec.method} must return Values, not {type(value).__name__}")
        if spec.method == "get_values" and value.q is None and value.w is None:
            # the seed lists Q and W as its returns: an empty answer would read as "no opinion"
            raise Refusal("bad-parameters", f'"{spec.name}": this mind cannot value that action in that '
                                            f"state (it has neither Q nor W for it)")
        if value.q is not None:
            out["Q"] = write_number(value.q)
        if value.w is not None:
            out["W"] = write_number(value.w)
    else:  # a single optional number: score, Q, temperatures, strength
        if value is not None:
            out[r.value] = write_number(float(value))
    return out


def decode_result(spec: QuerySpec, data: dict[str, Any]) -> Any:
    """The Python value of a query's return data, as a local object would have returned it.
    (The rows of a run's every step come first, each read in few steps when its items are
    of the usual JSON types: a client pays this on every step.)"""
    r = spec.returns
    if r is Returns.OUTCOME:
        state, score = data.get("state", ""), data.get("score")
        if type(score) is not float and type(score) is not int:
            score = _returned_number(spec, data, "score")
        return Outcome(state if type(state) is str else read_value(STATE, state, spec.name),
                       None if score is None else float(score),
                       read_bool(data["run finished"]) if "run finished" in data else False)
    if r is Returns.STATE:
        state = data.get("state", "")
        return state if type(state) is str else read_value(STATE, state, spec.name)
    if r is Returns.SUGGESTION:
        if "cannot suggest action" in data:
            reason = data["cannot suggest action"]
            return Suggestion.cannot(str(reason).strip() or None)
        action = data.get("action")
        return Suggestion(action=action if action is None else str(action), q=_returned_number(spec, data, "Q"),
                          w=_returned_number(spec, data, "W"), mind_url=data.get("mind URL"))
    if r is Returns.CONFIRM:
        return None
    if r is Returns.RUN:
        return RunStarted(display_url=data.get(f"{spec.role} display URL"))
    if r is Returns.DISPLAY_URL:
        return data.get(f"{spec.role} display URL")
    if r is Returns.READY:
        return read_bool(data.get("ready", False))
    if r is Returns.VALUES:
        return Values(q=_returned_number(spec, data, "Q"), w=_returned_number(spec, data, "W"))
    if r.value not in data:  # a server that spells it as the seed does: Q-Temperature, mind strength
        names = (r.value.casefold(), *(["mind strength"] if r is Returns.STRENGTH else []))
        return _returned_number(spec, data, next((k for k in data if k.casefold() in names), r.value))
    return _returned_number(spec, data, r.value)


def reader(spec: QuerySpec) -> Callable[[dict[str, Any]], Any]:
    """:func:`decode_result` for one row, as a function of the data alone (made once per row
    by a client): the answers of a run's every step, in their usual form, read in place (a
    client pays this on every step, with its caches cold); anything else as decode_result
    reads it."""
    if spec.returns is Returns.OUTCOME:
        def outcome(data: dict[str, Any]) -> Any:
            state, score = data.get("state"), data.get("score")
            if type(state) is str and (type(score) is float or type(score) is int) and "run finished" not in data:
                return Outcome(state, float(score))
            return decode_result(spec, data)
        return outcome
    if spec.returns is Returns.SUGGESTION:
        def suggestion(data: dict[str, Any]) -> Any:
            action = data.get("action")
            if type(action) is str and len(data) == 1:
                return Suggestion(action)
            return decode_result(spec, data)
        return suggestion
    return partial(decode_result, spec)


def _returned_number(spec: QuerySpec, data: dict[str, Any], name: str) -> float | None:
    """The number item ``name`` of a query's return data (None when absent)."""
    if name not in data:
        return None
    value = data[name]
    if type(value) is float or type(value) is int:  # the usual case on the JSON wire
        return float(value)
    return read_number(_NUMBERS.get(name) or Field(name, Kind.NUMBER), value, spec.name)


_NUMBERS = {name: Field(name, Kind.NUMBER) for name in ("score", "Q", "W", *(r.value for r in Returns))}


def _require_text(spec: QuerySpec, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{spec.method} must return text (str), not {type(value).__name__}")
