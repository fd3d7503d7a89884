"""``wwm lambdastar`` at the terminal: the table, the files, the same numbers for the same
seed, the landscape, and clear errors for bad input."""

import json
import subprocess
import sys

import pytest

from wwm.cli.main import main


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", "lambdastar", *argv],
                          capture_output=True, text=True, timeout=120)


def test_table_files_and_plots(tmp_path):
    out = tmp_path / "r"
    done = run_cli("--agents", "random,local,stigmergy", "--sizes", "1,2", "--episodes", "40",
                   "--iterations", "30", "--grid", "7", "--out", str(out), "--k-range", "3:12")
    assert done.returncode == 0, done.stderr
    assert "stigmergy" in done.stdout and "Υ" in done.stdout and "K 3-" in done.stdout
    rows = json.loads((out / "results.json").read_text())
    assert [(r["job"]["agent"], r["job"]["size"]) for r in rows] == [
        ("random", 1), ("random", 2), ("local", 1), ("local", 2), ("stigmergy", 1), ("stigmergy", 2)]
    assert all(len(r["scores"]) == 40 for r in rows)
    assert (out / "results.csv").read_text().count("\n") == 7
    for name in ("score_vs_complexity.png", "score_vs_agents.png", "isolated_vs_collective.png"):
        assert (out / name).stat().st_size > 5000


def test_same_seed_same_numbers(tmp_path, capsys):
    args = ["lambdastar", "--agents", "local,woc", "--sizes", "3", "--episodes", "30", "--iterations",
            "20", "--grid", "6", "--profile", "original", "--no-plots", "--seed", "5"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--out", str(tmp_path / "b"), "--engine", "plain"]) == 0
    a = json.loads((tmp_path / "a" / "results.json").read_text())
    b = json.loads((tmp_path / "b" / "results.json").read_text())
    assert [r["scores"] for r in a] == [r["scores"] for r in b]
    assert main(args[:-1] + ["6", "--out", str(tmp_path / "c")]) == 0
    c = json.loads((tmp_path / "c" / "results.json").read_text())
    assert [r["scores"] for r in a] != [r["scores"] for r in c]


def test_landscape_collective_beats_isolated(tmp_path):
    assert main(["lambdastar", "--environment", "landscape", "--agents", "local,woc,random", "--sizes",
                 "4", "--episodes", "60", "--iterations", "40", "--grid", "12", "--no-plots",
                 "--out", str(tmp_path), "--drift", "10"]) == 0
    rows = {r["job"]["agent"]: r["upsilon"] for r in json.loads((tmp_path / "results.json").read_text())}
    assert rows["woc"] > rows["local"] + 0.03 > rows["random"]


@pytest.mark.parametrize("argv, message", [
    (["--agents", "genius"], "unknown agent type(s) genius"),
    (["--k-range", "9:3"], "expected 1 <= LOW <= HIGH"),
    (["--sizes", "two"], "comma-separated whole numbers"),
    (["--range", "4", "--grid", "7"], "observation range 4 does not fit"),
    (["--episodes", "0"], "at least 1"),
    (["--environment", "landscape", "--k-range", "2:5"], "not to the fitness landscape"),
])
def test_bad_input_is_named(argv, message, tmp_path):
    episodes = argv[-1] if argv[0] == "--episodes" else "3"
    done = run_cli(*argv, "--out", str(tmp_path), "--no-plots", "--episodes", episodes)
    assert done.returncode == 2
    assert message in (done.stdout + done.stderr).replace("\n", " ")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be 0 or more"),
    (["--bins", "0"], "--bins must be at least 1"),
    (["--agents", ",,"], "--agents names no agent type"),
    (["--agents", "stigmergy", "--gamma", "0"], "--gamma (the stigmergy fake-reward factor)"),
    (["--agents", "qlearning", "--replays", "-1"], "--replays must be 0 or more"),
    (["--mind", "http://127.0.0.1:9/", "--k-range", "2:5"], "--k-range does not apply to remote minds"),
    (["--mind", "http://127.0.0.1:9/", "--environment", "landscape"], "--environment does not apply"),
    # options that do not apply are refused by name (before, they were silently ignored)
    (["--mind", "http://127.0.0.1:9/,http://127.0.0.1:10/", "--agents", "local", "--sizes", "2"],
     "--agents, --sizes do not apply to remote minds (--mind): the minds are the agents"),
    (["--mind", "http://127.0.0.1:9/", "--engine", "plain"], "--engine does not apply to remote minds"),
    (["--mind", "http://127.0.0.1:9/", "--replays", "5", "--gamma", "0.3"],
     "--replays, --gamma do not apply to remote minds"),
    (["--mind", "http://127.0.0.1:9/", "--timeout", "0"], "--timeout must be more than 0"),
    (["--mind", ","], "--mind names no URL"),
    (["--world", "http://127.0.0.1:9/"], "--world applies only with --mind"),
    (["--oracle-hints", "--timeout", "3"], "--oracle-hints, --timeout apply only with --mind"),
])
def test_more_bad_input_is_named_before_anything_runs(argv, message, tmp_path, capsys):
    assert main(["lambdastar", *argv, "--episodes", "3", "--iterations", "5", "--no-plots",
                 "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("wwm lambdastar: ") and len(err.splitlines()) == 1


def test_an_unusable_out_folder_is_named_before_the_test_runs(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["lambdastar", "--episodes", "3", "--iterations", "5", "--out", str(blocker)]) == 2
    captured = capsys.readouterr()
    assert f"cannot use --out {blocker}" in captured.err and "Υ" not in captured.out   # refused before the run


def test_a_dead_ray_address_fails_at_once(tmp_path, capsys):
    from wwm.server.process import free_port
    address = f"127.0.0.1:{free_port()}"
    assert main(["lambdastar", "--backend", "ray", "--ray-address", address, "--episodes", "3",
                 "--iterations", "5", "--no-plots", "--out", str(tmp_path)]) == 2
    assert f"no Ray cluster answers at {address}" in capsys.readouterr().err


def test_json_is_strict_with_an_undefined_standard_error(tmp_path):
    assert main(["lambdastar", "--agents", "local", "--episodes", "1", "--iterations", "5",
                 "--no-plots", "--out", str(tmp_path)]) == 0

    def refuse(name):
        raise AssertionError(f"{name} in results.json")
    row = json.loads((tmp_path / "results.json").read_text(), parse_constant=refuse)[0]
    assert row["stderr"] is None and len(row["scores"]) == 1


def test_ctrl_c_leaves_no_empty_folder_and_says_so(tmp_path):
    """Ctrl-C used to exit silently, leaving an empty --out folder behind."""
    import signal
    import time

    out = tmp_path / "never"
    proc = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "lambdastar", "--agents", "local",
                             "--episodes", "200000", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert err.strip() == f"wwm lambdastar: interrupted; nothing saved in {out}"
    assert not out.exists()


def test_json_goes_to_stdout_alone(tmp_path):
    done = run_cli("--agents", "random", "--episodes", "5", "--iterations", "10", "--no-plots",
                   "--json", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows[0]["job"]["agent"] == "random" and "Υ" in done.stderr
