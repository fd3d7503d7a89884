"""A person at the terminal as A: each screen is printed, the typed line is the action.

When the person is shown a different copy of A than last time (a fresh agent, a snapshot
being asked again), its whole transcript is printed under a header, as the original cleared
the screen and showed the entire transcript; otherwise only the new screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from .agents import PROMPT

HELP = """You are A. Each screen is what one copy of you sees; type one command:
  view #n               look inside message #n
  ask [@n][$b] M        ask a fresh copy of you (or agent @n) the message M, handing it budget b
  reply M               answer whoever asked you (at zero budget, whatever you type is the reply)
  reflect | spawn       get a pointer to yourself | to a fresh copy of you
  note M                write M down for yourself
M is text with #n, @n and (sub-messages in parentheses). A line typed before on the
very same screen is answered from the memo."""


class HumanPolicy:
    """Reads each action with ``read`` (``input`` by default) after printing to ``out``."""

    name = "human"

    def __init__(self, out: TextIO, read: Callable[[str], str] = input, echo: bool = False) -> None:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:
            pass
        self.out = out
        self.read = read
        self.echo = echo  # print the typed line too (when stdin is not a terminal)
        self._last: tuple[list[str], list[str]] | None = None
        self.screens = 0
        print(HELP, file=self.out)

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        observations, actions = list(observations), list(actions)
        continuing = self._last is not None and self._last == (observations[:-1], actions)
        if not continuing:
            self.screens += 1
            typed = f"{len(actions)} line{'s' if len(actions) != 1 else ''}"
            depth = "a fresh copy of A" if not actions else f"a copy of A that has typed {typed}"
            print(f"\n──── {depth} ────", file=self.out)
            # one observation more than actions: the last one waits for the line typed now
            for observation, action in zip(observations, actions, strict=False):
                print(observation, file=self.out)
                print(PROMPT + action, file=self.out)
        print(observations[-1], file=self.out, flush=True)
        line = self.read(PROMPT)
        if self.echo:
            print(line, file=self.out, flush=True)
        self._last = (observations, actions + [line])
        return line
