"""Recorded runs: load them, replay them on a fresh engine, and turn them into frames.

A recording is the config plus the engine's log: every ``advance`` and ``act`` call in order,
with every line sent to a robot (``sent``) and every unreadable action (``invalid``) in
between. :func:`replay` re-runs the calls and checks that each percept comes out the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import percepts
from .actions import ActionError, parse_action
from .config import Config
from .engine import Engine

RECORDING_FORMAT = "wwm-tileworld-recording/2"  # /2: first-batch tiles outlive their holes (a rule change)


class RecordingError(ValueError):
    """A recording that cannot be read, or a replay that did not reproduce it."""


@dataclass(frozen=True)
class Recording:
    config: Config
    log: list[list[Any]]
    mode: str = "discrete"

    @classmethod
    def from_dict(cls, data: Any) -> Recording:
        if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
            found = data.get("format") if isinstance(data, dict) else None
            if isinstance(found, str) and found.startswith(RECORDING_FORMAT.rsplit("/", 1)[0] + "/"):
                raise RecordingError(f"a recording of an older Tileworld engine ({found}); this one replays "
                                     f"{RECORDING_FORMAT} only, as the rules changed")
            raise RecordingError(f"not a Tileworld recording (expected format {RECORDING_FORMAT!r})")
        if not isinstance(data.get("log"), list):
            raise RecordingError("the recording has no log list")
        return cls(Config.from_dict(data["config"]), data["log"], str(data.get("mode", "discrete")))

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RecordingError(f"{path} is not JSON: {exc}") from None
        except IsADirectoryError:
            raise RecordingError(f"{path} is a folder, not a recording") from None

    def percepts_sent(self) -> list[tuple[int, str]]:
        return [(int(e[1]), str(e[2])) for e in self.log if e[0] == "sent"]


def as_dict(engine: Engine, mode: str = "discrete") -> dict[str, Any]:
    """The recording of a run so far, JSON-ready."""
    return {"format": RECORDING_FORMAT, "mode": mode, "config": engine.config.to_dict(), "log": list(engine.log)}


def save_recording(engine: Engine, path: str | Path, mode: str = "discrete") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(as_dict(engine, mode), separators=(",", ":")))
    return path


_ARITY = {"advance": 2, "act": 3, "sent": 3, "invalid": 3}


def _replayed(recording: Recording) -> Iterator[tuple[Engine, list[Any]]]:
    engine = Engine(recording.config)
    for n, entry in enumerate(recording.log):
        if not isinstance(entry, list) or not entry or _ARITY.get(entry[0]) != len(entry):
            raise RecordingError(f"log entry {n} is not one of advance/act/sent/invalid: {str(entry)[:80]}")
        kind = entry[0]
        try:
            if kind == "advance":
                engine.advance(float(entry[1]))
            elif kind == "act":
                engine.act(int(entry[1]), str(entry[2]))
        except (TypeError, ValueError) as exc:  # ActionError is a ValueError
            raise RecordingError(f"log entry {n} {str(entry)[:80]} cannot be replayed: {exc}") from None
        yield engine, entry


def replay(recording: Recording) -> int:
    """Replay and compare every full percept and message; return how many were checked."""
    checked, seen = 0, 0
    expected_messages: list[tuple[int, str]] = []
    invalid: dict[int, str] = {}  # each robot's last unreadable action, answered by an error
    for engine, entry in _replayed(recording):
        if len(engine.messages) > seen:  # deliveries the replayed engine made
            expected_messages += [(m["to"], m["text"]) for m in engine.messages[seen:]]
            seen = len(engine.messages)
        if entry[0] == "invalid":
            invalid[int(entry[1])] = str(entry[2])
        if entry[0] != "sent":
            continue
        agent_id, line = int(entry[1]), str(entry[2])
        try:
            message = json.loads(line)
            header = message["header"]
        except (ValueError, TypeError, KeyError):
            raise RecordingError(f"percept {checked} for agent {agent_id} is not a T-World message: "
                                 f"{line[:80]!r}") from None
        if header == "message":  # the replayed engine must deliver the same text to the same robot
            to, text = expected_messages.pop(0) if expected_messages else (None, None)
            want = percepts.message("message", text) if to == agent_id else None
        elif header == "error":
            want = percepts.message("error", _refusal(invalid.pop(agent_id))) if agent_id in invalid else None
        elif header == "pause" or message["data"] == "null":
            want = line  # the person's pause button, or an asynchronous acknowledgement
        else:
            want = percepts.percept(engine, agent_id, header)
        if want != line:
            raise RecordingError(f"replay differs at percept {checked} for agent {agent_id} ({header}): "
                                 f"recorded {line[:120]!r}, replayed {str(want)[:120]!r}")
        checked += 1
    return checked


def _refusal(action: str) -> str:
    """The error text an unreadable action string gets."""
    try:
        parse_action(action)
    except ActionError as exc:
        return str(exc)
    return f"{action!r} is a valid action"


def frames(recording: Recording, every: float = 0.25) -> list[dict[str, Any]]:
    """Observer views for playback: one after each move and each ``every`` world seconds."""
    out: list[dict[str, Any]] = []
    engine = Engine(recording.config)
    out.append(percepts.observer_view(engine))
    last = 0.0
    for engine, entry in _replayed(recording):
        if entry[0] == "act" or (entry[0] == "advance" and engine.time - last >= every) or engine.finished:
            last = engine.time
            if not out or out[-1]["time"] != round(engine.time, 3) or entry[0] == "act":
                out.append(percepts.observer_view(engine))
    out.append(percepts.observer_view(engine))
    return out
