"""Browser robots over real loopback HTTP: the page server (uvicorn, in this event loop) runs a
game with a robot of kind ``browser``; a WebSocket client stands in for the page (keyboard or
Web Worker), takes the robot's seat at ``/api/robot/NAME``, gets its percepts and drives it with
action strings, before or after the game starts; seats are one page each, bad names are refused,
a page that leaves is said and its robot taken again by another page, and the game goes on."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosedOK

from wwm.server.process import free_port
from wwm.tileworld.agents import make_agent
from wwm.tileworld.app import create_app

GAME = {"config": {"rows": 7, "columns": 7, "seed": 4, "agents": 2, "end": {"neutral": {"time": 8}}},
        "agents": [{"kind": "browser", "name": "me"}, {"kind": "builtin", "name": "reactive"}],
        "mode": "realtime", "speed": 4}


@contextlib.asynccontextmanager
async def page_server(tmp_path) -> AsyncIterator[str]:
    port = free_port()
    app = create_app(proxy_url=None, recordings=tmp_path / "recordings")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                                           timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def post(http: aiohttp.ClientSession, url: str, body: Any) -> tuple[int, dict[str, Any]]:
    async with http.post(url, json=body) as reply:
        return reply.status, await reply.json()


async def view(http: aiohttp.ClientSession, host: str) -> dict[str, Any]:
    async with http.get(f"http://{host}/api/view") as reply:
        return await reply.json()


async def drive(ws: ClientConnection, agent: Any) -> list[dict[str, Any]]:
    """Answer every full percept with the agent's action until the ``end`` percept; the lines."""
    lines = []
    async for text in ws:
        message = json.loads(text)
        lines.append(message)
        if message["header"] == "end":
            break
        if message["header"] in ("start", "percept", "ready_for_next_action"):
            await ws.send(agent.act(message["data"]))
    return lines


async def test_a_page_takes_a_browser_robot_and_drives_it_to_a_score(tmp_path):
    async with page_server(tmp_path) as host, aiohttp.ClientSession() as http:
        status, reply = await post(http, f"http://{host}/api/start", GAME)
        assert status == 200 and reply["robots"] == ["browser:me", "reactive"]
        assert (await view(http, host))["status"] == "waiting for agents"   # for the page
        async with connect(f"ws://{host}/api/robot/me") as ws:
            assert await ws.recv() == "_CONNECTED_"
            lines = await asyncio.wait_for(drive(ws, make_agent("reactive", seed=9)), 20)
            with pytest.raises(ConnectionClosedOK):  # the game closed the seat after its end percept
                await asyncio.wait_for(ws.recv(), 5)
        assert lines[0]["header"] == "start" and lines[0]["data"]["agent"]["id"] == 0
        assert lines[-1]["header"] == "end"
        final = await view(http, host)
        me = final["view"]["agents"][0]
        assert final["status"] == "over" and final["errors"] == []
        assert me["good_moves"] > 5 and final["view"]["teams"][0]["score"] > 0   # it moved and scored


async def test_a_page_may_come_first_and_a_seat_has_one_page(tmp_path):
    async with page_server(tmp_path) as host, aiohttp.ClientSession() as http:
        async with connect(f"ws://{host}/api/robot/me") as first:
            assert await first.recv() == "_WAITING_"      # no game has robot browser:me yet
            async with connect(f"ws://{host}/api/robot/me") as second:
                refusal = json.loads(await second.recv())
                assert refusal == {"header": "error", "data": "another page already waits for robot 'browser:me'"}
            status, _ = await post(http, f"http://{host}/api/start", GAME)
            assert status == 200
            assert await first.recv() == "_CONNECTED_"
            start = json.loads(await first.recv())
            assert start["header"] == "start"
            await first.send("fly")   # not an action: T-World's error percept, then a fresh percept
            error = json.loads(await first.recv())
            assert error["header"] == "error" and 'invalid action "fly"' in error["data"]
            assert json.loads(await first.recv())["header"] == "percept"
            async with connect(f"ws://{host}/api/robot/me") as third:
                assert "already drives robot 'browser:me'" in json.loads(await third.recv())["data"]
        # the page left mid-game: another (or the same, reloaded) takes the robot on from its next percept
        async with connect(f"ws://{host}/api/robot/me") as again:
            assert await again.recv() == "_CONNECTED_"
            percept = json.loads(await again.recv())
            assert percept["header"] == "percept" and percept["data"]["agent"]["id"] == 0
            moves = lambda p: p["data"]["agent"]["stats"]["good_moves"] + p["data"]["agent"]["stats"]["bad_moves"]  # noqa: E731
            await again.send("north")   # a good move, or a bad one into the edge or an obstacle: a move
            after = json.loads(await again.recv())
            assert after["header"] == "ready_for_next_action" and moves(after) == moves(percept) + 1
        # it left too: said among the game's errors (once), and the game plays on to its end
        for _ in range(200):
            final = await view(http, host)
            if final["status"] == "over":
                break
            await asyncio.sleep(0.1)
        assert final["status"] == "over" and final["view"]["time"] == 8
        assert final["errors"] == ["agent 0: the page driving 'browser:me' has gone"]


@pytest.mark.parametrize(("agents", "words"), [
    ([{"kind": "browser", "name": "a b"}, {"kind": "browser", "name": "x"}], "robot 0: a browser robot needs a name"),
    ([{"kind": "browser"}, {"kind": "browser", "name": "x"}], "robot 0: a browser robot needs a name"),
    ([{"kind": "browser", "name": "x"}, {"kind": "browser", "name": "x"}], "two browser robots are named 'x'"),
    ([{"kind": "robot"}, {"kind": "browser", "name": "x"}], "or 'browser' (name: the seat a page takes)"),
])
async def test_bad_browser_robots_are_named(tmp_path, agents, words):
    async with page_server(tmp_path) as host, aiohttp.ClientSession() as http:
        status, reply = await post(http, f"http://{host}/api/start", {**GAME, "agents": agents})
        assert status == 400 and words in reply["error"], reply
        async with connect(f"ws://{host}/api/robot/bad%20name") as ws:
            assert "a browser robot needs a name" in json.loads(await ws.recv())["data"]
