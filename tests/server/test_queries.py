"""Every query of sections 9.1 and 9.2, end to end over real HTTP, in both encodings."""

from __future__ import annotations

import pytest

from wwm import Outcome, Refusal, RunStarted, Suggestion
from wwm.client import RemoteMind, RemoteWorld
from wwm.protocol.messages import Query

ENCODINGS = pytest.mark.parametrize("encoding", ["xml", "json"])


@ENCODINGS
async def test_world_queries(probe_world, encoding):
    world = RemoteWorld(probe_world.url, encoding=encoding, client_url="urn:test:client", start=5)
    try:
        started = await world.new_run()                                        # New run
        assert isinstance(started, RunStarted) and started.display_url.startswith(probe_world.url)
        assert world.run_id and len(world.run_id) >= 20                        # unguessable
        assert await world.get_display_url() == started.display_url            # Get display URL
        assert await world.no_operation() is None                              # No operation
        assert await world.get_state() == "n=5"                                # Get state (start=5 arrived)
        outcome = await world.execute_action("+3")                             # Execute action
        assert outcome == Outcome("n=8", 3.0, False)
        assert await world.get_current_score() == 3.0                          # Get current score
        await world.reset_score()                                              # Reset score
        assert await world.get_current_score() == 0.0
        await world.execute_action("+2")
        await world.reset()                                                    # Reset
        assert await world.get_state() == "n=5"
        assert await world.end_run() == 2.0                                    # End run -> total score
        assert world.run_id is None
    finally:
        await world.aclose()


@ENCODINGS
async def test_world_signals_end_of_run(probe_world, encoding):
    async with RemoteWorld(probe_world.url, encoding=encoding, start=998) as world:
        await world.new_run()
        assert (await world.execute_action("+1")).finished is False
        assert (await world.execute_action("+1")).finished is True
        await world.end_run()


@ENCODINGS
async def test_mind_queries(probe_mind, encoding):
    mind = RemoteMind(probe_mind.url, encoding=encoding, timeout=5.0)
    try:
        started = await mind.new_run(world_display_url="http://w.example/run/7", world_run_id="40031")
        assert started.display_url == "urn:probe:40031:http://w.example/run/7"  # New run args arrived
        assert await mind.get_display_url() == started.display_url              # (the mind's own URL wins)
        assert await mind.no_operation() is None
        assert await mind.ready_to_suggest() is True                            # Ready to suggest action?
        assert await mind.ready_to_suggest("stuck") is False
        got = await mind.get_action("x <&> y")                                  # Get action: text survives
        assert got == Suggestion("echo:x <&> y", q=7.0)
        stuck = await mind.get_action("stuck")                                  # Cannot suggest action
        assert not stuck.can_suggest and stuck.action is None and stuck.reason == "stuck state"
        assert await mind.inform("y", score=1.5) == 3.0                         # Inform -> the mind's Q
        assert await mind.inform("y") is None
        assert await mind.get_current_score() == 1.5                            # Get current score
        assert await mind.get_current_score(score=10) == 11.5                   # ... with the world's score
        await mind.reset_score()                                                # Reset score
        assert await mind.get_current_score() == 0.0
        await mind.inform("z", score=4)
        assert await mind.end_run(score=4) == 4.0                               # End run
    finally:
        await mind.aclose()


@ENCODINGS
async def test_per_step_arguments_reach_the_mind(probe_mind, encoding):
    async with RemoteMind(probe_mind.url, encoding=encoding) as mind:
        await mind.new_run()
        got = await mind.get_action("s", **{"Q-temperature": 0.5})
        assert got.action == "echo:s[q_temperature=0.5]"
        await mind.end_run()


@ENCODINGS
async def test_a_query_after_end_run_is_refused_as_run_ended(probe_mind, encoding):
    async with RemoteMind(probe_mind.url, encoding=encoding) as mind:
        await mind.new_run()
        run_id = mind.run_id
        await mind.end_run()
        mind.run_id = run_id
        with pytest.raises(Refusal) as refused:
            await mind.get_action("x")
        assert refused.value.code == "run-ended"   # as docs/protocol.md says (not unknown-run)
        mind.run_id = run_id
        with pytest.raises(Refusal) as twice:
            await mind.end_run()   # End run twice: the same
        assert twice.value.code == "run-ended" and "ended by End run" in twice.value.text
        mind.run_id = "no-such-run"
        with pytest.raises(Refusal) as never:
            await mind.get_action("x")
        assert never.value.code == "unknown-run"


@ENCODINGS
async def test_websocket_binding_answers_the_same(probe_world, encoding):
    async with RemoteWorld(probe_world.url, transport="ws", encoding=encoding, start=1) as world:
        await world.new_run()
        for _ in range(3):
            await world.execute_action("+1")
        assert await world.get_state() == "n=4"
        assert await world.end_run() == 3.0


@ENCODINGS
async def test_tcp_binding_answers_the_same(encoding):
    from probes import probe_server

    with probe_server("ProbeWorld", extra=["--tcp-port", "0"]) as server:
        async with RemoteWorld(server.url, transport="tcp", encoding=encoding, start=2) as world:
            await world.new_run()
            for _ in range(3):
                await world.execute_action("+1")
            assert await world.get_state() == "n=5"
            with pytest.raises(Refusal) as refused:
                await world.execute_action("+x")
            assert refused.value.code == "server-error"
            assert await world.end_run() == 3.0


async def test_an_as_method_argument_does_not_clash_with_the_client(probe_mind):
    async with RemoteMind(probe_mind.url, method="x") as mind:  # "method" is an AS argument name
        from wwm import Refusal as R

        with pytest.raises(R) as refused:
            await mind.new_run()
        assert refused.value.code == "bad-parameters" and "method" in refused.value.text


async def test_a_restarted_server_is_reached_again_without_a_failed_query():
    from probes import probe_server

    with probe_server("ProbeWorld", state=True) as server:
        async with RemoteWorld(server.url, start=1) as world:
            await world.new_run()
            await world.execute_action("+1")       # a kept-alive connection is now pooled
            server.restart()                       # the pooled connection is dead
            outcome = await world.execute_action("+1")
            assert outcome.state == "n=3"          # sent again on a fresh connection, once
            await world.end_run()


@ENCODINGS
async def test_a_score_past_the_float_range_is_refused_not_sent_as_infinity(probe_mind, encoding):
    """Only finite numbers go out, as only finite ones are read in: ProbeMind's Inform answers
    twice the score it is given, which for -1e308 is -inf, refused (server-error), not sent
    as -inf (XML) or null (JSON); the run goes on."""
    async with RemoteMind(probe_mind.url, encoding=encoding) as mind:
        await mind.new_run()
        assert await mind.inform("a", -1e307) == -2e307
        with pytest.raises(Refusal) as refused:
            await mind.inform("b", -1e308)
        assert refused.value.code == "server-error" and "not a finite number" in refused.value.text
        with pytest.raises(Refusal) as on_input:
            await mind.transport.exchange(Query("Inform it about state", {
                "mind run ID": mind.run_id, "state": "c", "score": "-inf"}))
        assert on_input.value.code == "bad-parameters"
        assert (await mind.get_action("d")).action == "echo:d"
        await mind.end_run()
