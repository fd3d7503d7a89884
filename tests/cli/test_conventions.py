"""docs/cli.md's conventions, checked on every command of ``wwm.cli.main.COMMANDS`` (a new
command is covered as soon as its module exists), then on what each kind of command adds: a
server's ready line, --port 0 and a busy port; --json on stdout alone; Ctrl-C's one line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from wwm.cli.main import build_parser, main
from wwm.commands import COMMANDS
from wwm.server.process import ServerProcess
from wwm.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
BUILT = list(COMMANDS)


def actions_of(command: str) -> list[str]:
    """The sub-actions of a command (``wwm tworld serve``, ...), or [] if it has none."""
    parser = build_parser(only=command)
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    mine = [a for a in commands.choices[command]._actions if isinstance(a, argparse._SubParsersAction)]
    return list(dict.fromkeys(mine[0].choices)) if mine else []


def invocations() -> list[list[str]]:
    """Each command as it is typed: ``[cmd]``, or ``[cmd, action]`` for each of its actions."""
    return [[name, *([action] if action else [])]
            for name in BUILT for action in (actions_of(name) or [None])]


def wwm(capsys, *argv: str) -> tuple[int, str, str]:
    """``wwm ARGV`` in this process: exit status (argparse's exits included), stdout, stderr."""
    capsys.readouterr()
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def test_every_command_is_checked():
    assert {"serve", "run", "check", "tworld", "docs"} <= set(BUILT)
    assert ["tworld", "proxy"] in invocations() and ["runs", "show"] in invocations()


@pytest.mark.parametrize("argv", invocations(), ids=" ".join)
def test_help_exits_0_and_shows_quiet_and_verbose(capsys, argv):
    status, out, err = wwm(capsys, *argv, "--help")
    assert status == 0 and err == ""
    assert "-q, --quiet" in out and "-v, --verbose" in out, out
    if len(argv) > 1:  # the command's own --help lists its actions
        status, out, _ = wwm(capsys, argv[0], "--help")
        assert status == 0 and argv[1] in out


@pytest.mark.parametrize("argv", invocations(), ids=" ".join)
def test_a_bogus_flag_is_one_line_and_status_2(capsys, argv):
    status, out, err = wwm(capsys, *argv, "--no-such-flag")
    assert status == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"wwm {argv[0]}"), err
    assert "(see wwm " in lines[0] and "--help)" in lines[0]


SERVERS = [(["serve", "wwm.kit.random_mind:RandomMind"], 8000), (["serve-exec"], 8000),
           (["tworld", "serve"], 8330), (["tworld", "proxy"], 3313), (["docs"], 8000)]


@pytest.mark.parametrize(("argv", "default"), SERVERS, ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_a_servers_port_shows_its_default_and_is_checked(capsys, argv, default):
    status, out, _ = wwm(capsys, *argv, "--help")
    help_text = " ".join(out.split())
    assert status == 0 and re.search(rf"--port PORT .*?\(0: any free port\) \(default: {default}\)", help_text), out
    status, _, err = wwm(capsys, *argv, "--port", "70000")
    assert status == 2 and err.count("\n") == 1 and "a port is between 0 and 65535" in err, err


# ---- servers: the ready line, --port 0, a busy port -----------------------------------------
def env(**extra: str) -> dict[str, str]:
    """This environment, with only the PYTHONPATH that chose the code under test (a worktree's
    src): never the current directory, which ``module:Class`` must find by itself."""
    out = {**os.environ, "COLUMNS": "200", **extra}
    paths = [p for p in out.pop("PYTHONPATH", "").split(os.pathsep) if p and p != "."]
    if paths:
        out["PYTHONPATH"] = os.pathsep.join(paths)
    return out


def start(argv: list[str], cwd: Path) -> subprocess.Popen:
    # -P: the current directory is not on sys.path, as under the ``wwm`` console script
    return subprocess.Popen([sys.executable, "-P", "-m", "wwm.cli.main", *argv], cwd=cwd, env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def first_line(process: subprocess.Popen, timeout: float = 15.0) -> str:
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, f"no line within {timeout} s"
    line = process.stdout.readline()
    assert line, process.stderr.read()
    return line


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)


def get_card(url: str) -> dict:
    with urllib.request.urlopen(url + "?format=json", timeout=10) as reply:
        return json.loads(reply.read())


def test_serve_exec_on_port_0_says_where_it_serves_and_ctrl_c_says_what_it_kept():
    process = start(["serve-exec", "--port", "0", "--", "sh", "examples/exec/mind.sh"], cwd=ROOT)
    try:
        line = first_line(process)
        match = re.fullmatch(r"serving the mind `sh examples/exec/mind\.sh` \(per-query\) at "
                             r"(http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops it\)\n", line)
        assert match and int(match.group(2)) > 0, line
        assert get_card(match.group(1))["role"] == "mind"
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 130
        assert process.stderr.read() == ("wwm serve-exec: interrupted; stopped serving; "
                                         "the program's temporary state directory was removed\n")
    finally:
        stop(process)


def test_serve_on_port_0_imports_module_class_from_the_current_directory(tmp_path):
    (tmp_path / "tinymind.py").write_text(
        "from wwm import Mind, Suggestion\n\n\n"
        "class Tiny(Mind):\n"
        "    async def get_action(self, state):\n"
        "        return Suggestion('stay')\n")
    process = start(["serve", "tinymind:Tiny", "--port", "0"], cwd=tmp_path)
    try:
        line = first_line(process)
        match = re.fullmatch(r"serving the mind Tiny at (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops it\)\n", line)
        assert match and int(match.group(2)) > 0, line
        assert get_card(match.group(1))["role"] == "mind"
    finally:
        stop(process)


@pytest.mark.parametrize("argv", [["serve", "wwm.kit.random_mind:RandomMind"],
                                  ["serve-exec", "--", "sh", str(ROOT / "examples/exec/mind.sh")]],
                         ids=lambda argv: argv[0])
def test_a_busy_port_is_one_line_and_status_1(capsys, argv):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status, out, err = wwm(capsys, *argv[:1], "--port", str(port), *argv[1:])
    assert status == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"wwm {argv[0]}: cannot listen on 127.0.0.1:{port}: "), err
    assert "address already in use" in lines[0].lower()


# ---- results: --json on stdout alone, and Ctrl-C in wwm run -----------------------------------
@pytest.fixture(scope="module")
def world_and_mind():
    with ServerProcess("wwm.kit.grid:GridWorld") as world, \
            ServerProcess("wwm.kit.random_mind:RandomMind") as mind:
        yield world.url, mind.url


def test_check_json_is_the_checks_alone(capsys, world_and_mind):
    _, mind = world_and_mind
    status, out, err = wwm(capsys, "check", mind, "--json")
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert doc["url"] == mind and doc["failed"] == 0 and doc["passed"] == len(doc["checks"]) > 3
    for check in doc["checks"]:
        assert set(check) == {"name", "passed", "detail", "seconds"} and check["passed"] is True


def test_run_json_and_runs_json_are_json_alone(capsys, tmp_path, world_and_mind):
    world, mind = world_and_mind
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    status, out, _ = wwm(capsys, "run", "--mind", mind, "--world", world, "--steps", "5", "--db", db, "--json")
    assert status == 0
    outcome = json.loads(out)
    assert outcome["steps"] == 5 and outcome["status"] in ("completed", "ended by world")
    status, out, _ = wwm(capsys, "runs", "--db", db, "--json")
    assert status == 0 and [r["id"] for r in json.loads(out)] == [outcome["record_id"]]
    status, out, _ = wwm(capsys, "runs", "show", str(outcome["record_id"]), "--db", db, "--json")
    assert status == 0 and json.loads(out)["step_count"] == 5


def wait_for_recorded_steps(path, process, timeout: float = 60) -> None:
    """Until the run's first steps are in its database (a fixed sleep was too short on a loaded
    machine: the signal came while ``wwm`` was still importing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                if db.execute("SELECT count(*) FROM wwm_steps").fetchone()[0]:
                    return
        except sqlite3.OperationalError:  # no database or no table yet
            pass
        time.sleep(0.1)
    raise AssertionError(f"wwm run recorded no step in {timeout} s (exit code {process.poll()})")


def test_ctrl_c_stops_wwm_run_in_one_line_and_records_the_run_as_interrupted(tmp_path, world_and_mind):
    world, mind = world_and_mind
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    process = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "run", "--mind", mind, "--world", world,
                                "--steps", "1000000", "--db", db],
                               env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_recorded_steps(tmp_path / "runs.db", process)  # Ctrl-C once the run is under way
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    match = re.fullmatch(r"wwm run: interrupted; stopped after (\d+) steps?; recorded as run (\d+) "
                         r"\(wwm runs show (\d+)\)\n", err)
    assert match and match.group(2) == match.group(3), err
    steps, record = int(match.group(1)), int(match.group(2))
    assert 0 < steps < 1_000_000
    with RunStore(db) as store:
        run = store.get_run(record, max_steps=0)
    assert run.status == "interrupted" and run.step_count == steps
