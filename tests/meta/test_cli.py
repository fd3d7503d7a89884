"""``wwm meta`` driven as a person would: a real process with its stdin fed line by line;
then the saved computation is read back by other processes (tree, list, forget)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .test_transcript import LINES, SCREENS

WWM = [sys.executable, "-m", "wwm.cli.main", "meta"]


def wwm_meta(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(WWM + list(args), input=stdin, capture_output=True, text=True, timeout=60, check=False,
                          env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


@pytest.mark.slow
def test_a_person_typing_the_original_session_sees_its_screens_and_the_answer(tmp_path):
    db = tmp_path / "meta.db"
    done = wwm_meta("act", "test", "--db", str(db), stdin="\n".join(LINES) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    position = 0
    for screen in SCREENS:  # every screen, in order, with the line typed after it
        found = out.find(screen, position)
        assert found >= 0, f"screen not shown in order: {screen!r}"
        position = found + len(screen)
    assert "Meta(A) returned ''" in out
    assert "new state: the state of an agent who has seen (the observation (the string with list" in out
    assert "saved as computation 1" in out

    # Another process reads the stored computation back as a tree.
    page = tmp_path / "tree.html"
    shown = wwm_meta("tree", "--db", str(db), "--steps", "--html", str(page))
    assert shown.returncode == 0, shown.stderr
    assert "which character is it, as a letter?" in page.read_text()
    assert "@4: which character is it, as a letter?" in shown.stdout
    assert "budget 9999999, spent 2" in shown.stdout
    assert "→ out of budget, sorry" in shown.stdout
    assert ">>> ask$1 say hi" in shown.stdout
    listed = wwm_meta("list", "--db", str(db))
    assert "act 'test'" in listed.stdout


@pytest.mark.slow
def test_input_ending_early_is_reported_not_a_traceback():
    done = wwm_meta(stdin="view #0\nview #1\n")
    assert done.returncode == 1
    assert "input ended before the computation finished" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_memo_persists_between_processes_and_a_bad_answer_can_be_forgotten(tmp_path):
    db = str(tmp_path / "memo.db")
    first = wwm_meta("sort", "3", "1", "2", "--db", db, "--rounded", "--split", "all", "-n", "10000")
    assert first.returncode == 0, first.stderr
    assert "sorted: 1 2 3" in first.stdout
    second = wwm_meta("sort", "3", "1", "2", "--db", db, "--rounded", "--split", "all", "-n", "10000")
    assert "sorted: 1 2 3" in second.stdout
    assert ", 0 calls to A," in second.stdout  # a new process, every screen answered from the file
    from wwm.meta.store import Store

    key = next(iter(Store(db).memo.answers))
    forgot = wwm_meta("forget", key[:12], "--db", db)
    assert forgot.stdout.strip() == "forgot 1 memo answer"
    third = wwm_meta("sort", "3", "1", "2", "--db", db, "--rounded", "--split", "all", "-n", "10000")
    assert ", 1 calls to A," in third.stdout


@pytest.mark.parametrize("argv, says", [
    (["act", "-a", "nobody"], "unknown A 'nobody'"),
    (["sort", "1", "-n", "-3"], "budget must be 0 or more"),
    (["tree", "--db", "/nonexistent/x.db"], "no such file /nonexistent/x.db"),
    (["act", "-a", "lines:/nonexistent"], "no file of lines at /nonexistent"),
    (["tree", "--db", __file__], "cannot be used as a meta-execution database"),
    (["sort", "1", "--db", "/nonexistent/dir/x.db"], "cannot be used as a meta-execution database"),
    (["forget", "ab", "--db", __file__], "cannot be used as a meta-execution database"),
    (["list", "--db", "/dev/null"], "no such file /dev/null"),
    (["act", "-a", f"lines:{sys.executable}"], f"cannot read the lines in {sys.executable}: 'utf-8' codec"),
])
def test_bad_settings_and_files_are_explained(argv, says, capsys):
    from wwm.cli.main import main

    assert main(["meta", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.slow
def test_the_loop_goes_on_with_the_next_observation_and_the_state_it_left():
    # Act on "test" as in the original, then on "a" with the state that act left behind.
    # Screens the person has already answered come from the memo (and say so): the first
    # screen of every act, and the decoding of an empty string.
    second = ["reply the string with list of characters (the empty list)", "reply #0"]
    done = wwm_meta(stdin="\n".join(LINES + ["a"] + second + [""]) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("Meta(A) returned ''") == 2
    later = out.split("next observation")[1]
    assert ("what string should be returned by an agent in state #0 who observes #1?\n"
            "[Remaining budget is 100000000]\n>>> view #0    (answered from the memo)") in later
    # its state #0 is what the first act's A chose
    assert "the state of an agent who has seen #2 and output #3\n[Remaining budget is 99999999]" in later
    assert ("is #0 empty? (respond yes/no)\n[Remaining budget is 100000000]\n"
            ">>> reply yes    (answered from the memo)") in later
    assert "2 calls to A, 3 answered from the memo" in later
    assert "──── a copy of A that has typed 1 line ────" in later


@pytest.mark.slow
def test_a_session_cut_short_resumes_from_the_answers_saved_as_typed(tmp_path):
    db = str(tmp_path / "resume.db")
    cut = wwm_meta("act", "--db", db, stdin="\n".join(LINES[:8]) + "\n")
    assert cut.returncode == 1 and "input ended" in cut.stderr
    resumed = wwm_meta("act", "--db", db, stdin="\n".join(LINES[8:]) + "\n")
    assert resumed.returncode == 0, resumed.stderr
    # The eight answers typed before the cut are replayed; the person types only the rest.
    assert resumed.stdout.count("(answered from the memo)") == 8
    assert ">>> ask$1 say hi    (answered from the memo)" in resumed.stdout
    assert "Meta(A) returned ''" in resumed.stdout
    assert "8 calls to A, 8 answered from the memo" in resumed.stdout


def test_a_file_of_lines_can_be_a(tmp_path, capsys):
    from wwm.cli.main import main

    script = tmp_path / "session.txt"
    script.write_text("\n".join(LINES) + "\n")
    assert main(["meta", "act", "-a", f"lines:{script}", "--tree"]) == 0
    out = capsys.readouterr().out
    assert "Meta(A) returned ''" in out and "→ out of budget, sorry" in out
    script.write_text("\n".join(LINES[:3]) + "\n")
    assert main(["meta", "act", "-a", f"lines:{script}"]) == 1
    assert "the script ran out of lines at the observation '@0: what is the first element" in capsys.readouterr().err


def test_options_given_before_the_subcommand_are_kept(tmp_path, capsys):
    # argparse used to let each subcommand's defaults overwrite them: --budget 5 ran with 10^8
    # and --db was silently not written.
    from wwm.cli.main import main
    from wwm.meta.store import Store

    script = tmp_path / "a.txt"
    script.write_text("reply hi\n")
    db = tmp_path / "top.db"
    assert main(["meta", "--budget", "5", "--db", str(db), "-a", f"lines:{script}", "hch", "q"]) == 0
    (call,) = Store(db).load_calls(1)
    assert (call.budget, call.steps[0].observation) == (5, "q\n[Remaining budget is 5]")
    assert main(["meta", "-n", "5", "hch", "q", "-n", "7", "-a", f"lines:{script}", "--tree"]) == 0
    assert "budget 7, spent 1" in capsys.readouterr().out  # the later one wins
    assert main(["meta", "--budget", "50000", "sort", "2", "1"]) == 0  # A is still scripted for sort
    assert "the sort itself spent 24 of its budget of 50000" in capsys.readouterr().out


@pytest.mark.parametrize("url, says", [
    ("http://127.0.0.1:9", "nothing is listening at"),   # the discard port: nothing listens on loopback
    ("http://localhost:abc", "Port could not be cast to integer"),
])
def test_an_a_that_cannot_be_reached_is_one_line(url, says, capsys):
    from wwm.cli.main import main

    assert main(["meta", "act", "-a", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wwm meta: A at {url} cannot be used:") and says in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.slow
def test_an_a_that_fails_in_the_middle_of_a_computation_is_one_line():
    from pathlib import Path

    from wwm.server.process import ServerProcess

    here = str(Path(__file__).resolve().parent)
    with ServerProcess("broken_mind:BrokenMind", env={"PYTHONPATH": here}) as a:
        done = wwm_meta("act", "-a", a.url)
    assert done.returncode == 1
    assert done.stderr.startswith("wwm meta: A did not answer: server-error: this mind is broken on purpose")
    assert "Traceback" not in done.stderr


def test_a_tree_page_that_cannot_be_written_is_one_line(tmp_path, capsys):
    from wwm.cli.main import main

    db = str(tmp_path / "t.db")
    assert main(["meta", "sort", "2", "1", "--db", db]) == 0
    assert main(["meta", "tree", "--db", db, "--html", str(tmp_path / "no" / "dir" / "t.html")]) == 2
    err = capsys.readouterr().err
    assert err == f"wwm meta tree: cannot write {tmp_path}/no/dir/t.html: No such file or directory\n"


@pytest.mark.slow
def test_one_ctrl_c_stops_a_person_at_the_prompt():
    # asyncio.run turns the first Ctrl-C into a task cancellation that a blocked input()
    # never sees: the person had to press it twice.
    import os
    import select
    import signal
    import time

    process = subprocess.Popen(WWM, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    try:
        shown, deadline = b"", time.monotonic() + 30
        while b"[Remaining budget is 100000000]" not in shown and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 1)[0]:
                shown += os.read(process.stdout.fileno(), 4096)
        assert b"[Remaining budget is 100000000]" in shown
        time.sleep(0.2)  # now waiting for the person's line
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 130
        err = process.stderr.read().decode()
        assert "wwm meta: interrupted" in err and "Traceback" not in err
    finally:
        process.kill()
        process.wait()


def test_another_programs_database_is_named_and_left_untouched(tmp_path, capsys):
    import sqlite3

    from wwm.cli.main import main

    other = tmp_path / "runs.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE runs (id INTEGER)")
    before = other.read_bytes()
    for argv in (["list"], ["tree"], ["forget", "abcd"]):
        assert main(["meta", *argv, "--db", str(other)]) == 2
        assert f"{other} is not a meta-execution database" in capsys.readouterr().err
    assert other.read_bytes() == before  # no meta-execution tables added to it


@pytest.mark.slow
def test_a_program_as_a_shows_a_live_count_on_a_terminal():
    # A network A that never replies spends its whole budget one round trip per operation;
    # a terminal now shows the count going up instead of nothing.
    import os
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(WWM + ["sort", "5", "3", "9", "1", "--no-memo"], stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower,
                               env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "TERM": "xterm"})
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0
    text = shown.decode(errors="replace")
    assert "Meta(A) at work: " in text and "calls to A" in text and " 1 3 5 9" in text


def test_sort_deep_enough_to_starve_a_tenth_split_says_it_ran_out_of_budget(capsys):
    from wwm.cli.main import main

    numbers = [str(n) for n in range(12, 0, -1)]
    assert main(["meta", "sort", *numbers]) == 0  # sort hands all but one down by default
    assert "sorted: 1 2 3 4 5 6 7 8 9 10 11 12" in capsys.readouterr().out
    # A tenth of 10^8 per level is gone after about 8 levels; the scripted A says so when it
    # must reply with no budget, and its callers pass that up instead of a wrong list.
    assert main(["meta", "sort", *numbers, "--split", "tenth"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("wwm meta: Meta(A) could not read the answer")
    assert "the first answer was '<<out of budget: this question needed more operations" in err


def test_a_question_with_brackets_is_asked_as_typed(tmp_path, capsys):
    from wwm.cli.main import main

    script = tmp_path / "a.txt"
    script.write_text("reply an empty pair of brackets\n")
    assert main(["meta", "hch", "what is [] here?", "-a", f"lines:{script}", "--tree"]) == 0
    out = capsys.readouterr().out
    assert "HCH replied an empty pair of brackets" in out and "what is [] here?" in out


def test_text_that_looks_like_markup_is_shown_as_it_is(tmp_path, capsys):
    # rich read "[/]" in an observation as a closing tag (a traceback) and "[red]" as colour.
    from wwm.cli.main import main

    db = str(tmp_path / "m.db")
    assert main(["meta", "act", "[/]", "-a", "scripted", "--db", db]) == 0
    assert "Meta(A) returned '[/]'" in capsys.readouterr().out
    assert main(["meta", "list", "--db", db]) == 0
    assert "act '[/]'" in capsys.readouterr().out
    script = tmp_path / "a.txt"
    script.write_text("reply [red]x\n")
    assert main(["meta", "hch", "q", "-a", f"lines:{script}"]) == 0
    assert "HCH replied [red]x" in capsys.readouterr().out
