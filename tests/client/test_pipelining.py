"""Queries in order on one connection: the run loop sends Inform and the next Get action back
to back over an ordered binding (one round trip for both), and the mind still hears of each
state before it is asked about it; answers are matched to askers first in, first out, so an
asker that gave up never receives the next query's answer."""

from __future__ import annotations

import asyncio

import pytest
from probes import one_read_mind_server, probe_server

from wwm.client import RemoteMind, RemoteWorld
from wwm.client.http11 import Http11Client
from wwm.client.runner import Runner, RunSettings
from wwm.protocol import jsoncodec
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query

pytestmark = pytest.mark.slow

BINDINGS = pytest.mark.parametrize("binding", ["http", "http-granian", "ws", "tcp"])


def mind_server(binding: str, target: str = "OrderMind"):
    extra = ["--http", "granian"] if binding == "http-granian" else []
    if binding == "tcp":
        extra = ["--tcp-port", "0"]
    return probe_server(target, extra=extra)


def transport_of(binding: str) -> str:
    return "http" if binding.startswith("http") else binding


class Counting:
    """Wraps a remote mind's query_in_order to count the pipelined exchanges."""

    def __init__(self, mind: RemoteMind) -> None:
        self.calls = 0
        inner = mind.query_in_order

        async def counted(*calls, **options):
            self.calls += 1
            return await inner(*calls, **options)

        mind.query_in_order = counted  # type: ignore[method-assign]


@BINDINGS
async def test_run_pipelines_inform_with_the_next_get_action_and_keeps_their_order(binding):
    with probe_server("ProbeWorld") as world_server, mind_server(binding) as server:
        world = RemoteWorld(world_server.url)
        mind = RemoteMind(server.url, transport=transport_of(binding))
        counting = Counting(mind)
        assert mind.pipelines
        result = await Runner(mind, world, RunSettings(steps=200, keepalive=None)).run()
        await world.aclose()
        await mind.aclose()
    assert result.status == "completed" and not result.events
    assert [s.note for s in result.steps] == [None] * 200
    assert [s.action for s in result.steps] == ["+1"] * 200
    assert counting.calls == 199                    # every step but the last: Inform + Get action
    assert result.world_score == 200.0
    assert result.mind_score == 200.0               # every Get action came after its Inform


async def test_ignore_late_policy_asks_one_query_at_a_time():
    with probe_server("ProbeWorld") as world_server, mind_server("http") as server:
        world, mind = RemoteWorld(world_server.url), RemoteMind(server.url)
        counting = Counting(mind)
        settings = RunSettings(steps=20, keepalive=None, policy="ignore-late")
        result = await Runner(mind, world, settings).run()
        await world.aclose()
        await mind.aclose()
    assert counting.calls == 0 and result.mind_score == 20.0 and result.world_score == 20.0


@pytest.mark.parametrize("server_kind", ["uvicorn", "granian"])
async def test_http_pipelined_requests_are_answered_in_order(server_kind):
    """Ten queries written back to back on one connection, the first one slow: each reply is
    the answer to its own query."""
    extra = ["--http", "granian"] if server_kind == "granian" else []
    with probe_server("ProbeMind", extra=extra) as server:
        async with RemoteMind(server.url) as mind:
            await mind.new_run()
            states = ["slow:0.2"] + [f"s{i}" for i in range(9)]
            client = Http11Client(server.url, jsoncodec.CONTENT_TYPE, timeout=10)
            bodies = [jsoncodec.encode(Query("Get action", {"mind run ID": mind.run_id, "state": s}))
                      for s in states]
            replies = await client.post_in_order(bodies)
            client.close()
    actions = [jsoncodec.decode(body).data["action"] for _status, _headers, body in replies]
    assert actions == ["+1" if s.startswith("n=") else f"echo:{s}" for s in states]


@pytest.mark.parametrize("binding", ["http", "ws", "tcp"])
async def test_an_abandoned_query_never_answers_the_next_one(binding):
    """A caller that gives up on a slow query (cancelled, as the run loop's time-out does)
    leaves the connection in step: the next query on the same remote mind gets its own answer."""
    with mind_server(binding, "ProbeMind") as server:
        async with RemoteMind(server.url, transport=binding) as mind:
            await mind.new_run()
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.1):
                    await mind.get_action("slow:0.4")
            for state in ("a", "b", "c"):
                assert (await mind.get_action(state)).action == f"echo:{state}"
            await asyncio.sleep(0.5)  # the abandoned answer has arrived by now
            assert (await mind.get_action("d")).action == "echo:d"


async def test_concurrent_callers_share_one_tcp_connection_each_with_its_own_answer():
    with mind_server("tcp", "ProbeMind") as server:
        async with RemoteMind(server.url, transport="tcp") as mind:
            await mind.new_run()
            states = ["slow:0.01" if i % 7 == 0 else f"s{i}" for i in range(60)]
            suggestions = await asyncio.gather(*(mind.get_action(s) for s in states))
            assert [s.action for s in suggestions] == [f"echo:{s}" for s in states]
            assert mind.transport._conn is not None          # one connection carried them all


@pytest.mark.parametrize("binding", ["http", "ws", "tcp"])
async def test_a_query_that_times_out_is_refused_and_the_binding_recovers(binding):
    with mind_server(binding, "ProbeMind") as server:
        async with RemoteMind(server.url, transport=binding, timeout=0.2) as mind:
            await mind.new_run()
            informed, asked = await mind.query_in_order(("get_action", {"state": "slow:1"}),
                                                        ("get_action", {"state": "after"}))
            assert isinstance(informed, Refusal) and informed.code == "timeout"
            assert isinstance(asked, Refusal) and asked.code == "timeout"
            assert (await mind.get_action("again")).action == "echo:again"


@pytest.mark.parametrize("binding", ["http", "ws", "tcp"])
async def test_abandoning_queries_in_order_leaves_no_unread_failure(binding):
    """Cancelled part-way through queries sent in order: nothing is left for the event loop to
    report as a failure nobody read, and the binding answers the next query."""
    import gc

    reported = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context.get("message")))
    try:
        with mind_server(binding, "ProbeMind") as server:
            async with RemoteMind(server.url, transport=binding) as mind:
                await mind.new_run()
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(0.1):
                        await mind.query_in_order(("get_action", {"state": "slow:0.3"}),
                                                  ("get_action", {"state": "b"}), ("get_action", {"state": "c"}))
                assert (await mind.get_action("next")).action == "echo:next"
                await asyncio.sleep(0.4)
                assert (await mind.get_action("last")).action == "echo:last"
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert reported == []


async def test_a_society_document_picks_the_tcp_binding_and_can_turn_pipelining_off():
    from wwm.client.society import parse
    from wwm.client.tcp_transport import TcpTransport

    with mind_server("tcp", "ProbeWorld") as world_server, mind_server("tcp") as server:
        society = parse({"mind": {"url": server.url, "transport": "tcp"},
                         "world": {"url": world_server.url, "transport": "tcp"},
                         "run": {"steps": 30, "pipeline": False, "keepalive": None}})
        mind, world = society.build()
        assert isinstance(mind.transport, TcpTransport) and isinstance(world.transport, TcpTransport)
        counting = Counting(mind)
        settings = society.settings()
        assert settings.pipeline is False
        result = await Runner(mind, world, settings).run()
        await world.aclose()
        await mind.aclose()
    assert counting.calls == 0 and result.mind_score == 30.0 and result.world_score == 30.0


async def test_wwm_run_no_pipeline(tmp_path):
    """As a user runs it, against a mind that drops a query sent behind another: by default
    the run notices (a 'pipelining-off' event in its record); with --no-pipeline it never
    sends two at once, so there is nothing to notice."""
    import sys

    from wwm.store import RunStore

    server = await one_read_mind_server()
    mind_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    try:
        with probe_server("ProbeWorld") as world_server:
            for flags in ([], ["--no-pipeline"]):
                done = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "wwm.cli.main", "run", "--mind", mind_url, "--world", world_server.url,
                    "--steps", "25", "--timeout", "0.5", "--quiet", "--db", db, *flags,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
                _, err = await asyncio.wait_for(done.communicate(), 60)
                assert done.returncode == 0, err.decode()
    finally:
        server.close()
    store = RunStore(db)
    pipelined, one_by_one = (store.get_run(r.id) for r in sorted(store.list_runs(), key=lambda r: r.id))
    assert pipelined.step_count == one_by_one.step_count == 25
    assert [e.kind for e in pipelined.events] == ["pipelining-off"]
    assert [e.kind for e in one_by_one.events] == []


async def test_a_server_that_drops_pipelined_queries_gets_one_query_at_a_time():
    server = await one_read_mind_server()
    port = server.sockets[0].getsockname()[1]
    try:
        with probe_server("ProbeWorld") as world_server:
            world, mind = RemoteWorld(world_server.url), RemoteMind(f"http://127.0.0.1:{port}/")
            settings = RunSettings(steps=30, timeout=0.5, keepalive=None)
            result = await Runner(mind, world, settings).run()
            await world.aclose()
            await mind.aclose()
    finally:
        server.close()
    assert result.status == "completed" and len(result.steps) == 30
    assert [s.action for s in result.steps] == ["+1"] * 30 and result.world_score == 30.0
    assert [e.kind for e in result.events] == ["pipelining-off"]       # noticed once, no time-out after
    assert "one query at a time" in result.events[0].text


@pytest.mark.parametrize("binding", ["ws", "tcp"])
async def test_the_short_way_of_a_persistent_binding_raises_what_the_general_way_does(binding):
    """A run's every query goes the persistent binding's short way (no Query or Response made):
    a late answer, a refusal and an unusual answer come out of it as they do the general way."""
    with mind_server(binding, "ProbeMind") as server:
        async with RemoteMind(server.url, transport=binding, timeout=0.3) as mind:
            await mind.new_run()
            assert (await mind.get_action("a")).action == "echo:a"
            assert await mind.inform("a", 1.0) == 2.0
            with pytest.raises(Refusal) as late:
                await mind.get_action("slow:1")
            assert late.value.code == "timeout" and "'Get action'" in (late.value.text or "")
            assert (await mind.get_action("b")).action == "echo:b"      # a new connection
            run_id, mind.run_id = mind.run_id, "no-such-run"
            with pytest.raises(Refusal) as unknown:
                await mind.inform("c", 1.0)
            assert unknown.value.code == "unknown-run"
            mind.run_id = run_id
            assert (await mind.get_action("d")).action == "echo:d"
