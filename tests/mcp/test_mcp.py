"""``wwm mcp URL`` end to end: the SDK's own MCP client, over stdio, against ``wwm mcp`` as a
subprocess bridging a real ``wwm serve grid`` on loopback. The client lists the world's tools
(one per query of its card), starts a run and plays ten steps, which the World server's own
display of the run confirms; a refused query comes back as a tool error naming its code; and
the example MCP-driven mind (examples/mcp/agent.py) plays through the same bridge."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import wwm
from wwm.protocol.queries import snake
from wwm.server.process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    filter(None, [str(Path(wwm.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]))}


def bridge(url: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "wwm.cli.main", "mcp", url], env=ENV)


def answer(result) -> dict:
    assert not result.is_error, result.content[0].text
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


@pytest.mark.slow
async def test_an_mcp_client_lists_a_worlds_tools_starts_a_run_and_plays_ten_steps():
    with ServerProcess("grid", {"seed": 3}) as world:
        card = world.card()
        async with stdio_client(bridge(world.url)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert sorted(tools) == sorted(snake(q) for q in card["queries"])
            assert tools["execute_action"].input_schema["required"] == ["action"]
            assert "north | south" in tools["new_run"].description  # the card's action format
            assert tools["new_run"].input_schema["properties"]["size"]["type"] == "integer"

            run = answer(await session.call_tool("new_run", {}))
            states = [answer(await session.call_tool("get_state", {}))["state"]]
            for step in range(10):
                outcome = answer(await session.call_tool("execute_action", {"action": "east" if step % 2 else "north"}))
                states.append(outcome["state"])
            assert [s.split()[1] for s in states] == [f"step={n}" for n in range(11)]

            with urllib.request.urlopen(run["world display URL"] + ".json", timeout=10) as reply:
                shown = json.load(reply)
            assert "step=10" in json.dumps(shown)

            refused = await session.call_tool("get_state", {"run_id": "no-such-run"})
            assert refused.is_error and "refused (unknown-run)" in refused.content[0].text
            unknown = await session.call_tool("fly", {})
            assert unknown.is_error and "no tool 'fly'" in unknown.content[0].text
            answer(await session.call_tool("end_run", {}))
            ended = await session.call_tool("get_state", {})
            assert ended.is_error and "refused (" in ended.content[0].text


@pytest.mark.slow
async def test_the_example_mcp_mind_plays_through_the_bridge():
    spec = importlib.util.spec_from_file_location("mcp_agent", ROOT / "examples/mcp/agent.py")
    agent = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agent)
    with ServerProcess("grid", {"seed": 3}) as world:
        result = await agent.play(world.url, 10, command=[sys.executable, "-m", "wwm.cli.main", "mcp", world.url])
    assert "execute_action" in result["tools"]
    assert len(result["steps"]) == 10
    assert {step["action"] for step in result["steps"]} <= {"north", "south", "east", "west", "stay"}
    assert result["score"] == sum(step.get("score", 0) for step in result["steps"])


@pytest.mark.parametrize(("url", "status", "said"), [
    ("not-a-url", 2, "wwm mcp: expected the server's http:// or https:// URL, not 'not-a-url'"),
    ("http://127.0.0.1:1/", 1,
     "wwm mcp: unreachable: nothing is listening at http://127.0.0.1:1/ (connection refused)"),
])
def test_wwm_mcp_says_in_one_line_what_is_wrong_with_its_url(url, status, said):
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "mcp", url], env=ENV, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == status
    assert done.stderr.startswith(said) and done.stderr.count("\n") == 1, done.stderr
