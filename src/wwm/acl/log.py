"""The conversation log: every message an agent sends or receives, with what its engine made
of it, as JSON lines; and replay, which feeds a log through a fresh engine and shows the
commitments after each act (``wwm acl show``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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


class ConversationLog:
    """Appends entries in memory and, given a path, to a JSON-lines file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self.entries: list[Entry] = []

    def record(self, observer: str, direction: str, message: ACLMessage, verdicts: list[Verdict]) -> Entry:
        entry = Entry(datetime.now(UTC).isoformat(timespec="milliseconds"), observer,
                      direction, message, [verdict_dict(v) for v in verdicts])
        self.entries.append(entry)
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
            doc = json.loads(line)
            entries.append(Entry(_text(doc, "time"), _text(doc, "observer"), _direction(doc),
                                 jsonform.from_dict(doc["message"]), _verdicts(doc)))
        except (ValueError, KeyError, TypeError, RecursionError, AclError) as exc:
            raise AclError(f"{path}, line {number}: not a conversation log entry ({exc})") from None
    return entries


def _text(doc: dict[str, Any], key: str) -> str:
    if not isinstance(doc[key], str):
        raise ValueError(f'"{key}" must be text')
    return doc[key]


def _direction(doc: dict[str, Any]) -> str:
    if doc["direction"] not in ("sent", "received", "undelivered"):
        raise ValueError('"direction" must be sent, received or undelivered')
    return doc["direction"]


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
    seen: set[tuple] = set()
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


def show(entries: Iterable[Entry], conversation: str | None = None) -> str:
    """A conversation as text: each act, its arc, and the commitments after it."""
    out: list[str] = []
    engine_steps = list(replay(entries, conversation))
    for n, step in enumerate(engine_steps, 1):
        m = step.message
        who = f"{m.sender.name if m.sender else '?'} → {', '.join(r.name for r in m.receivers)}"
        out.append(f"{n:3}. [{m.conversation_id}] {who}: {m.performative}"
                   + (f" [X-act {m.act}]" if m.act else "") + (f"  {m.content!r}" if m.content else ""))
        for v in step.verdicts:
            if v.accepted and v.arc is not None:
                out.append(f"       to {v.receiver}: {v.arc.act}  {v.before} → {v.after}" + ("  (crossed)" if v.crossed else "")
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
    return "\n".join(out)


def html(entries: Iterable[Entry], conversation: str | None = None, title: str = "Conversation") -> str:
    """A self-contained page: one column per agent, one row per message (an arrow from
    sender to receivers, the act and the arc), and the commitments standing after it."""
    from html import escape

    steps = list(replay(entries, conversation))
    agents: list[str] = []
    for step in steps:
        for name in [step.message.sender.name if step.message.sender else "?",
                     *(r.name for r in step.message.receivers)]:
            if name not in agents:
                agents.append(name)
    col = {a: i for i, a in enumerate(agents)}
    rows = []
    shown_conversation: str | None = None
    for n, step in enumerate(steps, 1):
        m = step.message
        sender = m.sender.name if m.sender else "?"
        conv = ""
        if m.conversation_id != shown_conversation:   # say which conversation when it changes
            shown_conversation = m.conversation_id
            conv = f'<div class="conv">conversation {escape(m.conversation_id or "")}</div>'
        cells = []
        targets = {r.name for r in m.receivers}
        ends = [col[a] for a in targets | {sender}]
        lo, hi = min(ends), max(ends)
        for i, a in enumerate(agents):   # a line runs from the sender to its furthest receivers
            line = " line" + (" l" if i == lo else " r" if i == hi else "") if lo < hi and lo <= i <= hi else ""
            if a == sender:
                cells.append(f'<td class="from{line}">●</td>')
            elif a in targets:
                arrow = "◀" if col[a] < col[sender] else "▶"
                cells.append(f'<td class="to{line}">{arrow}</td>')
            else:
                cells.append(f'<td class="{line.strip()}"></td>' if line else "<td></td>")
        arcs = "<br>".join(
            escape(f"to {v.receiver}: {v.arc.act} {v.before} → {v.after}" + (" (crossed)" if v.crossed else ""))
            if v.accepted and v.arc else
            (f'<span class="refused">{escape(f"to {v.receiver}: refused: {v.reason}")}</span>' if not v.accepted
             else escape(f"to {v.receiver}: {v.reason}"))
            for v in step.verdicts)
        records = "".join(f'<li class="{"done" if " — discharged" in c else "open"}">{escape(c)}</li>'
                          for c in step.commitments) or '<li class="done">no commitment outstanding</li>'
        team = ", ".join(sorted(next(iter(step.teams.values())))) or "none"
        act = escape(m.performative + (f" [{m.act}]" if m.act else ""))
        rows.append(f'<tr class="{"bad" if not step.agrees else ""}"><td class="n">{n}</td>{"".join(cells)}'
                    f'<td>{conv}<b>{act}</b> {escape(m.content or "")}<div class="arc">{arcs}</div></td>'
                    f'<td>team: {escape(team)}<ul>{records}</ul></td></tr>')
    head = "".join(f"<th>{escape(a)}</th>" for a in agents)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>body{{font:14px system-ui,sans-serif;margin:1.5em}}table{{border-collapse:collapse}}
td,th{{border-bottom:1px solid #ddd;padding:4px 8px;vertical-align:top}}th{{background:#f4f4f8}}
td.from{{color:#2563eb;text-align:center}}td.to{{color:#16a34a;text-align:center}}td.n{{color:#888}}
.arc{{color:#555;font-size:12px}}ul{{margin:0;padding-left:1.2em;font-size:12px}}li.done{{color:#999}}
li.open{{color:#111}}tr.bad{{background:#fee2e2}}
td.line{{background:linear-gradient(#94a3b8,#94a3b8) 0 13px/100% 2px no-repeat}}
td.line.l{{background-position:100% 13px;background-size:50% 2px}}
td.line.r{{background-size:50% 2px}}.conv{{color:#6b21a8;font-size:12px}}.refused{{color:#b91c1c}}td.from,td.to{{min-width:2em}}</style></head><body>
<h1>{escape(title)}</h1><p>{len(steps)} message(s); each row: who sent to whom, the act and the
arc it took, and the commitments standing after it (discharged ones in grey).</p>
<table><tr><th>#</th>{head}<th>act</th><th>commitments after</th></tr>
{"".join(rows)}</table></body></html>
"""
