"""Meta(A): an agent over strings built from HCH(A, n), with the original's questions.

To act on an observation Meta asks the tree "what string should be returned by an agent in
state [s] who observes [x]?", then asks the same agent what the state should be after
responding, and decodes the answer into a Python string by yes/no and verbatim questions down
to characters and integers (negative integers and floats too). An answer outside the allowed
words is asked about again a bounded number of times, then reported as a :class:`DecodeError`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .hch import HCH, Answer, HCHAgent
from .ledger import Call
from .messages import Message

INITIAL_STATE = Message.of("the initial state of an agent")
ACT_QUESTION = "what string should be returned by an agent in state [] who observes []?"
STATE_QUESTION = "what should the agent's state be after responding?"
MAX_INT_BITS = 4096
MAX_ITEMS = 100_000


class DecodeError(Exception):
    """An answer could not be read as the value asked for (after asking again)."""


# ---- encoding Python values as message trees ----------------------------------------------
def encode_int(n: int) -> Message:
    """Binary, least significant bit outermost: 5 is ``two times (two times (zero) plus one) plus one``."""
    if n < 0:
        return Message.of("the additive inverse of []", encode_int(-n))
    message = Message.of("zero")
    for bit in bin(n)[2:] if n else "":  # most significant first, so the least significant ends outermost
        message = Message.of("two times [] plus one" if bit == "1" else "two times []", message)
    return message


def encode_float(x: float) -> Message:
    """``the number A times two to the power B`` with integers A (odd or zero) and B."""
    if not math.isfinite(x):
        raise ValueError(f"cannot encode {x!r}: only finite floats have a message form")
    a, b = _float_parts(x)
    return Message.of("the number [] times two to the power []", encode_int(a), encode_int(b))


def _float_parts(x: float) -> tuple[int, int]:
    if x == 0:
        return 0, 0
    mantissa, exponent = math.frexp(x)
    a, b = int(mantissa * 2 ** 53), exponent - 53
    while a % 2 == 0:
        a, b = a // 2, b + 1
    return a, b


@lru_cache(maxsize=4096)  # messages are immutable values: one tree per character is enough
def encode_char(c: str) -> Message:
    return Message.of("the character with ASCII code []", encode_int(ord(c)))


def encode_list(items: Sequence[Message]) -> Message:
    message = Message.of("the empty list")
    for item in reversed(items):
        message = Message.of("the list with first element [] and remaining elements in the list []", item, message)
    return message


def encode_str(s: str) -> Message:
    return Message.of("the string with list of characters []", encode_list([encode_char(c) for c in s]))


def encode(value: Any) -> Message:
    """A Python int, float, str or list (of those) as a message tree."""
    if isinstance(value, Message):
        return value
    if isinstance(value, bool):
        raise TypeError("booleans have no message form; use the integers 0 and 1")
    if isinstance(value, int):
        return encode_int(value)
    if isinstance(value, float):
        return encode_float(value)
    if isinstance(value, str):
        return encode_str(value)
    if isinstance(value, (list, tuple)):
        return encode_list([encode(v) for v in value])
    raise TypeError(f"cannot encode a {type(value).__name__} as a message")


# ---- decoding by questions ----------------------------------------------------------------
Reader = Callable[[Message], Awaitable[Any]]


class Decoder:
    """Reads Python values out of messages by asking HCH; every question and its ledger kept."""

    def __init__(self, hch: HCH, retries: int = 3) -> None:
        self.hch = hch
        self.retries = retries
        self.calls: list[Call] = []

    async def ask(self, text: str, *args: Message, to: HCHAgent | None = None) -> Answer:
        answer = await self.hch.ask(Message.of(text, *args), to=to)
        self.calls.append(answer.call)
        return answer

    async def choose(self, text: str, *args: Message, options: tuple[str, ...],
                     to: HCHAgent | None = None) -> tuple[str, Answer]:
        """Ask a question whose answer must be one of ``options``; ask again if it is not."""
        answer = await self.ask(text, *args, to=to)
        first = answer.reply.expand()
        for _ in range(self.retries):
            word = _word(answer.reply)
            if word in options:
                return word, answer
            answer = await self.ask(f"your answer was [], but the answer must be exactly one of: "
                                    f"{', '.join(options)}. So, {text.replace('[]', 'it')}",
                                    answer.reply, to=answer.agent)
        word = _word(answer.reply)
        if word in options:
            return word, answer
        last = answer.reply.expand()
        answers = f"the answer was {last!r}" if last == first else f"the first answer was {first!r}, the last {last!r}"
        raise DecodeError(f"asked {text.replace('[]', '[…]')!r} {self.retries + 1} times and never got one "
                          f"of {', '.join(options)}; {answers}")

    async def int(self, message: Message) -> int:
        bits: list[int] = []
        seen = {message.key}
        sign, answer = await self.choose("is [] negative, zero, or positive? (respond verbatim)", message,
                                         options=("negative", "zero", "positive"))
        if sign == "negative":
            inverse = await self.ask("what is its additive inverse?", to=answer.agent)
            if inverse.reply.key == message.key:
                raise DecodeError("loop: the additive inverse of a negative integer was given as the integer itself")
            value = await self.int(inverse.reply)
            if value <= 0:
                raise DecodeError(f"the additive inverse of a negative integer came out as {value}, not positive")
            return -value
        while sign == "positive":
            parity, answer = await self.choose("is it even or odd? (respond verbatim)",
                                               options=("even", "odd"), to=answer.agent)
            bits.append(1 if parity == "odd" else 0)
            half = await self.ask("what is half of it, rounded towards zero?", to=answer.agent)
            if half.reply.key in seen:
                raise DecodeError("loop: half of an integer was given as an integer already seen")
            if len(bits) > MAX_INT_BITS:
                raise DecodeError(f"the integer has more than {MAX_INT_BITS} binary digits")
            seen.add(half.reply.key)
            sign, answer = await self.choose("is [] negative, zero, or positive? (respond verbatim)",
                                             half.reply, options=("negative", "zero", "positive"))
            if sign == "negative":
                raise DecodeError("half of a positive integer was said to be negative")
        if not bits or bits[-1] == 1:
            return sum(bit << i for i, bit in enumerate(bits))
        raise DecodeError("the integer's halves reach zero from an even number: not a valid binary answer")

    async def char(self, message: Message) -> str:
        answer = await self.ask("what is the ASCII code of []?", message)
        code = await self.int(answer.reply)
        if not 0 <= code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:  # surrogates are no characters
            raise DecodeError(f"{code} is not a character code")
        return chr(code)

    async def list(self, message: Message, element: Reader) -> list[Any]:
        items: list[Any] = []
        seen = {message.key}
        while True:
            empty, answer = await self.choose("is [] empty? (respond yes/no)", message, options=("yes", "no"))
            if empty == "yes":
                return items
            first = await self.ask("what is its first element?", to=answer.agent)
            rest = await self.ask("what is the list of remaining elements?", to=first.agent)
            items.append(await element(first.reply))
            if rest.reply.key in seen:
                raise DecodeError("loop: the remaining elements of a list were given as a list already seen")
            if len(items) >= MAX_ITEMS:
                raise DecodeError(f"the list has more than {MAX_ITEMS} elements")
            seen.add(rest.reply.key)
            message = rest.reply

    async def str(self, message: Message) -> str:
        answer = await self.ask("what is the list of characters in []?", message)
        return "".join(await self.list(answer.reply, self.char))

    async def float(self, message: Message) -> float:
        a = await self.ask("represent [] as A * 2^B; what is A?", message)
        b = await self.ask("and what is B?", to=a.agent)
        mantissa, exponent = await self.int(a.reply), await self.int(b.reply)
        try:
            return math.ldexp(mantissa, exponent)
        except OverflowError:
            raise DecodeError(f"{mantissa} * 2^{exponent} is too large for a float") from None

    def reader(self, kind: Any) -> Reader:
        """A reader for ``int``, ``float``, ``str`` or ``list[T]``."""
        if kind is int:
            return self.int
        if kind is float:
            return self.float
        if kind is str:
            return self.str
        if getattr(kind, "__origin__", None) is list:
            inner = self.reader(kind.__args__[0])
            return lambda m: self.list(m, inner)
        raise TypeError(f"no reader for {kind!r}")


def _word(reply: Message) -> str | None:
    """The reply as one lower-case word, if it is plain text."""
    return reply.texts[0].strip().lower() if not reply.args else None


# ---- Meta(A) ------------------------------------------------------------------------------
@dataclass(slots=True)
class MetaStep:
    """One act of Meta: the string returned, the next Meta, and every question's ledger."""

    action: str
    meta: Meta
    calls: list[Call] = field(default_factory=list)


class Meta:
    """Meta(HCH(A, n)): an immutable agent over strings whose memory is a state message."""

    def __init__(self, hch: HCH, state: Message = INITIAL_STATE, retries: int = 3) -> None:
        self.hch = hch
        self.state = state
        self.retries = retries

    async def step(self, observation: str) -> MetaStep:
        first = await self.hch.ask(Message.of(ACT_QUESTION, self.state, encode_str(observation)))
        second = await self.hch.ask(Message.of(STATE_QUESTION), to=first.agent)
        decoder = Decoder(self.hch, self.retries)
        action = await decoder.str(first.reply)
        return MetaStep(action, Meta(self.hch, second.reply, self.retries),
                        [first.call, second.call, *decoder.calls])

    async def act(self, observation: str) -> tuple[str, Meta]:
        step = await self.step(observation)
        return step.action, step.meta

    async def compute(self, question: str, *values: Any, returns: Any) -> tuple[Any, list[Call]]:
        """Ask ``question`` (one ``[]`` per value) of the tree and decode the answer as ``returns``."""
        answer = await self.hch.ask(Message.of(question, *(encode(v) for v in values)))
        decoder = Decoder(self.hch, self.retries)
        value = await decoder.reader(returns)(answer.reply)
        return value, [answer.call, *decoder.calls]
