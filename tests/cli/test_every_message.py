"""Every command says what happened, in one line and never with a traceback (issue 28, item 1):
a busy port for every command that listens (found from the parser, so a new one is covered),
a dead URL and a wrong path for every command that takes a server's URL, and typos. The
unreachable server is told in the same words by every command; a wrong path is "nothing at
that path (404)" with the server's own root suggested; an unknown name gets a "did you mean"."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from test_conventions import invocations, wwm

from wwm.cli.main import build_parser
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

NEEDS = {"serve": ["grid"], "serve-exec": ["--", "sh", "-c", "cat"]}  # what a listener needs besides --port


def one_line(err: str, out: str) -> str:
    """The command's only line on stderr; fails on a traceback or more lines."""
    assert "Traceback" not in err + out, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def parser_of(argv: list[str]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = build_parser(only=argv[0])
    for name in argv:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    return parser


def listeners() -> Iterator[list[str]]:
    """Every command (and sub-command) with a --port option."""
    for argv in invocations():
        if any("--port" in a.option_strings for a in parser_of(argv)._actions):
            yield argv


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        yield busy.getsockname()[1]


@pytest.fixture(scope="module")
def dead_url() -> str:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{closed.getsockname()[1]}/"


@pytest.fixture(scope="module")
def world() -> Iterator[str]:
    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        yield server.url


@pytest.fixture(scope="module")
def mind() -> Iterator[str]:
    with ServerProcess("wwm.kit.random_mind:RandomMind") as server:
        yield server.url


def test_the_listeners_are_found():
    assert {("serve",), ("portal",), ("tworld", "serve"), ("soccer", "serve"), ("docs",)} <= {
        tuple(argv) for argv in listeners()}


@pytest.mark.parametrize("argv", list(listeners()), ids=" ".join)
def test_a_busy_port_is_one_line(capsys, tmp_path, monkeypatch, busy_port, argv):
    monkeypatch.chdir(tmp_path)  # (a portal's database, a docs build: made here, not in the repository)
    status, out, err = wwm(capsys, *argv, "--port", str(busy_port), *NEEDS.get(argv[0], []))
    line = one_line(err, out)
    assert status == 1 and f"cannot listen on 127.0.0.1:{busy_port}" in line and "in use" in line, line
    assert "(while" not in line  # asyncio's repeat of the address, cut


def society_file(tmp_path, world: str, mind: str) -> str:
    path = tmp_path / "society.yaml"
    path.write_text(f"world: {{url: '{world}'}}\nmind: {{url: '{mind}'}}\nrun: {{steps: 3, start_wait: 0}}\n")
    return str(path)


def test_a_dead_url_is_told_in_the_same_words_by_every_command(capsys, tmp_path, dead_url, world):
    said = {}
    for argv in (["check", dead_url], ["mcp", dead_url],
                 ["run", society_file(tmp_path, world, dead_url), "--no-record"]):
        status, out, err = wwm(capsys, *argv)
        said[argv[0]] = one_line(err, out)
        assert status == 1
    words = f"unreachable: nothing is listening at {dead_url} (connection refused); is the server started"
    for command, line in said.items():
        assert words in line and line.startswith(f"wwm {command}: "), line


def test_a_wrong_path_is_nothing_there_with_the_servers_root_suggested(capsys, tmp_path, world, mind):
    wrong = world + "world"
    for argv in (["check", wrong], ["mcp", wrong], ["run", "--world", world, "--mind", wrong, "--no-record"],
                 ["run", society_file(tmp_path, wrong, mind), "--no-record"]):
        status, out, err = wwm(capsys, *argv)
        line = one_line(err, out)
        assert status == 1
        assert f"{wrong}: nothing at that path (404); a World answers at {world} (GridWorld): use that URL" in line


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "gridd"], "no world or mind is called 'gridd'; did you mean 'grid'? (`wwm list` names them all"),
    (["serve", "zzqx"], "no world or mind is called 'zzqx' (`wwm list` names them all"),
    (["list", "wolrds"], "invalid choice: 'wolrds'"),
    (["acl", "show", "missing.log"], "cannot read missing.log: No such file or directory"),
    (["soccer", "picture", "missing.json", "--out", "x.svg"], "cannot read missing.json: No such file or directory"),
    (["tworld", "replay", "missing.json"], "cannot read missing.json: No such file or directory"),
    (["run", "missing.yaml"], "cannot read missing.yaml: No such file or directory"),
    (["search", "missing.yaml"], "cannot read missing.yaml: No such file or directory"),
    (["runs", "list", "--db", "bogus://x"], "no SQLAlchemy dialect for 'bogus'"),
    (["run", "--mind", "http://127.0.0.1:1/", "--world", "http://127.0.0.1:1/", "--seeds", "1,2"],
     "--seeds and --plot go with --episodes N"),
    (["run", "--mind", "http://127.0.0.1:1/", "--world", "http://127.0.0.1:1/", "--episodes", "3", "--seeds", "1,x"],
     "seeds are whole numbers like 1,2,3 or 1-5, not 'x'"),
    (["run", "--mind", "http://127.0.0.1:1/", "--world", "http://127.0.0.1:1/", "--episodes", "0"],
     "--episodes must be at least 1, not 0"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_typo_is_one_line_naming_it(capsys, tmp_path, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    status, out, err = wwm(capsys, *argv)
    line = one_line(err, out)
    assert status in (1, 2) and said in line, line


def test_the_record_states_the_steps_asked_and_made(capsys, tmp_path, world, mind):
    """The society document kept with a run holds the command line's settings, not the
    document's defaults (it said ``steps: 100`` for a run made with ``--steps 200``)."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    status, out, err = wwm(capsys, "run", "--world", world, "--mind", mind, "--steps", "7", "--timeout", "4",
                           "--db", db, "-q")
    assert status == 0, err
    status, out, err = wwm(capsys, "runs", "show", "1", "--db", db, "--json")
    record = json.loads(out)
    assert record["step_count"] == 7
    assert record["society"]["run"]["steps"] == 7 and record["society"]["run"]["timeout"] == 4.0


def test_a_reader_that_goes_away_is_no_traceback(tmp_path):
    """``wwm runs show 1 --json | head -1``: the pipe closes before wwm has written; it stops
    quietly, with status 1 (as rich's tables do)."""
    process = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "runs", "list", "--json",
                                "--db", f"sqlite:///{tmp_path / 'runs.db'}"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before anything is written
    err = process.stderr.read().decode()
    assert process.wait(60) == 1 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_results_go_to_wwms_data_folder_not_the_current_one(tmp_path, monkeypatch, capsys):
    """Λ* results and T-World recordings, without --out/--recordings: under $XDG_DATA_HOME/wwm
    (issue 28, item 6); the current folder stays empty."""
    from wwm.tileworld.app import create_app

    here, data = tmp_path / "here", tmp_path / "data"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    status, out, err = wwm(capsys, "lambdastar", "--agents", "random", "--sizes", "1", "--episodes", "3",
                           "--iterations", "5", "--grid", "5", "--no-plots")
    assert status == 0, err
    assert (data / "wwm" / "lambdastar-results" / "results.json").is_file()
    assert str(data / "wwm" / "lambdastar-results") in out + err
    assert create_app().state.hub.recordings == data / "wwm" / "tworld-recordings"
    assert list(here.iterdir()) == []


def test_the_acl_demo_fits_80_columns(tmp_path):
    """Its conversation's lines reached ~170 columns; each now wraps under its own indent."""
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "acl", "demo", "-q"], cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "80"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    long = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert not long and "commit to (haul" in done.stdout.replace("\n", " "), long[:3]
