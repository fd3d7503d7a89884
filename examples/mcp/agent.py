"""An MCP-driven mind: a scripted MCP client standing in for an LLM agent. It starts
``wwm mcp URL`` (the World server's queries as MCP tools, over stdio), reads the tools and
their descriptions as an LLM would, starts a run and plays: each step it reads the state with
``get_state`` and sends ``execute_action``, chosen by a greedy rule for the grid world's state
format (step toward the nearest food), or the first action the description names.

    wwm serve grid --port 8101 &
    python examples/mcp/agent.py http://127.0.0.1:8101/ --steps 10

An LLM (Claude Desktop, an agent framework) is connected the same way: give it the command
``wwm mcp http://127.0.0.1:8101/`` as an MCP server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

MOVES = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


def items(state: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in state.split() if "=" in part)


def choose(state: str, actions: list[str]) -> str:
    """Toward the nearest food where the state says where food is; else the first action."""
    seen = items(state)
    if {"x", "y", "food"} <= seen.keys() and seen["food"] and set(MOVES) <= set(actions):
        x, y = int(seen["x"]), int(seen["y"])
        foods = [tuple(int(v) for v in f.split(",")) for f in seen["food"].split(";") if f]
        fx, fy = min(foods, key=lambda f: abs(f[0] - x) + abs(f[1] - y))
        if (fx, fy) != (x, y):
            return min(MOVES, key=lambda m: abs(fx - x - MOVES[m][0]) + abs(fy - y - MOVES[m][1]))
    return actions[0]


def text(result: Any) -> str:
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return str(result.content[0].text)


async def play(url: str, steps: int, command: list[str] | None = None) -> dict[str, Any]:
    """Play ``steps`` steps in the World at ``url`` through ``wwm mcp``; what happened."""
    argv = command or [sys.executable, "-m", "wwm.cli.main", "mcp", url]
    # the SDK passes a child only a few variables (PATH, HOME...): this one gets ours, PYTHONPATH too
    server = StdioServerParameters(command=argv[0], args=[*argv[1:]], env=dict(os.environ))
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        described = re.search(r"Action format: ([^.(]*)", tools["new_run"].description or "")
        actions = [a.strip() for a in described.group(1).split("|")] if described else ["stay"]
        run = json.loads(text(await session.call_tool("new_run", {})))
        played = []
        for _ in range(steps):
            state = json.loads(text(await session.call_tool("get_state", {})))["state"]
            action = choose(state, actions)
            outcome = json.loads(text(await session.call_tool("execute_action", {"action": action})))
            played.append({"action": action, **outcome})
            if outcome.get("run finished"):
                break
        score = json.loads(text(await session.call_tool("get_current_score", {}))).get("score")
        return {"tools": sorted(tools), "run": run, "steps": played, "score": score}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a World server's URL")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    result = asyncio.run(play(args.url, args.steps))
    for n, step in enumerate(result["steps"], 1):
        print(f"{n:3d}  {step['action']:6s} score {step.get('score', '')}")
    print(f"score after {len(result['steps'])} steps: {result['score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
