"""``wwm run`` says what went wrong, at once (issue 12, items 4 and 8): a mind that raises, a
mind slower than the time-out, --mind and --world swapped, a server still starting."""

from __future__ import annotations

import threading
import time

import pytest
from probes import probe_server

from wwm.cli.main import main
from wwm.store import RunStore

pytestmark = pytest.mark.slow


def wwm_run(capsys, *args: str) -> tuple[int, str, str, float]:
    """``wwm run ARGS`` in this process: exit status, output, errors, seconds."""
    capsys.readouterr()
    started = time.perf_counter()
    status = main(["run", *args])
    seconds = time.perf_counter() - started
    out, err = capsys.readouterr()
    return status, out, err, seconds


def test_a_mind_that_raises_is_reported_at_once_with_its_error(capsys, tmp_path, probe_world):
    """It used to be a 30-s silent stall, then "the mind has not answered for 30 s"."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with probe_server("FoodMind") as mind:
        status, out, err, seconds = wwm_run(capsys, "--mind", mind.url, "--world", probe_world.url, "--db", db)
    print(f"wwm run against a mind that raises: {seconds:.3f} s")
    assert status == 1 and seconds < 3
    # shown as it happens (a line of its own above the table), and as the reason in the table
    assert "step 0 mind-error: Get action: server-error: FoodMind.get_action failed: KeyError: 'food'" in out
    assert "mind failed" in out and "why it ended" in out and "KeyError" in out.split("why it ended")[1]
    (summary,) = RunStore(db).list_runs()
    record = RunStore(db).get_run(summary.id)
    assert record.status == "mind failed"
    ended = [e.text for e in record.events if e.kind == "run-ended"]
    assert ended and "KeyError: 'food'" in ended[0] and "3 times in a row" in ended[0]
    assert [e.kind for e in record.events] == ["mind-error"] * 3 + ["run-ended"]


def test_a_slow_mind_is_told_with_the_query_the_time_out_and_where_to_change_it(capsys, tmp_path, probe_world):
    with probe_server("SlowMind") as mind:
        society = tmp_path / "slow.yaml"
        society.write_text(f"world: {{url: '{probe_world.url}'}}\n"
                           f"mind: {{url: '{mind.url}', args: {{delay: 2}}}}\n"
                           "run: {steps: 3, mind_wait: 0.5}\n")
        status, out, err, seconds = wwm_run(capsys, str(society), "--timeout", "0.2", "--no-record")
    assert status == 1 and seconds < 5
    timeout_lines = [line for line in out.splitlines() if " timeout: " in line]
    assert timeout_lines, out
    assert all("Get action" in line and "0.2 s" in line and "--timeout" in line and "run: {timeout: ...}" in line
               for line in timeout_lines)
    ended = " ".join(out.split("why it ended")[1].split())      # the table's cell, unwrapped
    assert "has not answered for 0.5 s" in ended and "mind_wait" in ended


def test_mind_and_world_swapped_are_refused_before_the_run(capsys, tmp_path, probe_world, probe_mind):
    """It used to be "server-error: ... started a run without giving a run ID"."""
    status, out, err, _ = wwm_run(capsys, "--mind", probe_world.url, "--world", probe_mind.url, "--no-record")
    assert status == 2
    assert f"wwm run: {probe_world.url} is a World server; --mind needs a Mind server" in err
    assert "run ID" not in err + out
    society = tmp_path / "society.yaml"                            # a document: the same check
    society.write_text(f"world: {{url: '{probe_world.url}'}}\nmind: {{url: '{probe_mind.url}'}}\nrun: {{steps: 2}}\n")
    assert wwm_run(capsys, str(society), "--no-record")[0] == 0     # the right way round runs
    society.write_text(f"world: {{url: '{probe_world.url}'}}\nmind: {{url: '{probe_world.url}'}}\n")
    status, out, err, _ = wwm_run(capsys, str(society), "--no-record")
    assert status == 2 and f"{probe_world.url} is a World server; the society's mind needs a Mind server" in err


def test_a_server_started_just_after_the_client_is_waited_for(capsys, probe_mind):
    late = probe_server("ProbeWorld")
    starter = threading.Timer(1.0, late.start)
    starter.start()
    try:
        status, out, err, seconds = wwm_run(capsys, "--mind", probe_mind.url, "--world", late.url,
                                            "--steps", "3", "--no-record")
    finally:
        starter.join()
        late.stop()
    assert status == 0, err
    assert out.count(f"waiting for {late.url} to start") == 1
    assert "3/3" in out and seconds > 1.0


@pytest.fixture(scope="module")
def action_selection():
    """A Mind_AS server, whose minds a society document names."""
    from wwm.server.process import ServerProcess

    with ServerProcess("wwm.selection.mind_as:ActionSelectionMind") as server:
        yield server


def test_a_server_of_the_wrong_role_deep_in_a_society_is_refused_by_its_path(capsys, tmp_path, probe_world,
                                                                            probe_mind, action_selection):
    """A World among an AS's minds (given as {url} or as a bare URL) is named by where the
    document puts it, before any run starts; it used to surface as a member's failed query."""
    society = tmp_path / "society.yaml"
    for wrong in (f"{{url: '{probe_world.url}'}}", f"'{probe_world.url}'"):
        society.write_text(f"world: {{url: '{probe_world.url}'}}\n"
                           f"mind: {{url: '{action_selection.url}', args: {{minds: ['{probe_mind.url}', {wrong}]}}}}\n"
                           "run: {steps: 2}\n")
        status, out, err, _ = wwm_run(capsys, str(society), "--no-record")
        assert status == 2, out + err
        assert err == f"wwm run: {probe_world.url} is a World server; mind.args.minds[1] needs a Mind server\n"


def test_a_member_that_never_listens_is_left_to_the_mind_that_calls_it(capsys, tmp_path, probe_world,
                                                                      probe_mind, action_selection):
    """The top-level servers must be up for the run to start; a member named deeper down is
    waited for as long, then left to its caller: here an AS under min_members 1, which starts
    without it (the run used to be refused: nothing listening there)."""
    from wwm.server.process import free_port

    dead = f"http://127.0.0.1:{free_port()}/"
    society = tmp_path / "society.yaml"
    society.write_text(f"world: {{url: '{probe_world.url}'}}\n"
                       f"mind: {{url: '{action_selection.url}', args: {{min_members: 1, timeout: 1,\n"
                       f"        minds: ['{probe_mind.url}', {{url: '{dead}'}}]}}}}\n"
                       "run: {steps: 3, start_wait: 0.3}\n")
    status, out, err, _ = wwm_run(capsys, str(society), "--no-record")
    assert status == 0, out + err
    assert f"nothing is listening at {dead}" in " ".join(out.split()) and "3/3" in out
    society.write_text(f"world: {{url: '{probe_world.url}'}}\nmind: {{url: '{dead}'}}\nrun: {{start_wait: 0.3}}\n")
    status, out, err, _ = wwm_run(capsys, str(society), "--no-record")   # the top-level mind is needed
    assert status == 1 and f"nothing is listening at {dead}" in err
