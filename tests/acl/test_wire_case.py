"""A user-defined ACL parameter keeps its case end to end through an agent's WWM server:
``X-CamelCase`` sent in ``Send message`` (JSON and the XML of section 11.2.1) is what the
agent behind the server receives and logs, not the snake-cased ``x_camelcase`` a method's
``**kwargs`` would have given it."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from wwm.acl.agent import Agent
from wwm.acl.log import read
from wwm.acl.message import AID, ACLMessage
from wwm.acl.network import HttpTransport, serve_agent
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

USER = (("X-CamelCase", "Value One"), ("X-JADE-Priority", "3"))


def _message(to: AID, conversation: str) -> ACLMessage:
    return ACLMessage("inform", sender=AID("tester"), receivers=(to,), content="(news)",
                      conversation_id=conversation, user=USER)


@pytest.mark.parametrize("encoding", ["json", "xml"])
async def test_x_parameter_keeps_its_case_through_an_agent_server(tmp_path, encoding: str) -> None:
    log = tmp_path / "c1.jsonl"
    with ServerProcess("wwm.acl.contractnet:Contractor", args={"name": "c1", "log": str(log)}) as server:
        transport = HttpTransport(encoding=encoding)
        try:
            await transport.deliver(_message(AID("c1", (server.url,)), f"case-{encoding}"), AID("c1", (server.url,)))
        finally:
            await transport.close()
        received = [e.message for e in read(log) if e.direction == "received"]
    assert len(received) == 1 and received[0].conversation_id == f"case-{encoding}"
    assert received[0].user == USER   # names exactly as sent, in order
    # and in the log file itself, as the agent wrote it
    logged = json.loads(log.read_text().splitlines()[0])["message"]
    assert [k for k in logged if k.lower() == "x-camelcase"] == ["X-CamelCase"] and logged["X-CamelCase"] == "Value One"


async def test_x_parameter_keeps_its_case_in_raw_xml_to_an_in_process_endpoint() -> None:
    agent = Agent("listener")
    async with serve_agent(agent) as url:
        opened = await _post(url, '<xml><query name="New run"></query></xml>')
        run_id = opened.split('name="mind run ID">')[1].split("<")[0]
        await _post(url, f'<xml><query name="Send message"><data name="mind run ID">{run_id}</data>'
                         '<data name="performative">inform</data><data name="sender">tester</data>'
                         '<data name="receiver">listener</data><data name="X-CamelCase">Value One</data>'
                         '</query></xml>')
    (entry,) = [e for e in agent.log.entries if e.direction == "received"]
    assert entry.message.user == (("X-CamelCase", "Value One"),)


async def _post(url: str, xml: str) -> str:
    def post() -> str:
        request = urllib.request.Request(url, xml.encode(), {"Content-Type": "application/xml"})
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.read().decode()

    return await asyncio.to_thread(post)
