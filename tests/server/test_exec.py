"""The exec transports on real processes: both modes of section 11.4, and programs that
crash, hang, print garbage or too much, answer the wrong query, or cannot be started."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind
from wwm.protocol.messages import Query
from wwm.server.exec import PerQueryTransport, PersistentTransport

BEHAVE = Path(__file__).with_name("behave.sh")


def command(mode: str = "ok") -> list[str]:
    return ["sh", str(BEHAVE), mode]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def refusal_of(coro) -> Refusal:
    with pytest.raises(Refusal) as caught:
        await coro
    return caught.value


# ---- one process per query (11.4.1) -----------------------------------------------------------

async def test_per_query_runs_one_process_per_query(tmp_path):
    mind = RemoteMind(PerQueryTransport(command(), workdir=tmp_path, timeout=5))
    await mind.new_run()
    assert mind.run_id.startswith("p")                     # the program's own run ID
    a, b = await mind.get_action("x"), await mind.get_action("x")
    assert a.action.endswith("n=1") and b.action.endswith("n=1")   # each a fresh process ...
    assert a.action != b.action                                      # ... with its own pid
    assert await mind.end_run() == 1.0


async def test_the_program_works_in_the_state_directory(tmp_path):
    script = tmp_path / "pwd.sh"
    script.write_text('sed "/^<\\/xml>/q" > /dev/null; pwd > where.txt\n'
                      'printf \'<xml>\\n<response name="New run">\\n'
                      '<data name="mind run ID">1</data>\\n</response>\\n</xml>\\n\'\n')
    state = tmp_path / "state"
    state.mkdir()
    await RemoteMind(PerQueryTransport(["sh", str(script)], workdir=state)).new_run()
    assert (state / "where.txt").read_text().strip() == str(state)


async def test_a_crash_is_reported_with_its_status_and_error_output(tmp_path):
    transport = PerQueryTransport(command("crash"), workdir=tmp_path, timeout=5)
    refusal = await refusal_of(transport.exchange(Query("Get action", {"state": "x"})))
    assert refusal.code == "server-error"
    assert "exited with status 3" in refusal.text and "something broke inside" in refusal.text


async def test_a_hang_is_a_timeout_and_the_program_is_killed(tmp_path):
    transport = PerQueryTransport(command("hang"), workdir=tmp_path, timeout=0.5)
    start = time.monotonic()
    refusal = await refusal_of(transport.exchange(Query("Get action", {"state": "x"})))
    assert refusal.code == "timeout" and "within 0.5 s" in refusal.text
    assert time.monotonic() - start < 3
    await asyncio.sleep(0.1)
    assert not any("behave.sh hang" in _cmdline(p) for p in os.listdir("/proc") if p.isdigit())


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("mode,code,words", [
    ("garbage", "server-error", "not a response to 'Get action'"),
    ("flood", "server-error", "printed a line longer than 65536 bytes"),
    ("wrongname", "server-error", "answered 'Get state' to the query 'Get action'"),
    ("refuse", "bad-parameters", "I only take grid states"),
])
async def test_bad_answers_are_refusals_that_say_what_went_wrong(tmp_path, mode, code, words):
    transport = PerQueryTransport(command(mode), workdir=tmp_path, timeout=5, max_output=65536)
    refusal = await refusal_of(transport.exchange(Query("Get action", {"state": "x"})))
    assert refusal.code == code and words in refusal.text
    if mode == "garbage":
        assert "hello world, this is not XML" in refusal.text


async def test_many_lines_beyond_the_cap_are_refused(tmp_path):
    script = tmp_path / "lines.sh"
    script.write_text("sed '/^<\\/xml>/q' > /dev/null; printf '<xml>\\n'; yes '<data>' | head -n 100000\n")
    transport = PerQueryTransport(["sh", str(script)], workdir=tmp_path, timeout=5, max_output=65536)
    refusal = await refusal_of(transport.exchange(Query("New run")))
    assert refusal.code == "server-error" and "more than 65536 bytes for one response" in refusal.text


async def test_a_program_that_cannot_start_is_unreachable(tmp_path):
    transport = PerQueryTransport([str(tmp_path / "no-such-program")], workdir=tmp_path)
    refusal = await refusal_of(transport.exchange(Query("New run")))
    assert refusal.code == "unreachable" and "cannot start no-such-program" in refusal.text


def test_bad_transport_settings_are_refused():
    with pytest.raises(ValueError, match="no command"):
        PerQueryTransport([])
    with pytest.raises(ValueError, match="timeout must be positive"):
        PersistentTransport(["sh"], timeout=0)


# ---- one process per run (11.4.2) -----------------------------------------------------------

async def test_persistent_keeps_one_process_for_the_run_and_ends_it(tmp_path):
    transport = PersistentTransport(command(), workdir=tmp_path, timeout=5)
    mind = RemoteMind(transport)
    assert (await refusal_of(mind.transport.exchange(Query("Get action", {"state": "x"})))).code == "unknown-run"
    await mind.new_run()
    pid = transport.pid
    assert mind.run_id == f"p{pid}" and alive(pid)
    got = [(await mind.get_action("x")).action for _ in range(3)]
    assert got == [f"pid={pid} n={n}" for n in (2, 3, 4)]   # one process, reading query after query
    assert await mind.end_run() == 5.0
    await asyncio.sleep(0.2)
    assert not alive(pid) and transport.pid is None
    refusal = await refusal_of(transport.exchange(Query("Get action", {"mind run ID": "x", "state": "x"})))
    assert refusal.code == "run-ended"


async def test_persistent_crash_ends_the_run_with_a_clear_refusal(tmp_path):
    transport = PersistentTransport(command("crash"), workdir=tmp_path, timeout=5)
    mind = RemoteMind(transport)
    await mind.new_run()
    refusal = await refusal_of(mind.get_action("x"))
    assert refusal.code == "server-error"
    assert "exited with status 3" in refusal.text and "something broke inside" in refusal.text
    again = await refusal_of(mind.get_action("x"))
    assert again.code == "run-ended" and "exited with status 3" in again.text


async def test_persistent_late_answer_is_thrown_away_and_the_run_goes_on(tmp_path):
    transport = PersistentTransport(command("slowfirst"), workdir=tmp_path, timeout=0.6)
    mind = RemoteMind(transport)
    await mind.new_run()
    pid = transport.pid
    assert (await refusal_of(mind.get_action("x"))).code == "timeout"
    assert alive(pid)                                           # a slow program is not killed
    # the next query waits out the late answer (n=2), throws it away and gets its own (n=3)
    assert (await mind.get_action("x")).action == f"pid={pid} n=3"
    await mind.end_run()


async def test_persistent_hang_stops_the_program_after_a_second_time_out(tmp_path):
    transport = PersistentTransport(command("hangafter"), workdir=tmp_path, timeout=0.3)
    mind = RemoteMind(transport)
    await mind.new_run()
    pid = transport.pid
    await mind.get_action("x")
    assert (await refusal_of(mind.get_action("x"))).code == "timeout"
    second = await refusal_of(mind.get_action("x"))
    assert second.code == "timeout" and "was stopped" in second.text
    await asyncio.sleep(0.2)
    assert not alive(pid)
    assert (await refusal_of(mind.get_action("x"))).code == "run-ended"


async def test_persistent_garbage_stops_the_program_at_once(tmp_path):
    transport = PersistentTransport(command("garbage"), workdir=tmp_path, timeout=5)
    mind = RemoteMind(transport)
    await mind.new_run()
    pid = transport.pid
    start = time.monotonic()
    refusal = await refusal_of(mind.get_action("x"))
    assert refusal.code == "server-error" and "hello world" in refusal.text
    assert time.monotonic() - start < 2                         # no waiting for a time-out
    await asyncio.sleep(0.2)
    assert not alive(pid)
    assert (await refusal_of(mind.get_action("x"))).code == "run-ended"


async def test_a_dropped_run_kills_its_program(tmp_path):
    transport = PersistentTransport(command(), workdir=tmp_path, timeout=5)
    mind = RemoteMind(transport)
    await mind.new_run()
    pid = transport.pid
    assert alive(pid)
    del mind, transport
    gc.collect()
    await asyncio.sleep(0.2)
    assert not alive(pid)


async def test_a_run_the_server_drops_for_idleness_kills_its_program(tmp_path):
    """11.4.2: a persistent program whose client vanished does not outlive its run."""
    from wwm.cli.serve_exec import exec_class
    from wwm.server import make_app

    cls = exec_class(command(), mode="persistent", workdir=tmp_path, timeout=5)
    app = make_app(cls, url="http://127.0.0.1:1/", idle_seconds=0.05)
    started = await app.dispatcher.answer(Query("New run"))
    assert started.refusal is None
    (run,) = app.dispatcher.runs.runs.values()
    pid = run.obj.transport.pid
    assert alive(pid) and run.obj.run_id == f"p{pid}"          # the program's ID, not the server's
    assert run.run_id != run.obj.run_id
    del run
    await asyncio.sleep(0.1)
    assert app.dispatcher.runs.expire_idle() == 1
    gc.collect()
    await asyncio.sleep(0.2)
    assert not alive(pid)
