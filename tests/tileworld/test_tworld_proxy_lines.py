"""The proxy frames an agent's actions by lines: a real agent process on a real TCP socket
writes an action in pieces, two actions in one write, a line too long, a blank line and a last
action with no newline before it closes; the world sees exactly the intended actions."""

from __future__ import annotations

import asyncio
import json
import sys

from websockets.asyncio.client import connect as ws_connect

from wwm.tileworld.proxy import CONNECTED, DISCONNECTED, MAX_LINE, AgentLines, Proxy

# An unbuffered agent: every write() is one send() (TCP_NODELAY), pauses between pieces.
AGENT = r"""
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def write(data):
    s.sendall(data)
    time.sleep(0.1)
for piece in (b"CONN", b"ECT:pie", b"ces\n"):      # even the CONNECT line in pieces
    write(piece)
incoming = s.makefile("rb")
percept = incoming.readline()                        # paired: the world sent a percept
assert percept.startswith(b"{"), percept
for piece in sys.argv[2:]:
    write(piece.encode().decode("unicode_escape").encode())
s.shutdown(socket.SHUT_WR)                           # a clean close, then read what it was told
sys.stdout.buffer.write(incoming.read())
"""


async def actions_seen(proxy: Proxy, pieces: list[str], magic: str = "pieces") -> tuple[list[str], list[str]]:
    """Run the agent writing ``pieces``: the world's messages until the agent is gone, and the
    lines the agent was told after its percept."""
    ws = await ws_connect(f"ws://127.0.0.1:{proxy.port}/")
    await ws.send(f"CONNECT:{magic}")
    agent = await asyncio.create_subprocess_exec(sys.executable, "-c", AGENT, str(proxy.port), *pieces,
                                                 stdout=asyncio.subprocess.PIPE)
    try:
        assert await asyncio.wait_for(ws.recv(), 10) == CONNECTED
        await ws.send(json.dumps({"header": "start", "data": {}}) + "\n")
        seen: list[str] = []
        while (message := await asyncio.wait_for(ws.recv(), 10)) != DISCONNECTED:
            seen.append(str(message))
        told, _ = await asyncio.wait_for(agent.communicate(), 10)
        assert agent.returncode == 0
    finally:
        if agent.returncode is None:
            agent.kill()
            await agent.wait()
        await ws.close()
    return seen, told.decode().splitlines()


async def test_an_action_written_in_pieces_and_two_in_one_write_reach_the_world_as_written():
    proxy = await Proxy(port=0).start()
    try:
        seen, told = await actions_seen(proxy, ["nor", "th\\n", "east\\nwest\\n", "\\n", "message:2:hel",
                                              "lo\\r\\n", "x" * (MAX_LINE + 10), "y\\n", "south"])
    finally:
        await proxy.close()
    # 'nor'+'th' is one action; two in one write are two; the blank line, and the line too long
    # (dropped whole up to its newline), are not relayed; the last line needs no newline
    assert seen == ["north\n", "east\n", "west\n", "message:2:hello\r\n", "south"]
    assert [json.loads(line)["data"] for line in told] == [
        f"a line longer than {MAX_LINE} bytes was dropped; send one action per line"]


async def test_an_agent_that_ends_actions_with_no_newline_is_relayed_when_it_falls_silent():
    proxy = await Proxy(port=0).start()
    ws = await ws_connect(f"ws://127.0.0.1:{proxy.port}/")
    await ws.send("CONNECT:old-style")
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"CONNECT:old-style")   # as agents written for T-World's proxy may do
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 10) == CONNECTED
    writer.write(b"north")
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 10) == "north"
    writer.write(b"x" * (MAX_LINE + 1))
    await writer.drain()
    error = json.loads(await asyncio.wait_for(reader.readline(), 10))
    assert error["header"] == "error" and f"longer than {MAX_LINE} bytes" in error["data"]
    writer.write(b"tail\nsouth\n")   # the rest of the long line is dropped, the next line is not
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 10) == "south\n"
    writer.close()
    assert await asyncio.wait_for(ws.recv(), 10) == DISCONNECTED
    await ws.close()
    await proxy.close()


def test_agent_lines_keep_multibyte_characters_split_across_reads():
    lines = AgentLines()
    text = "message:1:señal\n".encode()
    cut = text.index("ñ".encode()) + 1
    assert lines.feed(text[:cut]) == [] and lines.pending
    assert lines.feed(text[cut:]) == ["message:1:señal\n"] and not lines.pending
