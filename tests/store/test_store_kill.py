"""A process recording a run is killed with SIGKILL mid-run: every step it recorded more than
the flush window before the kill is in the database, intact, and the run reads as "running"
while the process lives and "interrupted" once it is gone (on SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from wwm.store import RunStore

from store_inhabitants import score, state

CHILD = Path(__file__).with_name("store_inhabitants.py")
WINDOW = 0.5  # the store promises: a step is in the database this soon after record_step


@pytest.mark.slow
def test_killed_mid_run_keeps_the_steps_and_reads_interrupted(store_url: str) -> None:
    child = subprocess.Popen([sys.executable, str(CHILD), store_url], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    printed: list[int] = []
    threading.Thread(target=lambda: printed.extend(int(line) for line in child.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 20
        while len(printed) < 200 and time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read()
            time.sleep(0.02)
        assert len(printed) >= 200, "the child did not get going"
        with RunStore(store_url) as reader:
            (run,) = reader.list_runs()
            assert run.status == "running" and run.name == "endless"
            recorded_before = printed[-1]           # recorded by now ...
            time.sleep(WINDOW + 0.1)                # ... and older than the window at the kill
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
            last_printed = printed[-1]

            run = reader.get_run(run.id)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert run.status == "interrupted" and run.finished_at is None
    indices = [s.index for s in run.steps]
    assert indices == list(range(len(indices))), "steps are contiguous from 0"
    assert recorded_before < len(indices) <= last_printed + 1
    for s in run.steps:
        assert (s.state, s.action, s.new_state) == (state(s.index), f"a{s.index}", state(s.index + 1))
        assert (s.score, s.mind_q) == (score(s.index), score(s.index) * 10)
        assert s.seconds_execute >= 0.002
    assert run.step_count == len(indices) and run.total_score == sum(score(i) for i in indices)
    assert run.settings["steps"] is None and run.mind_url == "local:Echo"
