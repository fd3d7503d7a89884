"""The command language an agent types: ``view #3``, ``ask@2$50 (...)``, ``reply ...``.

A hand-written parser on an explicit stack (any nesting depth) (no parser-library whitespace rules to drift, unlike
the original's pyparsing dependency). It returns command values holding *abstract* pointers
(:class:`Pointer`); the interpreter resolves them against the agent's environment. Bad input
raises :class:`ParseError` with a reason a person can act on; nothing else escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

KEYWORDS = ("ask", "reply", "return", "reflect", "view", "spawn", "note")
VALID_COMMANDS = "the valid commands are 'reply', 'ask', 'reflect', 'view', and 'ask@N'"
_NUM = re.compile(r"\d+")
_PROSE = re.compile(r"[^()#@]+")


class ParseError(ValueError):
    """A line that is not a command or a message; ``reason`` says why."""

    def __init__(self, reason: str, unknown_command: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unknown_command = unknown_command


@dataclass(frozen=True, slots=True)
class Pointer:
    """``#n`` (a message) or ``@n`` (an agent) in the typing agent's environment."""

    index: int
    symbol: str  # "#" or "@"

    def __str__(self) -> str:
        return f"{self.symbol}{self.index}"


@dataclass(frozen=True, slots=True)
class Literal:
    """A message being composed: text chunks around pointers and sub-messages."""

    texts: tuple[str, ...]
    args: tuple[Body, ...]


Body = Pointer | Literal  # a bare ``#n`` means the referent itself


@dataclass(frozen=True, slots=True)
class View:
    body: Body


@dataclass(frozen=True, slots=True)
class Ask:
    body: Body
    recipient: int | None = None  # @n: ask that agent; None: a fresh copy
    budget: int | None = None     # $n: the most to hand over


@dataclass(frozen=True, slots=True)
class Reply:
    body: Body


@dataclass(frozen=True, slots=True)
class Reflect:
    pass


@dataclass(frozen=True, slots=True)
class Spawn:
    pass


@dataclass(frozen=True, slots=True)
class Note:
    body: Body


Command = View | Ask | Reply | Reflect | Spawn | Note


def parse_command(line: str) -> Command:
    """One line typed by an agent with budget left, as a command."""
    return _parse_short(line) if len(line) <= CACHED_LINE else _parse_command(line)


CACHED_LINE = 500  # copies of one A type the same short lines again and again; commands are values


@lru_cache(maxsize=4096)
def _parse_short(line: str) -> Command:
    return _parse_command(line)


def _parse_command(line: str) -> Command:
    text = line.strip()
    keyword = _keyword(text)
    if keyword is None:
        raise ParseError(VALID_COMMANDS, unknown_command=True)
    rest = text[len(keyword):]
    if keyword in ("reflect", "spawn"):
        if rest.strip():
            raise ParseError(f"'{keyword}' takes nothing after it (got {rest.strip()!r})")
        return Reflect() if keyword == "reflect" else Spawn()
    if keyword == "ask":
        return _parse_ask(rest, len(keyword))
    body = parse_message(rest, len(keyword))
    if keyword == "view":
        return View(body)
    if keyword == "note":
        return Note(body)
    return Reply(body)


def parse_forced_reply(line: str) -> Body:
    """What an agent with no budget typed: its reply. ``reply M`` counts as ``M``."""
    text = line.strip()
    keyword = _keyword(text)
    if keyword in ("reply", "return"):
        return parse_message(text[len(keyword):], len(keyword))
    return parse_message(text)


def _keyword(text: str) -> str | None:
    for word in KEYWORDS:
        if text.startswith(word):
            after = text[len(word):len(word) + 1]
            if not after or not (after.isalnum() or after == "_"):
                return word
    return None


def _parse_ask(rest: str, offset: int) -> Ask:
    recipient = budget = None
    i = 0
    while True:
        while i < len(rest) and rest[i].isspace():
            i += 1
        if i < len(rest) and rest[i] in "@$":
            mark = rest[i]
            number = _NUM.match(rest, i + 1)
            if number is None:
                what = "an agent number, as in ask@3" if mark == "@" else "a budget, as in ask$50"
                raise ParseError(f"'{mark}' after 'ask' must be followed by {what}")
            value = int(number.group())
            if mark == "@":
                if recipient is not None:
                    raise ParseError("an ask has one recipient; '@' appears twice")
                recipient = value
            else:
                if budget is not None:
                    raise ParseError("an ask has one budget; '$' appears twice")
                budget = value
            i = number.end()
            continue
        break
    return Ask(parse_message(rest[i:], offset + i), recipient, budget)


def parse_message(text: str, offset: int = 0) -> Body:
    """A message: a bare ``#n`` (the referent itself) or text with ``#n``, ``@n``, ``(...)``.

    ``offset`` is where ``text`` starts in the typed line, so errors name the line's columns.
    Parentheses may nest to any depth: open ones wait on an explicit stack, not Python's.
    """
    open_: list[_Open] = []  # the enclosing messages, innermost last
    current = _Open(-1)
    i = 0
    while i < len(text):
        prose = _PROSE.match(text, i)
        if prose:
            run = prose.group()
            if not run.isprintable():
                bad = next(j for j, c in enumerate(run) if not c.isprintable())
                raise ParseError(f"unexpected control character {run[bad]!r} at column {offset + i + bad + 1}")
            current.chunk += run
            i = prose.end()
            continue
        c = text[i]
        if c == ")":
            if not open_:
                raise ParseError(f"unmatched ')' at column {offset + i + 1}")
            sub = _finish(current.texts, current.chunk, current.args)
            current = open_.pop()
            current.texts.append(current.chunk)
            current.chunk = ""
            current.args.append(sub)
            i += 1
            continue
        if c == "(":
            open_.append(current)
            current = _Open(i)
            i += 1
            continue
        number = _NUM.match(text, i + 1)  # c is '#' or '@'
        if number is None:
            kind = "a message" if c == "#" else "an agent"
            raise ParseError(f"'{c}' must be followed by the number of {kind}, as in {c}3")
        current.texts.append(current.chunk)
        current.chunk = ""
        current.args.append(Pointer(int(number.group()), c))
        i = number.end()
    if open_:
        raise ParseError(f"the '(' at column {offset + current.opened + 1} is never closed")
    return _finish(current.texts, current.chunk, current.args)


@dataclass(slots=True)
class _Open:
    """A message whose ``(`` (at ``opened``) is not closed yet: what it holds so far."""

    opened: int
    texts: list[str] = field(default_factory=list)
    chunk: str = ""
    args: list[Body] = field(default_factory=list)


def _finish(texts: list[str], chunk: str, args: list[Body]) -> Body:
    texts = texts + [chunk]
    texts[0] = texts[0].lstrip()
    texts[-1] = texts[-1].rstrip()
    if len(args) == 1 and isinstance(args[0], Pointer) and args[0].symbol == "#" and texts == ["", ""]:
        return args[0]  # a bare "#n": the referent itself, not a message wrapping it
    return Literal(tuple(texts), tuple(args))
