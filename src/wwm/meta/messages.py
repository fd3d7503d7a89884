"""Messages and channels: immutable values with content keys.

A :class:`Message` is text with slots; each slot holds a referent, either another Message or a
:class:`Channel` (a pointer to an agent snapshot). Keys are hashes of content, so identical
trees have one key and a store keeps them once; nothing here is ever changed after creation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol


class Snapshot(Protocol):
    """What a channel points to: an agent snapshot (an HCH agent), known by its content key."""

    @property
    def key(self) -> str: ...

SLOT = "[]"


def digest(*parts: str) -> str:
    """A content key for a sequence of strings: blake2b, 32 hex characters.

    Parts are joined with a unit separator; if a part itself holds one, each part is
    prefixed with its length instead, so different sequences never share a key.
    """
    joined = "\x1f".join(parts)
    if joined.count("\x1f") != len(parts) - 1:
        joined = "\x1e" + "".join(f"{len(part)}\x1f{part}" for part in parts)
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True, eq=False, slots=True)
class Message:
    """Text chunks interleaved with referents: ``len(texts) == len(args) + 1``."""

    texts: tuple[str, ...]
    args: tuple[Referent, ...] = ()
    key: str = field(init=False, repr=False)

    symbol = "#"

    def __post_init__(self) -> None:
        if len(self.texts) != len(self.args) + 1:
            raise ValueError(f"a message with {len(self.args)} slots needs {len(self.args) + 1} "
                             f"text chunks, not {len(self.texts)}")
        object.__setattr__(self, "key", digest("m", *self.texts, *(a.key for a in self.args)))

    @classmethod
    def of(cls, text: str = "", *args: Referent) -> Message:
        """``Message.of("is [] empty?", x)``: the text is split on ``[]`` (one per arg)."""
        texts = tuple(text.split(SLOT))
        return cls(texts, tuple(args))

    # ---- value semantics ------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __add__(self, other: Message) -> Message:
        texts = self.texts[:-1] + (self.texts[-1] + other.texts[0],) + other.texts[1:]
        return Message(texts, self.args + other.args)

    @property
    def size(self) -> int:
        return len(self.args)

    # ---- rendering ------------------------------------------------------------------------
    def render(self, start: int = 0) -> str:
        """Top-level text with the slots numbered from ``start``: ``is #3 empty?``."""
        out = [self.texts[0]]
        for i, (arg, text) in enumerate(zip(self.args, self.texts[1:], strict=True)):
            out.append(f"{arg.symbol}{start + i}")
            out.append(text)
        return "".join(out)

    def expand(self) -> str:
        """The whole tree in one line, sub-messages in parentheses (any depth: no recursion)."""
        out: list[str] = []
        stack: list[Referent | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, Channel):
                out.append(item.expand())
            else:
                pieces: list[Referent | str] = [item.texts[0]]
                for arg, text in zip(item.args, item.texts[1:], strict=True):
                    pieces += ["(", arg, ")", text] if isinstance(arg, Message) else [arg, text]
                stack.extend(reversed(pieces))
        return "".join(out)

    def __str__(self) -> str:
        return self.expand()

    def __repr__(self) -> str:
        return f"Message({self.expand()!r})"

    def walk(self) -> Iterable[Referent]:
        """This message and every referent below it, each once (depth first)."""
        seen: set[str] = set()
        stack: list[Referent] = [self]
        while stack:
            node = stack.pop()
            if node.key in seen:
                continue
            seen.add(node.key)
            yield node
            if isinstance(node, Message):
                stack.extend(reversed(node.args))


@dataclass(frozen=True, eq=False, slots=True)
class Channel:
    """A pointer to one agent snapshot; asking it again forks that snapshot."""

    agent: Snapshot
    symbol = "@"

    @property
    def key(self) -> str:
        return "@" + self.agent.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Channel) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def expand(self) -> str:
        return f"@[{self.agent.key[:8]}]"

    def __repr__(self) -> str:
        return f"Channel({self.agent.key[:8]})"


Referent = Message | Channel


def addressed(sender: Snapshot, message: Message) -> Message:
    """``@k: <message>``: what an ask delivers and what its reply comes back as."""
    return Message(("", ": "), (Channel(sender),)) + message
