"""A finished computation as a tree: who was asked what, with what budget, what came back.

:func:`tree` builds a ``rich`` tree (with each agent's screens if ``steps``); :func:`summary`
gives the totals (questions, operations, calls to A, memo hits, loops) of a list of ledgers.
Each screen shows the start of its memo key, which ``wwm meta forget`` takes.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.markup import escape
from rich.tree import Tree

from .ledger import Call

MAX_TEXT = 100


def _short(text: str, limit: int = MAX_TEXT) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def label(call: Call) -> str:
    """One line for a call: the question, budget, what it spent, and the reply."""
    reply = _short(call.reply.expand()) if call.reply is not None else "(no reply)"
    hits = sum(1 for s in call.steps if s.cached)
    memo = f", {hits} from memo" if hits else ""
    shown = call.steps[0].observation.rsplit("\n[", 1)[0] if call.steps else call.question.render()
    return (f"[bold]{escape(_short(shown))}[/]  [dim]budget {call.budget}, spent "
            f"{call.spent} ({call.own_ops} own{memo})[/]\n[green]→ {escape(reply)}[/]")


def tree(calls: Iterable[Call], title: str = "computation", steps: bool = False) -> Tree:
    root = Tree(f"[bold]{escape(title)}[/]")
    for call in calls:
        _add(root, call, steps)
    return root


def _add(parent: Tree, call: Call, steps: bool) -> None:
    node = parent.add(label(call))
    for event in call.events:
        node.add(f"[red]{escape(event)}[/]")
    if steps:
        for step in call.steps:
            mark = " [cyan](from the memo)[/]" if step.cached else ""
            key = f"  [dim]memo {step.memo_key[:12]}[/]" if step.memo_key else ""
            node.add(f"[dim]{escape(_short(step.observation))}[/]  >>> {escape(step.action)}{mark}{key}")
    for child in call.children:
        _add(node, child, steps)


def summary(calls: Iterable[Call]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for call in calls:
        for key, value in call.totals().items():
            totals[key] = totals.get(key, 0) + value
        totals["budget"] = totals.get("budget", 0) + call.budget
        totals["spent"] = totals.get("spent", 0) + call.spent
    return totals
