"""The conversation log: every message an agent sends or receives, with what its engine made
of it, as JSON lines; and replay, which feeds a log through a fresh engine and shows the
commitments after each act (``wwm acl show``).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ..server.templates import render
from . import jsonform
from .acts import english
from .clock import ManualClock
from .engine import Engine, Verdict
from .message import AclError, ACLMessage


@dataclass(slots=True)
class Entry:
    time: str
    observer: str
    direction: str            # "sent", "received", or "undelivered" (rolled back)
    message: ACLMessage
    verdicts: list[dict[str, Any]]

    def as_json(self) -> str:
        return json.dumps({"time": self.time, "observer": self.observer, "direction": self.direction,
                           "message": jsonform.to_dict(self.message), "verdicts": self.verdicts},
                          ensure_ascii=False)


def verdict_dict(v: Verdict) -> dict[str, Any]:
    return {"receiver": v.receiver, "accepted": v.accepted, "act": v.arc.act if v.arc else None,
            "before": v.before, "after": v.after, "reason": v.reason, "crossed": v.crossed}


class Sink(Protocol):
    def append(self, entry: Entry) -> None: ...


class ConversationLog:
    """Appends entries in memory and, given a path, to a JSON-lines file; given a ``journal``
    (:class:`wwm.acl.journal.Journal`), to the database too, before the agent goes on."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self.entries: list[Entry] = []
        self.journal: Sink | None = None

    def record(self, observer: str, direction: str, message: ACLMessage, verdicts: list[Verdict]) -> Entry:
        entry = Entry(datetime.now(UTC).isoformat(timespec="milliseconds"), observer,
                      direction, message, [verdict_dict(v) for v in verdicts])
        self.entries.append(entry)
        if self.journal is not None:
            self.journal.append(entry)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(entry.as_json() + "\n")
        return entry


def read(path: str | Path) -> list[Entry]:
    """Entries of a log file; a bad line raises :class:`AclError` naming its number."""
    entries = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise AclError(f"{path} is not a conversation log: not UTF-8 text (byte {exc.start})") from None
    for number, line in enumerate(text.split("\n"), 1):   # not splitlines: JSON keeps U+2028 raw
        if not line.strip():
            continue
        try:
            entries.append(entry_from_dict(json.loads(line)))
        except (ValueError, KeyError, TypeError, RecursionError, AclError) as exc:
            raise AclError(f"{path}, line {number}: not a conversation log entry ({exc})") from None
    return entries


def entry_from_dict(doc: Any) -> Entry:
    """An entry from its JSON object; ValueError, KeyError or TypeError if it is not one."""
    return Entry(_text(doc, "time"), _text(doc, "observer"), _direction(doc),
                 jsonform.from_dict(doc["message"]), _verdicts(doc))


def _text(doc: dict[str, Any], key: str) -> str:
    if not isinstance(doc[key], str):
        raise ValueError(f'"{key}" must be text')
    text: str = doc[key]
    return text


def _direction(doc: dict[str, Any]) -> str:
    if doc["direction"] not in ("sent", "received", "undelivered"):
        raise ValueError('"direction" must be sent, received or undelivered')
    direction: str = doc["direction"]
    return direction


def _verdicts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    verdicts = doc.get("verdicts", [])
    if not isinstance(verdicts, list) or not all(
            isinstance(v, dict) and isinstance(v.get("receiver"), str) and isinstance(v.get("accepted"), bool)
            for v in verdicts):
        raise ValueError('"verdicts" must be a list of objects, each with "receiver" and "accepted"')
    return verdicts


@dataclass(slots=True)
class Step:
    message: ACLMessage
    verdicts: list[Verdict]
    logged: list[dict[str, Any]]
    commitments: list[str]
    teams: dict[str, set[str]]
    agrees: bool


def replay(entries: Iterable[Entry], conversation: str | None = None) -> Iterator[Step]:
    """Feed each distinct message (a message logged by sender and receiver counts once)
    through a fresh observer engine; yield what it made of each, with the commitments
    after it and whether that agrees with what was logged at the time."""
    clock = ManualClock()
    engine = Engine(clock=clock)  # deadlines judged at the time each message was logged
    seen: set[tuple[str | None, str | None, str | None, str]] = set()  # conversation, reply-with, sender, performative
    for entry in entries:
        m = entry.message
        if conversation is not None and m.conversation_id != conversation:
            continue
        if entry.direction == "undelivered":  # the sender rolled it back: so does the replay
            engine.retract(m)
            continue
        key = (m.conversation_id, m.reply_with, m.sender.name if m.sender else None, m.performative)
        if m.reply_with and key in seen:
            continue
        seen.add(key)
        try:
            clock.set(datetime.fromisoformat(entry.time))
        except ValueError:
            pass
        verdicts = engine.handle(m)
        logged = {d["receiver"]: d for d in entry.verdicts}
        agrees = all(v.receiver not in logged or (logged[v.receiver]["accepted"] == v.accepted
                                                  and logged[v.receiver].get("after") == v.after)
                     for v in verdicts)
        now = engine.tracker.clock.now()
        lines = [r.describe(now) for r in engine.tracker.records(m.conversation_id)
                 if r.active or (m.reply_with and r.discharged_by == m.reply_with)]
        teams = {c: engine.tracker.team(c) for c in {m.conversation_id or ""}}
        yield Step(m, verdicts, entry.verdicts, lines, teams, agrees)


def show(entries: Iterable[Entry], conversation: str | None = None, width: int | None = None) -> str:
    """A conversation as text: each act, its arc, and the commitments after it, each line
    wrapped to ``width`` columns (by default the terminal's: ``$COLUMNS``, else 80)."""
    width = width or shutil.get_terminal_size().columns
    out: list[str] = []
    engine_steps = list(replay(entries, conversation))
    for n, step in enumerate(engine_steps, 1):
        m = step.message
        who = f"{m.sender.name if m.sender else '?'} → {', '.join(r.name for r in m.receivers)}"
        out.append(f"{n:3}. [{m.conversation_id}] {who}: {m.performative}"
                   + (f" [X-act {m.act}]" if m.act else "") + (f"  {m.content!r}" if m.content else ""))
        for v in step.verdicts:
            if v.accepted and v.arc is not None:
                crossed = "  (crossed)" if v.crossed else ""
                out.append(f"       to {v.receiver}: {v.arc.act}  {v.before} → {v.after}{crossed}"
                           + (f"  — {english(v.act)}" if v.act is not None else ""))
            elif v.accepted:
                out.append(f"       to {v.receiver}: {v.reason or 'noted'}")
            else:
                out.append(f"       to {v.receiver}: REFUSED — {v.reason}")
        team = next(iter(step.teams.values()))
        out.append("       team: " + (", ".join(sorted(team)) if team else "none"))
        out.extend(f"       • {line}" for line in step.commitments or ["no commitment outstanding"])
        if step.commitments and all(" — discharged" in line for line in step.commitments):
            out.append("       • no commitment outstanding")
        if not step.agrees:
            out.append("       ! differs from what was logged at the time")
    return "\n".join(_wrapped(line, width) for line in out)


def _wrapped(line: str, width: int) -> str:
    """``line`` wrapped to ``width``, its lines after the first indented past its own indent."""
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.fill(line, width=max(width, 40), subsequent_indent=indent, break_on_hyphens=False)


def html(entries: Iterable[Entry], conversation: str | None = None, title: str = "Conversation") -> str:
    """A self-contained page: one column per agent, one row per message (an arrow from
    sender to receivers, the act and the arc), and the commitments standing after it
    (template ``templates/log.html``)."""
    steps = list(replay(entries, conversation))
    agents: list[str] = []
    for step in steps:
        for name in [_sender(step.message), *(r.name for r in step.message.receivers)]:
            if name not in agents:
                agents.append(name)
    rows = []
    shown_conversation: str | None = None
    for n, step in enumerate(steps, 1):
        m = step.message
        new_conversation = m.conversation_id != shown_conversation   # say which when it changes
        shown_conversation = m.conversation_id
        rows.append({
            "n": n, "agrees": step.agrees, "cells": _cells(agents, m),
            "conversation": (m.conversation_id or "") if new_conversation else None,
            "act": m.performative + (f" [{m.act}]" if m.act else ""), "content": m.content or "",
            "arcs": [_arc(v) for v in step.verdicts],
            "team": ", ".join(sorted(next(iter(step.teams.values())))) or "none",
            "commitments": [{"text": c, "done": " — discharged" in c} for c in step.commitments],
        })
    return render("acl/log.html", package=__package__, title=title, agents=agents, rows=rows)


def _sender(m: ACLMessage) -> str:
    return m.sender.name if m.sender else "?"


def _cells(agents: list[str], m: ACLMessage) -> list[dict[str, str]]:
    """A message's row across the agents' columns: a dot under its sender, an arrow under
    each receiver, and a line from the sender to its furthest receivers (the cell classes
    ``from``, ``to``, ``line``, with ``l`` and ``r`` at the line's ends)."""
    sender, targets = _sender(m), {r.name for r in m.receivers}
    ends = [agents.index(a) for a in targets | {sender}]
    lo, hi = min(ends), max(ends)
    cells = []
    for i, a in enumerate(agents):
        classes = []
        if a == sender:
            classes.append("from")
        elif a in targets:
            classes.append("to")
        if lo < hi and lo <= i <= hi:
            classes += ["line"] + (["l"] if i == lo else ["r"] if i == hi else [])
        mark = "●" if a == sender else ("◀" if i < agents.index(sender) else "▶") if a in targets else ""
        cells.append({"classes": " ".join(classes), "mark": mark})
    return cells


def _arc(v: Verdict) -> dict[str, Any]:
    """What one receiver made of a message: the arc it took, or why it was refused."""
    if v.accepted and v.arc:
        return {"refused": False, "text": f"to {v.receiver}: {v.arc.act} {v.before} → {v.after}"
                + (" (crossed)" if v.crossed else "")}
    if not v.accepted:
        return {"refused": True, "text": f"to {v.receiver}: refused: {v.reason}"}
    return {"refused": False, "text": f"to {v.receiver}: {v.reason}"}
