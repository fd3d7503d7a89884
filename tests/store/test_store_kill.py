"""Two processes record runs into one database at once; each is killed with SIGKILL in the
middle. Every step a process recorded more than the flush window (with margin) before its
kill is in the database, intact and in order; a run reads "running" while its process lives
and "interrupted" once it is gone, whatever the other one does (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from store_inhabitants import score, state

from wwm.store import RunStore

CHILD = Path(__file__).with_name("store_inhabitants.py")
# The store promises a step is in the database ~0.5 s after record_step (0.25 s timer plus
# the write); the test allows twice that, since the machine running it may be busy.
WINDOW = 1.0


class Child:
    """A process driving an endless recorded run, printing each step index as it records it."""

    def __init__(self, url: str) -> None:
        self.process = subprocess.Popen([sys.executable, str(CHILD), url], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.printed: list[int] = []
        threading.Thread(target=lambda: self.printed.extend(int(line) for line in self.process.stdout),
                         daemon=True).start()

    def wait_for_steps(self, n: int) -> None:
        deadline = time.monotonic() + 30
        while len(self.printed) < n:
            assert self.process.poll() is None, self.process.stderr.read()
            assert time.monotonic() < deadline, "the child did not get going"
            time.sleep(0.02)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        assert self.process.returncode == -signal.SIGKILL


def check_steps(run, recorded_before: int, last_printed: int) -> None:
    indices = [s.index for s in run.steps]
    assert indices == list(range(len(indices))), "steps are contiguous from 0"
    assert recorded_before < len(indices) <= last_printed + 1
    for s in run.steps:
        assert (s.state, s.action, s.new_state) == (state(s.index), f"a{s.index}", state(s.index + 1))
        assert (s.score, s.mind_q) == (score(s.index), score(s.index) * 10)
        assert s.seconds_execute >= 0.002
    assert run.step_count == len(indices) and run.total_score == sum(score(i) for i in indices)
    assert run.finished_at is None and run.name == "endless" and run.mind_url == "local:Echo"
    assert run.settings["steps"] is None


@pytest.mark.slow
def test_killed_writers_keep_their_steps_and_read_interrupted(store_url: str) -> None:
    first, second = Child(store_url), Child(store_url)
    try:
        first.wait_for_steps(150)
        second.wait_for_steps(150)
        with RunStore(store_url) as reader:
            runs = reader.list_runs()
            assert [r.status for r in runs] == ["running", "running"]
            by_pid = {reader.get_run(r.id, max_steps=0).pid: r.id for r in runs}
            first_id, second_id = by_pid[first.process.pid], by_pid[second.process.pid]

            recorded_before = first.printed[-1]   # recorded by now ...
            time.sleep(WINDOW)              # ... and older than the window at the kill
            first.kill()
            last_printed = first.printed[-1]
            run = reader.get_run(first_id)
            assert run.status == "interrupted"
            check_steps(run, recorded_before, last_printed)
            assert reader.get_run(second_id, max_steps=0).status == "running"

            recorded_before = second.printed[-1]
            time.sleep(WINDOW)
            second.kill()
            run = reader.get_run(second_id)
            assert run.status == "interrupted"
            check_steps(run, recorded_before, second.printed[-1])
    finally:
        for child in (first, second):
            if child.process.poll() is None:
                child.process.kill()
                child.process.wait()
