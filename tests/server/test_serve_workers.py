"""``wwm serve --workers N``: N processes on one port, each run kept on the worker that
opened it (its run ID names it), a query reaching another worker passed on to it. Every
query here goes over a fresh connection, so the kernel hands each to either worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from probes import PROBE_ENV, probe_server

pytestmark = pytest.mark.slow


def post(url: str, query: str, **data: object) -> dict:
    """One query on a connection of its own (urllib opens one per request)."""
    body = json.dumps({"query": query, "data": data}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json", "Connection": "close"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as refused:  # (a refusal's status: its body says which)
        return json.loads(refused.read())


def test_runs_opened_on_both_workers_are_answered_right_over_fresh_connections():
    with probe_server("ProbeWorld", extra=["--workers", "2"]) as server:
        runs: list[str] = []
        displays: list[str] = []
        while len(runs) < 30 or not {r[:3] for r in runs} >= {"w0.", "w1."}:
            assert len(runs) < 400, f"every run landed on one worker: {sorted({r[:3] for r in runs})}"
            started = post(server.url, "New run")["data"]
            runs.append(started["world run ID"])
            displays.append(started["world display URL"])
        for step in range(1, 6):
            for k, run_id in enumerate(runs):  # run k adds k + 1 each step
                answer = post(server.url, "Execute action", **{"world run ID": run_id, "action": f"+{k + 1}"})
                assert answer["data"]["state"] == f"n={step * (k + 1)}", (run_id, answer)
        states = [post(server.url, "Get state", **{"world run ID": r})["data"]["state"] for r in runs]
        assert states == [f"n={5 * (k + 1)}" for k in range(len(runs))]
        # each run's display page, from whichever worker a fresh connection reaches
        for k, url in enumerate(displays):
            with urllib.request.urlopen(url + ".json", timeout=30) as reply:
                assert json.loads(reply.read())["state"] == f"n={5 * (k + 1)}"
        # a numbered query sent again reaches the worker holding its run and is answered from what it kept
        query = {"world run ID": runs[0], "action": "+1", "sequence number": 99}
        first, again = post(server.url, "Execute action", **query), post(server.url, "Execute action", **query)
        assert again["data"] == {**first["data"], "repeated": True}
        ended = [post(server.url, "End run", **{"world run ID": r}) for r in runs[1:]]
        assert [e["data"]["score"] for e in ended] == [5 * (k + 1) for k in range(1, len(runs))]
        unknown = post(server.url, "Get state", **{"world run ID": "w7.nothing"})
        assert unknown["refusal"]["code"] == "unknown-run"


def test_a_shared_world_is_refused_workers_with_a_line():
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "serve", "probes:SharedCounter", "--port", "0",
                           "--workers", "2"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **PROBE_ENV})
    assert done.returncode == 2
    assert "shared world" in done.stderr and "--workers" in done.stderr
    assert "Traceback" not in done.stderr


def state_once_back(url: str, run_id: str) -> dict:
    """Get state, asked again while the worker holding the run is not back (refused as
    ``unreachable`` after the server's own wait for it), for at most a minute."""
    deadline = time.monotonic() + 60
    while True:
        answer = post(url, "Get state", **{"world run ID": run_id})
        if answer.get("refusal", {}).get("code") != "unreachable" or time.monotonic() > deadline:
            return answer


def test_killed_workers_are_started_again_and_take_their_runs_back(tmp_path):
    """With --state each worker keeps its own file; the supervisor starts a worker that died
    (SIGKILL) again, and it answers its runs where they were."""
    from pathlib import Path

    with probe_server("ProbeWorld", extra=["--workers", "2"], state=tmp_path / "runs.db") as server:
        runs: list[str] = []
        while len(runs) < 6 or not {r[:3] for r in runs} >= {"w0.", "w1."}:
            assert len(runs) < 400
            runs.append(post(server.url, "New run")["data"]["world run ID"])
        for run_id in runs:
            post(server.url, "Execute action", **{"world run ID": run_id, "action": "+3"})
        supervisor = server.process.pid
        workers = [int(p) for p in Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()]
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        # (the supervisor holds the listening socket: a connection waits for a new worker, and a
        # worker passing a query on waits for the other to be back)
        states = [state_once_back(server.url, r) for r in runs]
        assert [s["data"]["state"] if "data" in s else s for s in states] == ["n=3"] * len(runs)
        again = [int(p) for p in Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()]
        assert len(again) == 2 and not set(again) & set(workers)
        assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".db") == ["runs.db", "runs.w1.db"]
