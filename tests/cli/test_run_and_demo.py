"""The commands as a user runs them: ``wwm demo`` end to end, ``wwm run`` on society files
(remote and local), and clear errors for bad documents."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wwm.cli.main import main
from wwm.server.process import ServerProcess
from wwm.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


def wwm(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    # A bare environment, but the PYTHONPATH that chose the code under test (a worktree's src)
    env = {"COLUMNS": "160", "PATH": "/usr/bin:/bin"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.mark.slow
def test_demo_runs_to_the_end(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    done = wwm("demo", "--steps", "40", "--db", db)
    assert done.returncode == 0, done.stderr
    pids = set(re.findall(r"\(pid (\d+)\)", done.stdout))
    assert len(pids) == 5                                         # five separate server processes
    assert done.stdout.count("ended by world") == 3               # three completed runs
    assert "Mind_M" in done.stdout and "called by: urn:wwm:client:" in done.stdout
    assert "wwm portal --demo" in done.stdout                   # where to see the same in a browser
    runs = RunStore(db).list_runs()
    assert len(runs) == 3 and all(r.step_count == 40 for r in runs)


@pytest.mark.slow
def test_run_a_society_file_against_servers(tmp_path):
    servers = [ServerProcess("wwm.kit.grid:GridWorld"), ServerProcess("wwm.kit.grid_minds:FoodSeeker"),
               ServerProcess("wwm.kit.grid_minds:HazardAvoider"), ServerProcess("wwm.kit.region:RegionMind")]
    text = (ROOT / "examples/societies/region-switch.yaml").read_text()
    try:
        for port, server in zip((8001, 8002, 8003, 8004), servers, strict=True):
            server.start()
            text = text.replace(f"http://127.0.0.1:{port}/", server.url)
        society = tmp_path / "society.yaml"
        society.write_text(text)
        db = f"sqlite:///{tmp_path / 'runs.db'}"
        done = wwm("run", str(society), "--steps", "30", "--db", db)
        assert done.returncode == 0, done.stderr
        (summary,) = RunStore(db).list_runs()
        assert summary.step_count == 30 and summary.status in ("completed", "ended by world")
    finally:
        for server in servers:
            server.stop()


def test_run_a_local_society_in_process(tmp_path):
    done = wwm("run", str(ROOT / "examples/societies/local-eliza.yaml"), "--db", f"sqlite:///{tmp_path / 'r.db'}")
    assert done.returncode == 0, done.stderr
    assert "12" in done.stdout


@pytest.mark.parametrize("content,words", [
    ("mind: {url: 'http://x/'}", "world"),
    ("world: {url: 'http://x/'}\nmind: {url: 'http://y/', class: 'a:B'}", "exactly one"),
    ("world: {url: 'ftp://x/'}\nmind: {url: 'http://y/'}", "http://"),
    ("world: [1, 2", "not valid YAML"),
    ("world: {url: 'http://x/'}\nmind: {url: 'http://y/'}\nrun: {steps: -3}", "steps"),
])
def test_bad_society_documents_get_a_clear_error(tmp_path, capsys, content, words):
    # (the command's function in this process: a traceback would be an exception here)
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_an_unusable_run_database_is_a_clear_error(capsys):
    assert main(["run", str(ROOT / "examples/societies/local-eliza.yaml"), "--db", "nonsense://x"]) == 2
    err = capsys.readouterr().err
    assert "run records" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_run_that_ends_early_says_why(tmp_path):
    from probes import probe_server

    with probe_server("ProbeWorld") as world, probe_server("SlowMind") as mind:
        society = tmp_path / "s.yaml"
        society.write_text(f"world: {{url: '{world.url}'}}\n"
                           f"mind: {{url: '{mind.url}', args: {{delay: 5}}}}\n"
                           "run: {steps: 5, timeout: 0.2, mind_wait: 0.6}\n")
        done = wwm("run", str(society), "--no-record")
    assert done.returncode == 1
    assert "mind lost" in done.stdout and "why it ended" in done.stdout
    assert "has not answered for 0.6 s" in done.stdout


def test_missing_file_and_unreachable_servers(tmp_path):
    done = wwm("run", "/no/such/society.yaml")
    assert done.returncode == 2 and "cannot read" in done.stderr
    # nothing listening: waited for a moment (start_wait, 10 s by default; short here), then one line
    society = tmp_path / "s.yaml"
    society.write_text("world: {url: 'http://127.0.0.1:9/'}\nmind: {url: 'http://127.0.0.1:9/'}\n"
                       "run: {start_wait: 0.3}\n")
    done = wwm("run", str(society), "--no-record")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "wwm run: unreachable: nothing is listening at http://127.0.0.1:9/ (connection refused, still after "
        "waiting 0.3 s for it to start); is the server started, and on that port?"]
    assert done.stdout.count("waiting for http://127.0.0.1:9/ to start") == 1
