"""The binding seam: every binding (HTTP, WebSocket, TCP, a program's stdin and stdout) is a
full :class:`~wwm.protocol.transport.Transport`, found by name in one registry, and answers
one query and several in order over a real server."""

from __future__ import annotations

from pathlib import Path

import pytest
from probes import probe_server

from wwm.client.bindings import BINDINGS, open_transport
from wwm.client.remote import RemoteMind
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query
from wwm.protocol.transport import Transport
from wwm.server.exec import PerQueryTransport, PersistentTransport

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "exec"


def test_the_registry_names_every_binding_and_refuses_others():
    assert list(BINDINGS) == ["http", "ws", "tcp", "inprocess"]
    assert BINDINGS.lookup("websocket") is BINDINGS.lookup("ws")
    with pytest.raises(ValueError, match="transport must be one of http, ws, tcp, inprocess, not 'carrier-pigeon'"):
        open_transport("http://127.0.0.1:9/", "carrier-pigeon")
    assert type(open_transport("ws://127.0.0.1:9/")).__name__ == "WebSocketTransport"   # by scheme


@pytest.mark.parametrize("binding", ["http", "ws", "tcp"])
async def test_each_network_binding_answers_one_query_and_several_in_order(binding):
    with probe_server("ProbeMind", extra=["--tcp-port", "0"]) as server:
        transport = open_transport(server.url, binding)
        assert isinstance(transport, Transport) and transport.pipelines
        mind = RemoteMind(transport)
        try:
            await mind.new_run()
            assert (await mind.get_action("a")).action == "echo:a"
            answers = await mind.query_in_order(("get_action", {"state": "b"}), ("get_action", {"state": "c"}),
                                                within=5.0)
            assert [a.action for a in answers] == ["echo:b", "echo:c"]
        finally:
            await mind.aclose()


@pytest.mark.parametrize("kind, command", [(PerQueryTransport, ["sh", str(EXAMPLES / "mind.sh")]),
                                           (PersistentTransport, ["node", str(EXAMPLES / "mind.js")])])
async def test_a_program_is_a_transport_that_answers_in_order_one_at_a_time(kind, command, tmp_path):
    transport = kind(command, workdir=tmp_path, timeout=10)
    assert isinstance(transport, Transport) and not transport.pipelines
    try:
        started = await transport.exchange(Query("New run", {}))
        run_id = started.data["mind run ID"]
        state = "size=8 step=0 x=2 y=2 fd=1 hd=5 food=3,2 hazard=7,7"
        first, bad = await transport.exchange_in_order(
            [Query("Get action", {"mind run ID": run_id, "state": state}), Query("Get action", {})], within=5.0)
        assert first.data["action"].strip() == "east"
        assert isinstance(bad, Refusal) or bad.refusal is not None
    finally:
        await transport.close()
