"""Building Meta(HCH(A, n)) from settings: which A, budget, memo, store, display.

A is named by a string: ``scripted`` (the built-in scripted policy, which echoes),
``scripted-listener`` (the same, handing each observation back as a question), ``human`` (the person
at this terminal), ``lines:FILE`` (a file of typed lines, one per screen), or the URL of any
WWM Mind server, which is sent the rendered transcript as its state.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .agents import Agent, LinesPolicy, MindPolicy, Policy
from .hch import HCH, BudgetDisplay, Split
from .meta import Meta
from .scripted import ScriptedPolicy
from .store import Store


class SettingsError(ValueError):
    """A setting that names no A, a missing file, or a value out of range."""


@dataclass(frozen=True)
class Settings:
    """The settings as given (by a command line or a New run); :meth:`check` says what is wrong."""

    amplify: str = "scripted"
    budget: int = 10 ** 8
    memo: bool = True
    store: str | None = None          # SQLite file; None keeps everything in memory
    budget_display: str = "exact"     # "exact" or "rounded"
    split: str = "tenth"              # "tenth" or "all"
    retries: int = 3

    def check(self) -> None:
        if self.budget < 0:
            raise SettingsError(f"budget must be 0 or more, not {self.budget}")
        self.display()
        self.split_rule()
        if self.retries < 0:
            raise SettingsError(f"retries must be 0 or more, not {self.retries}")

    def display(self) -> BudgetDisplay:
        match self.budget_display:
            case "exact" | "rounded":
                return self.budget_display
        raise SettingsError(f"budget display must be 'exact' or 'rounded', not {self.budget_display!r}")

    def split_rule(self) -> Split:
        match self.split:
            case "tenth" | "all":
                return self.split
        raise SettingsError(f"split must be 'tenth' or 'all', not {self.split!r}")


async def make_policy(spec: str, out: TextIO | None = None) -> Policy:
    """The policy named by ``spec`` (see the module docstring)."""
    if spec == "scripted":
        return ScriptedPolicy()
    if spec == "scripted-listener":
        return ScriptedPolicy("listener")
    if spec == "human":
        from .terminal import HumanPolicy

        return HumanPolicy(out or sys.stdout, echo=not sys.stdin.isatty())
    if spec.startswith("lines:"):
        path = Path(spec[len("lines:"):])
        if not path.is_file():
            raise SettingsError(f"no file of lines at {path}")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(f"cannot read the lines in {path}: {exc}") from None
        return LinesPolicy(lines, name=f"lines:{path.name}")
    if spec.startswith(("http://", "https://")):
        from ..client.remote import connect_mind
        from ..protocol.errors import Refusal

        try:
            mind = connect_mind(spec)
            await mind.new_run()
        except (Refusal, ValueError) as exc:  # unreachable, not a Mind, a malformed URL
            raise SettingsError(f"A at {spec} cannot be used: {exc}") from None
        return MindPolicy(mind, name=f"mind:{spec}")
    raise SettingsError(f"unknown A {spec!r}: use 'scripted', 'scripted-listener', 'human', 'lines:FILE' "
                        f"or a Mind server URL")


class Session:
    """One Meta(HCH(A, n)) with its store; ``await Session.open(settings)``."""

    def __init__(self, settings: Settings, policy: Policy, store: Store) -> None:
        self.settings = settings
        self.policy = policy
        self.store = store
        memo = store.memo if settings.memo else None
        self.hch = HCH(Agent(policy), settings.budget, memo=memo,
                       budget_display=settings.display(), split=settings.split_rule())
        self.meta = Meta(self.hch, retries=settings.retries)

    @classmethod
    async def open(cls, settings: Settings, out: TextIO | None = None) -> Session:
        settings.check()
        policy = await make_policy(settings.amplify, out)
        return cls(settings, policy, Store(settings.store or ":memory:"))
