"""``wwm compare``: a table and a plot of every chosen method's scores over seeds, and clear
errors for bad input."""

from __future__ import annotations

import json
import statistics

import pytest

from wwm.cli.main import main
from wwm.selection.compare import run_compare


def test_compare_prints_a_table_saves_a_plot_and_the_scores(tmp_path, capsys):
    plot, scores = tmp_path / "methods.png", tmp_path / "scores.json"
    code = main(["compare", "--world", "ant", "--methods", "w=q,mwu,hierarchical-q", "--seeds", "2",
                 "--steps", "60", "--train", "300", "--plot", str(plot), "--scores", str(scores)])
    out = capsys.readouterr().out
    assert code == 0
    for name in ("w=q", "min-worst-unhappiness", "hierarchical-q", "mean ± sd"):
        assert name in out
    assert plot.stat().st_size > 2000 and plot.read_bytes()[:4] == b"\x89PNG"
    doc = json.loads(scores.read_text())
    assert doc["seeds"] == [0, 1] and set(doc["scores"]) == {"w=q", "min-worst-unhappiness", "hierarchical-q"}
    assert all(len(v) == 2 for v in doc["scores"].values())
    assert [row["method"] for row in doc["summary"]][0] in doc["scores"]
    for method, values in doc["scores"].items():  # each row: mean ± sd over the seeds
        line = next(line for line in out.splitlines() if f" {method} " in line)
        assert f"{statistics.fmean(values):.1f} ± {statistics.stdev(values):.1f}" in line


def test_json_prints_the_scores_alone_on_stdout(capsys):
    assert main(["compare", "--methods", "w=q", "--seeds", "1", "--steps", "10", "--train", "20", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["scores"].keys() == {"w=q"} and "w=q" in captured.err


def test_the_same_seed_gives_the_same_scores():
    a = run_compare("house", ["w=q", "max-collective-happiness"], [3], steps=40, train=200)
    b = run_compare("house", ["w=q", "max-collective-happiness"], [3], steps=40, train=200)
    assert a.scores == b.scores


def test_bad_input_is_named(capsys):
    assert main(["compare", "--methods", "w=q,loudest"]) == 2
    assert "unknown method 'loudest'" in capsys.readouterr().err
    assert main(["compare", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err


def test_w_learning_with_full_space_learns_over_all_of_x():
    result = run_compare("ant", ["w-learning-full", "w-learning-subspaces"], [0], steps=50, train=200)
    assert set(result.scores) == {"w-learning-full", "w-learning-subspaces"}


def test_strengths_reach_the_minds_and_a_wrong_count_is_refused(capsys):
    plain = run_compare("ant", ["w=q"], [0], steps=300, train=1000)
    again = run_compare("ant", ["w=q"], [0], steps=300, train=1000, strengths="1,1,1")
    homer_first = run_compare("ant", ["w=q"], [0], steps=300, train=1000, strengths="1,50,1")
    assert plain.scores == again.scores            # strength 1 is the mind as it is
    assert plain.scores != homer_first.scores      # a strong homer changes what the ant does
    assert main(["compare", "--strengths", "1,2"]) == 2
    err = capsys.readouterr().err
    assert "--strengths needs 3 numbers, one per goal mind (ant.food, ant.nest, ant.predator)" in err


def test_bad_strengths_outputs_and_method_lists_are_one_line_errors_before_any_run(tmp_path, capsys):
    """Each of these used to end in a traceback (strengths, outputs: after the whole run)."""
    cases = [
        (["--strengths", "a,b,c"], "--strengths must be numbers, got 'a'"),
        (["--strengths", "1,0,1"], "--strengths must be positive"),
        (["--strengths", "1,inf,1"], "--strengths must be positive"),
        (["--plot", str(tmp_path / "missing" / "x.png")],
         "the folder " + str(tmp_path / "missing") + " does not exist"),
        (["--scores", str(tmp_path / "missing" / "x.json")], "does not exist"),
        (["--plot", str(tmp_path)], "is a folder"),
        (["--methods", ",,"], "no method named in ',,'"),
    ]
    for argv, text in cases:
        assert main(["compare", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert text in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_method_named_twice_runs_once():
    result = run_compare("ant", ["w=q", "w=q"], [0], steps=5, train=5)
    assert result.scores == {"w=q": result.scores["w=q"]} and len(result.scores["w=q"]) == 1


def test_no_childhood_runs_untrained_minds(capsys):
    """--train 0 is allowed: the goal minds start from nothing (it used to crash on a run
    length of 0)."""
    assert main(["compare", "--train", "0", "--steps", "20", "--seeds", "1", "--methods", "w=q,w-learning"]) == 0
    out = capsys.readouterr().out
    assert "w=q" in out and "w-learning" in out and "childhood 0 steps" in out


@pytest.mark.slow
def test_ctrl_c_stops_a_comparison_at_once():
    """SIGINT used to be lost: the comparison ran on to its end (minutes) and saved its files.
    The command runs on a terminal (a pseudo-terminal), as a user would run it; Ctrl-C is sent
    once it shows its progress bar ("comparing"), i.e. once the comparison has started, however
    long the start-up took on a busy machine."""
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys

    main_fd, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "wwm.cli.main", "compare", "--steps", "3000", "--train", "50000", "--seeds", "3"],
        stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal, env={**os.environ, "COLUMNS": "100"})
    os.close(terminal)
    shown = b""
    try:
        while b"comparing" not in shown:  # the bar, drawn when the comparison starts
            ready, _, _ = select.select([main_fd], [], [], 120)
            assert ready and proc.poll() is None, shown.decode(errors="replace")
            shown += os.read(main_fd, 4096)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)  # at once: minutes before its end (the bound only stops a hang)
        while select.select([main_fd], [], [], 0)[0]:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the terminal's other end closed with the process
                break
            if not chunk:
                break
            shown += chunk
    finally:
        proc.kill()
        os.close(main_fd)
    assert proc.returncode == 130
    assert "wwm compare: interrupted; no scores saved" in shown.decode(errors="replace")


_INTERRUPT_AT_RANDOM = """
import contextlib, gc, io, json, os, random, signal, sys, threading, warnings
from wwm.cli.main import main

random.seed(int(sys.argv[2]))
with contextlib.redirect_stderr(io.StringIO()):
    main(["compare", "--seeds", "0"])  # imports done: an interrupt then lands in the comparison
codes, unawaited = [], 0
for _ in range(int(sys.argv[1])):
    threading.Timer(random.uniform(0.05, 0.6), os.kill, (os.getpid(), signal.SIGINT)).start()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(io.StringIO()), \\
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        codes.append(main(["compare", "--steps", "3000", "--train", "50000", "--seeds", "3"]))
        gc.collect()
    unawaited += sum("never awaited" in str(w.message) for w in caught)
print(json.dumps({"codes": codes, "unawaited": unawaited}))
"""


@pytest.mark.slow
def test_ctrl_c_at_any_moment_leaves_no_query_half_sent():
    """Ctrl-C used to raise KeyboardInterrupt wherever the interpreter was, sometimes between
    making a query's coroutine and awaiting it ("coroutine 'QLearningMind.get_action' was never
    awaited" on stderr, about one interrupt in ten). Now it cancels the run at an await."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _INTERRUPT_AT_RANDOM, "40", "7"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["codes"] == [130] * 40, result
    assert result["unawaited"] == 0, result
