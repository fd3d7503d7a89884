"""Defects found reviewing pipelining (queries in order on one connection) and the run loop
around it: each test failed before its fix."""

from __future__ import annotations

import asyncio
import json
import struct
import subprocess
import sys

import pytest
from probes import ProbeMind, probe_server

from wwm import Outcome, RunStarted, World
from wwm.client import RemoteMind
from wwm.client.runner import Runner, RunSettings
from wwm.protocol.errors import Refusal
from wwm.server.dispatch import Dispatcher
from wwm.server.tcp import start as start_tcp

HEADER = struct.Struct(">I")


def sized(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body


# ---- the lean HTTP client ---------------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-6\r\nabcdefgh\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\nabcdef",
])
def test_a_negative_size_is_refused_not_looped_on(reply):
    """A chunk size of -6 sent the chunk reader back to the start of the same line, forever,
    inside data_received (the event loop itself hung, so no time-out could fire); a negative
    Content-Length cut the reply out of its own header. (Parsed in another process, which a
    loop forever cannot take down with it.)"""
    program = ("import sys; from wwm.client.http11 import _parse, HttpError\n"
               "try:\n    print(repr(_parse(bytearray(sys.stdin.buffer.read()))))\n"
               "except HttpError as exc:\n    print('HttpError', exc)\n")
    try:
        done = subprocess.run([sys.executable, "-c", program], input=reply, capture_output=True, timeout=10,
                              check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("the parser loops forever")
    assert done.stdout.startswith(b"HttpError"), done.stdout + done.stderr


# ---- the TCP binding's server ---------------------------------------------------------------

async def read_frame(reader: asyncio.StreamReader) -> dict:
    (length,) = HEADER.unpack(await reader.readexactly(4))
    return json.loads(await reader.readexactly(length))


def frame(doc: dict) -> bytes:
    body = json.dumps(doc).encode()
    return HEADER.pack(len(body)) + body


async def test_an_oversized_frame_is_refused_after_the_answers_to_the_frames_before_it():
    """The too-large refusal was written at once, ahead of the answer to a query still being
    worked on, which was then never sent: the client took the refusal for that query's answer."""
    server = await start_tcp(Dispatcher(ProbeMind, url="http://probe/"), "127.0.0.1", 0, 1000)
    port = server.sockets[0].getsockname()[1]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(frame({"wwm": "1.0", "query": "New run"}))
        run_id = (await read_frame(reader))["data"]["mind run ID"]
        writer.write(frame({"wwm": "1.0", "query": "Get action", "data": {"mind run ID": run_id, "state": "slow:0.2"}}))
        await asyncio.sleep(0.05)  # the Get action is being worked on
        writer.write(HEADER.pack(5000))
        first = await asyncio.wait_for(read_frame(reader), 5)
        second = await asyncio.wait_for(read_frame(reader), 5)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # then the connection is closed
        writer.close()
    finally:
        server.close()
    assert first["data"]["action"] == "echo:slow:0.2"
    assert second["refusal"]["code"] == "too-large"


@pytest.mark.slow
async def test_an_answered_inform_is_kept_when_the_get_action_behind_it_is_late_over_tcp():
    """The TCP server held the answer to Inform until the Get action sent with it was answered
    too, so the Inform timed out in the client (the time-out fired on the wrong query, and
    what Inform gave was lost) when only the Get action was late. Over HTTP it is kept."""
    with probe_server("ProbeMind", extra=["--tcp-port", "0"]) as server:
        async with RemoteMind(server.url, transport="tcp", timeout=5) as mind:
            await mind.new_run()
            informed, asked = await mind.query_in_order(
                ("inform", {"state": "a", "score": 1.5}), ("get_action", {"state": "slow:1"}), within=0.4)
            again = await mind.get_action("b")
    assert informed == 3.0
    assert isinstance(asked, Refusal) and asked.code == "timeout" and "Get action" in asked.text
    assert again.action == "echo:b"


# ---- the run loop ---------------------------------------------------------------------------

class LoggedWorld(World):
    """A counter world that logs each query it receives into ``log``."""

    def __init__(self, log: list) -> None:
        self.log = log
        self.n = 0

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        return RunStarted()

    async def get_state(self) -> str:
        self.log.append(("get_state", f"n={self.n}"))
        return f"n={self.n}"

    async def execute_action(self, action: str) -> Outcome:
        self.n += int(action)
        self.log.append(("execute", f"n={self.n}"))
        return Outcome(f"n={self.n}", 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("binding", ["http", "tcp"])
async def test_a_pipelined_get_action_that_times_out_is_followed_by_asking_the_world_again(binding):
    """Under 'requery', a Get action that timed out is abandoned and the World asked again
    before the Mind is. When it was the Get action sent with Inform that timed out (pipelining
    is then turned off), the Mind was asked again about the old state straight away."""
    log: list = []
    extra = ["--tcp-port", "0"] if binding == "tcp" else []
    with probe_server("SlowOnceMind", extra=extra) as server:
        mind = RemoteMind(server.url, transport=binding)
        get_action, query_in_order = mind.get_action, mind.query_in_order

        async def logged_get_action(state, **step):
            log.append(("get_action", state))
            return await get_action(state, **step)

        async def logged_query_in_order(*calls, **options):
            log.append(("in_order", calls[-1][1]["state"]))
            return await query_in_order(*calls, **options)

        mind.get_action = logged_get_action  # type: ignore[method-assign]
        mind.query_in_order = logged_query_in_order  # type: ignore[method-assign]
        settings = RunSettings(steps=4, timeout=0.5, keepalive=None)
        result = await Runner(mind, LoggedWorld(log), settings).run()
        await mind.aclose()
    assert result.status == "completed" and [s.action for s in result.steps] == ["+1"] * 4
    assert "pipelining-off" in [e.kind for e in result.events]
    late = log.index(("in_order", "n=1"))
    assert log[late + 1] == ("get_state", "n=1")     # the World first, then the Mind
    assert log[late + 2] == ("get_action", "n=1")


@pytest.mark.slow
@pytest.mark.parametrize("binding", ["http", "ws", "tcp"])
async def test_each_answer_in_order_is_allowed_the_whole_time_out(binding):
    """Queries in order are timed out one by one (the run loop counts on it: each answer is
    allowed the run's time-out). Over WebSocket one time-out covered them all, so a second
    answer within its own time-out was refused as late."""
    extra = ["--tcp-port", "0"] if binding == "tcp" else []
    with probe_server("ProbeMind", extra=extra) as server:
        async with RemoteMind(server.url, transport=binding, timeout=5) as mind:
            await mind.new_run()
            first, second = await mind.query_in_order(
                ("get_action", {"state": "slow:0.3"}), ("get_action", {"state": "slow:0.3"}), within=0.5)
    assert first.action == "echo:slow:0.3"
    assert not isinstance(second, Refusal) and second.action == "echo:slow:0.3"


@pytest.mark.slow
@pytest.mark.parametrize("binding", ["ws", "tcp"])
async def test_a_shorter_time_out_behind_a_longer_one_fires_on_time(binding):
    """A connection keeps one timer, set for the earliest deadline it watches: queries in
    order with ``within=0.4`` sent behind a query allowed 30 s still time out after 0.4 s,
    and the query before them fails with the same refusal (the connection is closed)."""
    extra = ["--tcp-port", "0"] if binding == "tcp" else []
    with probe_server("ProbeMind", extra=extra) as server:
        async with RemoteMind(server.url, transport=binding, timeout=30) as mind:
            await mind.new_run()
            slow = asyncio.ensure_future(mind.get_action("slow:5"))
            await asyncio.sleep(0.1)
            started = asyncio.get_running_loop().time()
            (late,) = await mind.query_in_order(("get_action", {"state": "x"}), within=0.4)
            waited = asyncio.get_running_loop().time() - started
            with pytest.raises(Refusal) as first:
                await slow
            assert (await mind.get_action("again")).action == "echo:again"  # a new connection
    assert isinstance(late, Refusal) and late.code == "timeout" and 0.35 < waited < 2
    assert first.value.code == "timeout"
