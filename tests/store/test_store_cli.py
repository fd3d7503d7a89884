"""``wwm runs`` end to end: ``wwm run`` drives the probe mind in the probe world over real
HTTP and records the run; ``wwm runs`` lists it and ``wwm runs show`` prints it, as a table,
as JSON and as a PNG plot, on SQLite and PostgreSQL; bad input gets one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import pytest

from wwm.cli.main import main
from wwm.store import RunStore, StepRecord, StoreError


def wwm(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WWM_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", *args], capture_output=True,
                          text=True, timeout=60, env=env, check=False)


@pytest.mark.slow
def test_wwm_run_is_recorded_and_wwm_runs_shows_it(store_url: str, probe_mind, probe_world, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    done = wwm("run", "--mind", probe_mind.url, "--world", probe_world.url, "--steps", "7",
               "--quiet", "--db", store_url)
    assert done.returncode == 0, done.stderr
    assert "wwm runs show 1" in done.stdout

    monkeypatch.setenv("WWM_DATABASE_URL", store_url)  # instead of --db
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["runs"]) == 0
    listed = capsys.readouterr().out
    row = next(line for line in listed.splitlines() if line.lstrip("│ ").startswith("1 "))
    assert "command line" in row and "completed" in row and " 7 " in row
    assert probe_mind.url.removeprefix("http://").rstrip("/") in row

    assert main(["runs", "show", "1", "--steps", "3", "--from", "2"]) == 0
    shown = capsys.readouterr().out
    assert "Steps 2-4 of 7" in shown and "n=2" in shown and "n=5" in shown
    assert "n=6" not in shown and "--from 5" in shown

    png = tmp_path / "scores.png"
    assert main(["runs", "show", "1", "--json", "--steps", "all", "--plot", str(png)]) == 0
    out, err = capsys.readouterr()
    run = json.loads(out)
    assert (run["status"], run["step_count"], run["total_score"]) == ("completed", 7, 7.0)
    assert run["mind_url"] == probe_mind.url and run["world_url"] == probe_world.url
    assert run["settings"]["steps"] == 7 and run["society"]["name"] == "command line"
    assert [(s["state"], s["action"], s["new_state"], s["score"], s["mind_q"]) for s in run["steps"]] == [
        (f"n={i}", "+1", f"n={i + 1}", 1.0, 2.0) for i in range(7)]
    assert all(s["seconds_get_action"] > 0 and s["seconds_execute"] > 0 for s in run["steps"])
    assert "saved to" in err
    image = matplotlib.image.imread(png)
    assert image.shape[:2] == (450, 900)


def make_runs(url: str) -> None:
    with RunStore(url) as store:
        for k, status in enumerate(["completed", "mind lost", "interrupted"]):
            run_id = store.start_run(mind_url=f"http://127.0.0.1:{9000 + k}/", world_url="local:grid:Grid",
                                     society={"name": f"society {k} [red]"})
            for i in range(30):
                store.record_step(run_id, StepRecord(i, f"x{i}\n[bold]", None if i == 3 else f"a{i}",
                                                     f"x{i + 1}", float(i % 4), note="stuck" if i == 3 else None))
            store.record_event(run_id, 3, "timeout", "the mind did not answer Get action within 2 s")
            store.finish_run(run_id, status)


def test_list_and_show_in_process(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    make_runs(url)
    assert main(["runs", "--db", url, "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "society 2 [red]" in out and "interrupted" in out and "society 1 [red]" in out and "mind lost" in out
    assert "society 0" not in out

    assert main(["runs", "list", "--db", url, "--status", "completed"]) == 0
    out = capsys.readouterr().out
    assert "society 0" in out and "society 1" not in out

    assert main(["runs", "show", "2", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "Run 2: society 1 [red]" in out and "mind lost" in out and "127.0.0.1:9001" in out
    assert "name: society 1 [red]" in out  # the society document, as YAML
    assert "Events (1)" in out and "did not answer" in out
    assert "Steps 0-19 of 30" in out and "(cannot suggest)" in out and "x3⏎[bold]" in out

    assert main(["runs", "show", "2", "--db", url, "--steps", "0"]) == 0
    out = capsys.readouterr().out
    assert "30 steps (wwm runs show 2 --steps N" in out and "Steps" not in out

    assert main(["runs", "list", "--db", url, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["name"], r["status"], r["step_count"]) for r in listed] == [
        (3, "society 2 [red]", "interrupted", 30), (2, "society 1 [red]", "mind lost", 30),
        (1, "society 0 [red]", "completed", 30)]
    assert listed[0]["total_score"] == sum(i % 4 for i in range(30)) and listed[0]["seconds"] >= 0

    assert main(["runs", "--db", url, "--status", "ended by world"]) == 0
    assert 'No runs with status "ended by world"' in capsys.readouterr().out


def test_empty_store_says_so(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    RunStore(url).close()  # made by a writer, holding no run yet
    assert main(["runs", "--db", url]) == 0
    assert "No runs recorded in" in capsys.readouterr().out


def test_a_reader_makes_no_file_folder_or_table(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``wwm runs`` only reads: a store that is not there is reported, never made, and another
    program's SQLite database gets no table of ours."""
    monkeypatch.setenv("COLUMNS", "400")  # one line, however long the temporary path
    missing = tmp_path / "not" / "yet" / "runs.db"
    url = f"sqlite:///{missing}"
    assert main(["runs", "--db", url]) == 0
    said = f"No runs recorded yet ({url} holds no run records: there is no file {str(missing)!r}).\n"
    assert capsys.readouterr().out == said
    assert main(["runs", "--db", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["runs", "--db", url, "show", "3"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"wwm runs: there is no run 3: {url} holds no run records") and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # no folder, no file

    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    assert main(["runs", "--db", f"sqlite:///{other}"]) == 0
    assert "holds no run records: it has no 'wwm_runs' table" in capsys.readouterr().out
    with sqlite3.connect(other) as db:
        assert [name for (name,) in db.execute("SELECT name FROM sqlite_master")] == ["notes"]

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    make_runs(url)  # once a writer made it, the reader reads it
    assert main(["runs", "--db", url, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) > 0


def test_a_writer_that_cannot_make_the_folder_says_so() -> None:
    with pytest.raises(StoreError, match="cannot make the folder '/proc/forbidden'"):
        RunStore("sqlite:////proc/forbidden/runs.db")


@pytest.mark.parametrize("args, status, message", [
    (["runs", "show", "42"], 1, "there is no run 42 in sqlite:///"),
    (["runs", "show", "1", "--plot", "scores.svg"], 2, "--plot wants a file name ending in .png"),
    (["runs", "show", "1", "--plot", "/no/such/dir/scores.png"], 1, "no such directory '/no/such/dir'"),
])
def test_bad_requests_get_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str],
                                         status: int, message: str) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    make_runs(url)
    assert main([*args, "--db", url]) == status
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["runs", "--db", "not a url"], "not a database URL: 'not a url'"),
    (["runs", "--db", "nosuchdialect://x/y"], "no SQLAlchemy dialect for 'nosuchdialect'"),
    (["runs", "--db", "sqlite:///{tmp}/garbage.db"],
     "cannot open the run store at sqlite:///{tmp}/garbage.db: file is not a database"),
    (["runs", "--db", "postgresql://someone:secret@127.0.0.1:1/db"],
     "cannot open the run store at postgresql+psycopg://someone:***@127.0.0.1:1/db"),
    (["runs", "show", "x"], "invalid int value: 'x'"),
    (["runs", "show", "1", "--steps", "-3"], "expected a number of steps >= 0 or 'all', not -3"),
    (["runs", "--limit", "0"], "expected a whole number >= 1, not '0'"),
])
def test_bad_command_lines_get_one_clear_line(capsys: pytest.CaptureFixture, tmp_path: Path,
                                              args: list[str], message: str) -> None:
    (tmp_path / "garbage.db").write_bytes(b"this is not an SQLite database, not even close" * 100)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    message = message.replace("{tmp}", str(tmp_path))
    try:
        status = main(args)
    except SystemExit as exit:  # argparse's own usage errors
        status = exit.code
    assert status in (1, 2)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "secret" not in err
