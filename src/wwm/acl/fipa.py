"""The FIPA ACL string representation (SC00070I), as JADE's ``ACLParser`` reads it.

``dumps(message)`` writes one message; ``loads(text)`` reads one back. Performatives are read
case-insensitively, strings may be literal (``"..."`` with ``\\"``) or byte-length encoded
(``#12"...``), times are ``YYYYMMDDThhmmssmmm[Z]`` (or relative to now with a leading
``+``/``-``, read as an absolute UTC time). Anything malformed raises
:class:`FipaSyntaxError` naming the character position and what was expected there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from .message import AID, PERFORMATIVES, AclError, ACLMessage

T = TypeVar("T")


class FipaSyntaxError(AclError):
    """The text is not a FIPA ACL string message; ``position`` is the 0-based offset."""

    def __init__(self, message: str, position: int, text: str) -> None:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        near = text[position:position + 20].replace("\n", " ")
        super().__init__(f"position {position} (line {line}, column {column}): {message}"
                         + (f" near {near!r}" if near else " at the end of the text"))
        self.position = position


# ---- writing --------------------------------------------------------------------------------

_WORD = re.compile(r'[^\x00-\x20()#0-9\-@":][^\x00-\x20()]*\Z')
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


def is_word(text: str) -> bool:
    return bool(_WORD.match(text))


def quote(text: str) -> str:
    """A string literal: backslash and double quote escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _expr(text: str) -> str:
    """An Expression parameter value: a word, a balanced expression, or a quoted string."""
    if is_word(text) or _NUMBER.match(text):
        return text
    if text.startswith("("):
        try:
            parser = _Parser(text)
            if parser.expression() == text and parser.peek() == "":
                return text
        except FipaSyntaxError:
            pass
    return quote(text)


def format_time(moment: datetime) -> str:
    stamp = moment.astimezone(UTC) if moment.tzinfo else moment
    text = (f"{stamp.year:04d}{stamp.month:02d}{stamp.day:02d}T{stamp.hour:02d}{stamp.minute:02d}"
            f"{stamp.second:02d}{stamp.microsecond // 1000:03d}")   # strftime drops %Y's zeros
    return text + ("Z" if moment.tzinfo else "")


def dump_aid(aid: AID) -> str:
    parts = ["(agent-identifier :name ", aid.name if is_word(aid.name) else quote(aid.name)]
    if aid.addresses:
        parts.append(" :addresses (sequence " + " ".join(a if is_word(a) else quote(a) for a in aid.addresses) + ")")
    if aid.resolvers:
        parts.append(" :resolvers (sequence " + " ".join(dump_aid(r) for r in aid.resolvers) + ")")
    for key, value in aid.user:
        parts.append(f" :{key} {_expr(value)}")
    return "".join(parts) + ")"


def dumps(msg: ACLMessage, *, one_line: bool = False) -> str:
    """One message in the string representation, one parameter per line (or all on one)."""
    lines = [f"({msg.performative}"]
    if msg.sender is not None:
        lines.append(f" :sender {dump_aid(msg.sender)}")
    if msg.receivers:
        lines.append(" :receiver (set " + " ".join(dump_aid(a) for a in msg.receivers) + ")")
    if msg.reply_to:
        lines.append(" :reply-to (set " + " ".join(dump_aid(a) for a in msg.reply_to) + ")")
    if msg.content is not None:
        lines.append(f" :content {quote(msg.content)}")
    for key, value in (("language", msg.language), ("encoding", msg.encoding),
                       ("ontology", msg.ontology)):
        if value is not None:
            lines.append(f" :{key} {_expr(value)}")
    if msg.protocol is not None:
        lines.append(f" :protocol {_expr(msg.protocol)}")
    for key, value in (("conversation-id", msg.conversation_id), ("reply-with", msg.reply_with),
                       ("in-reply-to", msg.in_reply_to)):
        if value is not None:
            lines.append(f" :{key} {_expr(value)}")
    if msg.reply_by is not None:
        lines.append(f" :reply-by {format_time(msg.reply_by)}")
    for key, value in msg.user:
        lines.append(f" :{key} {_expr(value)}")
    return ("" if one_line else "\n").join(lines) + ")"


# ---- reading --------------------------------------------------------------------------------

_DATETIME = re.compile(r"([+-])?(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})([a-zA-Z])?")
_SPACE = re.compile(r"[\x00-\x20]*")
_TOKEN = re.compile(r"[^\x00-\x20()]*")
_PLAIN_STRING = re.compile(r'"([^"\\]*)"')
_SINGLE = {"sender", "content", "language", "encoding", "ontology", "protocol", "conversation-id",
           "reply-with", "in-reply-to", "reply-by"}


MAX_DEPTH = 100
"""How deeply expressions and agent identifiers may nest; deeper text is refused by position
(rather than exhausting Python's stack)."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    def enter(self, what: str) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"{what} nested more than {MAX_DEPTH} deep")

    def fail(self, message: str, at: int | None = None) -> FipaSyntaxError:
        return FipaSyntaxError(message, self.pos if at is None else at, self.text)

    def skip(self) -> None:
        space = _SPACE.match(self.text, self.pos)
        assert space is not None  # (it matches nothing at all too)
        self.pos = space.end()

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.fail(f"expected {what}")
        self.pos += 1

    def token(self) -> tuple[str, int]:
        """A bare token (word, number, keyword); returns it and where it began."""
        self.skip()
        start = self.pos
        token = _TOKEN.match(self.text, start)
        assert token is not None  # (it matches nothing at all too)
        self.pos = token.end()
        return self.text[start:self.pos], start

    def string(self) -> str:
        """A StringLiteral or a ByteLengthEncodedString."""
        self.skip()
        start = self.pos
        text = self.text
        if text.startswith('"', start):
            quick = _PLAIN_STRING.match(text, start)
            if quick:  # no escapes: the common case
                self.pos = quick.end()
                return quick.group(1)
            out: list[str] = []
            i = start + 1
            n = len(text)
            while i < n:
                c = text[i]
                if c == "\\" and i + 1 < n:
                    nxt = text[i + 1]
                    out.append(nxt if nxt in '"\\' else c + nxt)
                    i += 2
                    continue
                if c == '"':
                    self.pos = i + 1
                    return "".join(out)
                out.append(c)
                i += 1
            raise self.fail("a string literal is not closed (missing '\"')", start)
        if text.startswith("#", start):
            match = re.compile(r"#(\d+)\"").match(text, start)
            if not match:
                raise self.fail('expected a byte-length string: #<digits>"<bytes>', start)
            size = int(match.group(1))
            i = match.end()
            taken = 0
            j = i
            while taken < size and j < len(text):
                taken += len(text[j].encode())
                j += 1
            if taken != size:
                raise self.fail(f"the byte-length string promises {size} bytes but "
                                + ("the text ends first" if taken < size else "that splits a character"), start)
            self.pos = j
            return text[i:j]
        raise self.fail("expected a string (\"...\" or #<length>\"...)", start)

    def expression(self) -> str:
        """An Expression, returned as text: a word/number/time as is, a string's value, a
        parenthesised expression as its (whitespace-normalised) source."""
        c = self.peek()
        if c == "(":
            start = self.pos
            self.enter("an expression")
            self.pos += 1
            parts: list[str] = []
            while self.peek() not in (")", ""):
                if self.peek() in ('"', "#"):
                    parts.append(quote(self.string()))
                else:
                    parts.append(self.expression())
            if self.peek() != ")":
                raise self.fail(f"the expression opened at position {start} is not closed")
            self.pos += 1
            self.depth -= 1
            return "(" + " ".join(parts) + ")"
        if c in ('"', "#"):
            return self.string()
        if c == ")" or c == "":
            raise self.fail("expected an expression")
        word, _ = self.token()
        return word

    def word(self, what: str) -> str:
        if self.peek() in ('"', "#"):
            return self.string()
        word, start = self.token()
        if not word:
            raise self.fail(f"expected {what}")
        return word

    def aid(self) -> AID:
        self.skip()
        start = self.pos
        self.expect("(", "'(' opening an agent-identifier")
        self.enter("agent identifiers")
        head, at = self.token()
        if head.lower() != "agent-identifier":
            raise self.fail(f"expected 'agent-identifier', got {head!r}", at)
        name: str | None = None
        addresses: tuple[str, ...] = ()
        resolvers: tuple[AID, ...] = ()
        user: list[tuple[str, str]] = []
        while self.peek() != ")":
            if self.peek() == "":
                raise self.fail(f"the agent-identifier opened at position {start} is not closed")
            key, at = self.token()
            low = key.lower()
            if low == ":name":
                name = self.word("an agent name")
            elif low == ":addresses":
                addresses = tuple(self.sequence("sequence", lambda: self.word("an address")))
            elif low == ":resolvers":
                resolvers = tuple(self.sequence("sequence", self.aid))
            elif low.startswith(":x-") and len(key) > 3:
                user.append((key[1:], self.expression()))
            else:
                raise self.fail(f"unknown agent-identifier parameter {key!r} "
                                "(expected :name, :addresses, :resolvers or :X-...)", at)
        self.pos += 1
        self.depth -= 1
        if name is None:
            raise self.fail("an agent-identifier needs :name", start)
        return AID(name, addresses, resolvers, tuple(user))

    def sequence(self, kind: str, item: Callable[[], T]) -> list[T]:
        self.expect("(", f"'({kind} ...)'")
        head, at = self.token()
        if head.lower() != kind:
            raise self.fail(f"expected '{kind}', got {head!r}", at)
        items = []
        while self.peek() != ")":
            if self.peek() == "":
                raise self.fail(f"the ({kind} ...) is not closed")
            items.append(item())
        self.pos += 1
        return items

    def datetime(self) -> datetime:
        word, at = self.token()
        match = _DATETIME.fullmatch(word)
        if not match:
            raise self.fail(f"expected a time YYYYMMDDThhmmssmmm[Z], got {word!r}", at)
        y, mo, d, h, mi, s, ms = (int(g) for g in match.groups()[1:8])
        zone = match.group(9)
        if match.group(1):   # relative to now; a year is 365 days and a month 30, as JADE counts
            if zone and zone.upper() != "Z":   # an offset has no zone; 'Z' is allowed and ignored
                raise self.fail(f"only the UTC type designator 'Z' is supported, got {zone!r}", at)
            offset = timedelta(days=365 * y + 30 * mo + d, hours=h, minutes=mi, seconds=s, milliseconds=ms)
            try:
                moment = datetime.now(UTC) + (offset if match.group(1) == "+" else -offset)
            except OverflowError:
                raise self.fail(f"{word!r} reaches outside the years 1 to 9999", at) from None
            return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
        try:
            moment = datetime(y, mo, d, h, mi, s, ms * 1000)
        except ValueError as exc:
            raise self.fail(f"{word!r} is not a valid time: {exc}", at) from None
        if zone:
            if zone.upper() != "Z":
                raise self.fail(f"only the UTC type designator 'Z' is supported, got {zone!r}", at)
            moment = moment.replace(tzinfo=UTC)
        return moment

    def message(self) -> ACLMessage:
        self.expect("(", "'(' opening a message")
        performative, at = self.token()
        if performative.lower() not in PERFORMATIVES:
            raise self.fail(f"unknown performative {performative!r}", at)
        fields: dict[str, Any] = {}  # ACLMessage's keyword arguments (it checks their types)
        user: list[tuple[str, str]] = []
        seen: set[str] = set()
        while self.peek() != ")":
            if self.peek() == "":
                raise self.fail("the message is not closed (missing ')')")
            key, at = self.token()
            low = key.lower()
            if not low.startswith(":") or len(low) < 2:
                raise self.fail(f"expected a parameter such as :sender or :content, got {key!r}", at)
            name = low[1:]
            if name in seen:
                raise self.fail(f"parameter {key!r} appears twice", at)
            seen.add(name)
            if name == "sender":
                fields["sender"] = self.aid()
            elif name in ("receiver", "reply-to"):
                fields["receivers" if name == "receiver" else "reply_to"] = tuple(self.sequence("set", self.aid))
            elif name == "content":
                fields["content"] = self.string() if self.peek() in ('"', "#") else self.expression()
            elif name == "reply-by":
                fields["reply_by"] = self.datetime()
            elif name in _SINGLE:
                fields[name.replace("-", "_")] = self.expression()
            elif name.startswith("x-") and len(name) > 2:
                user.append((key[1:], self.expression()))
            else:
                raise self.fail(f"unknown message parameter {key!r}", at)
        self.pos += 1
        return ACLMessage(performative, user=tuple(user), **fields)


def loads(text: str) -> ACLMessage:
    """Read exactly one message; raise :class:`FipaSyntaxError` naming the position."""
    if not isinstance(text, str):
        raise AclError(f"a FIPA string message must be text, not {type(text).__name__}")
    parser = _Parser(text)
    message = parser.message()
    if parser.peek() != "":
        raise parser.fail("unexpected text after the end of the message")
    return message


def loads_all(text: str) -> list[ACLMessage]:
    """Read a sequence of messages (a transcript)."""
    parser = _Parser(text)
    out = []
    while parser.peek() != "":
        out.append(parser.message())
    return out
