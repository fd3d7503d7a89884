"""``wwm run --timeout T`` tells the top-level mind its time-out ("maximum allowable timeout
before mind must return an action", New run, section 9.2): an Action Selection server whose
own time-out is longer than T, with a member that never answers in time, then decides within
T on what has come in, instead of being timed out by the client on every step."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from probes import PROBE_ENV

from wwm.server.process import ServerProcess


@pytest.mark.slow
def test_the_top_mind_decides_within_the_clients_timeout():
    fast = ServerProcess("probes:ProbeMind", env=PROBE_ENV)
    slow = ServerProcess("probes:SlowMind", args={"delay": 8.0}, env=PROBE_ENV)
    world = ServerProcess("probes:ProbeWorld", env=PROBE_ENV)
    with fast, slow, world:
        # the AS's own time-out per round is 4 s: longer than the client's 2 s (told 1.6 s, it
        # decides 0.4 s before the client would give up: a margin for a loaded machine)
        selection = ServerProcess("wwm.selection.mind_as:ActionSelectionMind", env=PROBE_ENV,
                                  args={"minds": f"{fast.url},{slow.url}", "timeout": 4})
        with selection:
            env = {"COLUMNS": "160", "PATH": "/usr/bin:/bin", "PYTHONPATH": PROBE_ENV["PYTHONPATH"]}
            done = subprocess.run(
                [sys.executable, "-m", "wwm.cli.main", "run", "--mind", selection.url, "--world", world.url,
                 "--timeout", "2", "--steps", "3", "--no-record", "--json", "--quiet"],
                capture_output=True, text=True, timeout=120, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result
    assert result["steps"] == 3 and result["total_score"] == 3.0     # the fast member's "+1", every step
    assert not [e for e in result.get("events", []) if e["kind"] == "timeout"], result["events"]
