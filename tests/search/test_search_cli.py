"""``wwm search`` as a user runs it: the table, the best society saved and runnable, the plots,
JSON; a bad space is one line naming what is wrong; three workers share one study on
PostgreSQL, and a worker killed with SIGKILL mid-trial loses that trial and nothing else."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from wwm.cli.main import main
from wwm.client.society import load
from wwm.search.report import OVER_BUDGET

pytestmark = pytest.mark.slow
WWM = [sys.executable, "-m", "wwm.cli.main"]


def wwm(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WWM, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "100"})


def test_a_search_prints_the_best_saves_it_runnable_and_plots_it(space_file, tmp_path: Path):
    space = space_file()
    best, history, importances = tmp_path / "best.yaml", tmp_path / "history.png", tmp_path / "imp.png"
    done = wwm("search", str(space), "--trials", "12", "--seed", "1", "--best", str(best), "--plot", str(history),
               "--importances", str(importances), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report["trials"]) == 12
    assert "the best of 12 trials" in done.stderr          # the table (on stderr with --json)
    society = load(best)                                   # a society document wwm run takes
    complete = [t for t in report["trials"] if t["state"] == "complete"]
    top = min(complete, key=lambda t: (-t["values"][0], t["servers"], t["number"]))  # ties: fewer servers
    assert society.model_dump(by_alias=True, exclude_none=True)["mind"]["args"]["minds"] == \
        top["society"]["mind"]["args"]["minds"]
    ran = wwm("run", str(best), "--steps", "5", "-q")
    assert ran.returncode == 0, ran.stderr
    for png in (history, importances):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("change", "named"), [
    ({"choose": {"methods": ["no-such-method"]}}, "choose.methods"),
    ({"choose": {"strengths": {"low": 0, "high": 2}}}, "strengths"),
    ({"choose": {"members": {"min": 9}}}, "choose.members.min is 9"),
    ({"choose": {"args": {"nobody.q": {"low": 0, "high": 1}}}}, "no candidate named 'nobody'"),
    ({"minds": {}, "mind": {"url": "http://127.0.0.1:9/"}}, "no candidate minds"),
])
def test_a_bad_space_is_one_line_naming_what_is_wrong(space_file, capsys, change, named):
    # (the command's function in this process: a traceback would be an exception here)
    assert main(["search", str(space_file(**change)), "--trials", "2"]) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err, err


def test_three_workers_share_a_study_and_a_killed_worker_loses_only_its_running_trial(space_file, postgres):
    storage = postgres.new_schema()
    space = space_file(run={"steps": 60, "timeout": 10.0})
    budget = 24
    workers = [subprocess.Popen([*WWM, "search", str(space), "--storage", storage, "--study", "shared",
                                 "--trials", str(budget), "--parallel", "1", "--seed", "7", "--worker", str(k), "-q"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
               for k in range(3)]
    try:
        # kill worker 1 once it has finished a trial and is running another: seen so while the
        # worker is frozen (SIGSTOP), so that the trial cannot finish between the look and the kill
        def running_after_a_finished_one() -> int | None:
            try:
                trials = optuna.load_study(study_name="shared", storage=storage).get_trials(deepcopy=False)
            except KeyError:        # the study is not made yet
                return None
            mine = [t for t in trials if t.user_attrs.get("worker") == 1]
            running = [t.number for t in mine if t.state == TrialState.RUNNING]
            return running[0] if running and any(t.state.is_finished() for t in mine) else None

        victim = None
        deadline = time.monotonic() + 90
        while victim is None and time.monotonic() < deadline:
            if running_after_a_finished_one() is not None:
                os.killpg(workers[1].pid, signal.SIGSTOP)
                victim = running_after_a_finished_one()
                os.killpg(workers[1].pid, signal.SIGKILL if victim is not None else signal.SIGCONT)
            time.sleep(0.05)
        assert victim is not None, "worker 1 never had a trial running after a finished one"
        for k in (0, 2):
            assert workers[k].wait(120) == 0, workers[k].stderr.read().decode() if workers[k].stderr else ""
    finally:
        for w in workers:
            if w.poll() is None:
                os.killpg(w.pid, signal.SIGKILL)
    trials = optuna.load_study(study_name="shared", storage=storage).get_trials(deepcopy=False)
    # an ask past the budget in a race between workers is dropped at once, marked over budget
    # (failed with no reason too, but never run): not a lost trial
    dropped = [t for t in trials if t.user_attrs.get(OVER_BUDGET)]
    assert all(t.state == TrialState.FAIL and "scores" not in t.user_attrs for t in dropped)
    lost = [t for t in trials if t.state == TrialState.FAIL and "reason" not in t.user_attrs and t not in dropped]
    assert [t.number for t in lost] == [victim], [(t.number, t.user_attrs) for t in lost]  # the killed trial ...
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    # ... and the budget made up by the others, exactly
    spent = [t for t in trials if t not in lost and t not in dropped]
    assert len(spent) == budget
    assert {t.user_attrs.get("worker") for t in trials if t.state.is_finished() and t not in lost} >= {0, 1, 2}


def test_a_world_that_does_not_answer_stops_the_search_before_it_starts(space_file, signal_bed):
    done = wwm("search", str(space_file(world={"url": "http://127.0.0.1:9/"})), "--trials", "5")
    assert done.returncode == 2 and "the World at http://127.0.0.1:9/ does not answer" in done.stderr
    done = wwm("search", str(space_file(world={"url": signal_bed["ab"]})), "--trials", "5")
    assert done.returncode == 2 and "is a mind server, not a world" in done.stderr
