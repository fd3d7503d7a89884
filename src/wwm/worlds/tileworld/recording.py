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
from .config import Config
from .engine import Engine

RECORDING_FORMAT = "wwm-tileworld-recording/1"


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
            raise RecordingError(f"not a Tileworld recording (expected format {RECORDING_FORMAT!r})")
        if not isinstance(data.get("log"), list):
            raise RecordingError("the recording has no log list")
        return cls(Config.from_dict(data["config"]), data["log"], str(data.get("mode", "discrete")))

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path} is not JSON: {exc}") from None

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


def _replayed(recording: Recording) -> Iterator[tuple[Engine, list[Any]]]:
    engine = Engine(recording.config)
    for entry in recording.log:
        kind = entry[0]
        if kind == "advance":
            engine.advance(float(entry[1]))
        elif kind == "act":
            engine.act(int(entry[1]), str(entry[2]))
        elif kind not in ("sent", "invalid"):
            raise RecordingError(f"unknown log entry {entry!r}")
        yield engine, entry


def replay(recording: Recording) -> int:
    """Replay and compare every full percept and message; return how many were checked."""
    checked, seen = 0, 0
    expected_messages: list[tuple[int, str]] = []
    for engine, entry in _replayed(recording):
        if len(engine.messages) > seen:  # deliveries the replayed engine made
            expected_messages += [(m["to"], m["text"]) for m in engine.messages[seen:]]
            seen = len(engine.messages)
        if entry[0] != "sent":
            continue
        agent_id, line = int(entry[1]), str(entry[2])
        message = json.loads(line)
        header = message["header"]
        if header == "message":
            want = percepts.message("message", expected_messages.pop(0)[1]) if expected_messages else None
        elif header in ("error", "pause") or message["data"] == "null":
            want = line  # from the invalid action text in the log, or the person's pause button
        else:
            want = percepts.percept(engine, agent_id, header)
        if want != line:
            raise RecordingError(f"replay differs at percept {checked} for agent {agent_id} ({header}): "
                                 f"recorded {line[:120]!r}, replayed {str(want)[:120]!r}")
        checked += 1
    return checked


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
