"""A2A, both ways (issue 27, item 6), with the ``a2a-sdk`` library's own client and server.

- A wwm Mind served by ``wwm serve ... --a2a`` is an A2A agent: the SDK's client resolves its
  Agent Card at the well-known path, and ``SendMessage`` with a grid state answers the mind's
  action; one contextId is one wwm run, a new context another; a mind that cannot suggest
  answers a failed task; a message without a state is an A2A error, not a 500.
- An A2A agent written with the SDK alone (it knows nothing of wwm) is a member of an Action
  Selection mind beside a wwm mind, in a short run in the grid world, from a society document;
  and served through ``wwm serve wwm.a2a:A2AMind --arg agent=URL`` it is a wwm Mind server
  that ``wwm check``'s client (a RemoteMind) runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from a2a.client import ClientConfig, ClientFactory, create_client
from a2a.helpers import get_data_parts, get_message_text, new_data_part, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, TransportProtocol
from a2a.utils.errors import A2AError as A2AProtocolError
from a2a.utils.errors import TaskNotCancelableError
from starlette.applications import Starlette

from wwm import Mind, Suggestion
from wwm.a2a import A2AMind, a2a_routes
from wwm.client import society
from wwm.client.remote import RemoteMind
from wwm.client.runner import run
from wwm.kit.grid_minds import GRID_EXAMPLE
from wwm.protocol.ports import free_port
from wwm.server import make_app
from wwm.server.process import ServerProcess

ACTIONS = {"north", "south", "east", "west", "stay"}


def user(parts: list[Part], context_id: str | None = None) -> Message:
    return Message(role=Role.ROLE_USER, message_id=f"m-{id(parts)}", context_id=context_id, parts=parts)


async def reply(client, message: Message):
    out = [event async for event in client.send_message(SendMessageRequest(message=message))]
    assert len(out) == 1
    return out[0]


# ---- a wwm Mind as an A2A agent --------------------------------------------------------------

@pytest.fixture(scope="module")
def served_mind() -> Iterator[ServerProcess]:
    with ServerProcess("wwm.kit.grid_minds:FoodSeeker", extra=["--a2a"]) as server:
        yield server


async def test_sdk_client_reads_the_card_and_gets_actions_from_wwm_serve(served_mind):
    """The SDK's client against ``wwm serve FoodSeeker --a2a`` (a real process): the card at
    the well-known path, then the mind's action for a grid state, one run per context."""
    with urllib.request.urlopen(served_mind.url.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH) as answer:
        card = json.load(answer)
    assert card["name"] == "FoodSeeker"
    rpc = served_mind.url.rstrip("/") + "/a2a"
    assert card["supportedInterfaces"] == [{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": v}
                                           for v in ("1.0", "0.3")]
    assert card["url"] == rpc and card["protocolVersion"] == "0.3"  # what a 0.3 client reads
    assert card["skills"][0]["id"] == "get-action" and card["skills"][0]["examples"] == [GRID_EXAMPLE]

    async with httpx.AsyncClient() as http:
        client = await create_client(served_mind.url, ClientConfig(streaming=False, httpx_client=http))
        first = await reply(client, user([new_text_part(GRID_EXAMPLE)], "ctx-1"))
        assert first.HasField("message")
        data = get_data_parts(first.message.parts)[0]
        # body (4,4), nearest food (6,4): east; its Q is minus the distance left
        assert get_message_text(first.message) == data["action"] == "east"
        assert data["q"] == -1.0 and data["new run"] is True
        assert first.message.context_id == "ctx-1"
        # the state as a data part, in the same context: the same run
        again = await reply(client, user([new_data_part({"state": "size=8 step=1 x=5 y=4 food=5,7"})], "ctx-1"))
        data2 = get_data_parts(again.message.parts)[0]
        assert data2["action"] == "north" and data2["run"] == data["run"] and "new run" not in data2
        # another context: another run, which the server's card counts beside the first
        other = await reply(client, user([new_text_part(GRID_EXAMPLE)], "ctx-2"))
        assert get_data_parts(other.message.parts)[0]["run"] != data["run"]
        asked = urllib.request.Request(served_mind.url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(asked) as a:
            assert json.load(a)["runs_in_progress"] == 2
        # a mind that cannot suggest: a failed task saying why
        failed = await reply(client, user([new_text_part("size=8 step=0 x=4 y=4")], "ctx-1"))
        assert failed.HasField("task")
        assert failed.task.status.state == TaskState.TASK_STATE_FAILED
        assert get_message_text(failed.task.status.message) == "cannot suggest action: no food in sight"
        # a message with no state at all: an A2A error (invalid params), not a crash
        with pytest.raises(A2AProtocolError, match="carries the state"):
            await reply(client, user([new_data_part({"hello": 1})], "ctx-3"))
        await client.close()


class Counting(Mind):
    """Counts the states of its run: the A2A context must reach the same run each time."""

    def __init__(self) -> None:
        self.seen = 0

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None) -> None:
        await asyncio.sleep(0)  # starting takes a moment (an AS starts its members): others run meanwhile

    async def get_action(self, state: str) -> Suggestion:
        self.seen += 1
        return Suggestion(f"{state}#{self.seen}")

    async def inform(self, state: str, score: float | None = None) -> float | None:
        return (score or 0.0) * 2


async def test_contexts_are_runs_and_a_lost_run_is_started_again_in_process():
    """In process (an ASGI transport): the mind's own object is one per context; a run the
    server dropped (idle) is started again for its context, and the reply says so; Inform
    and End run travel as data parts."""
    app = make_app(Counting, url="http://mind.test/", extra_routes=a2a_routes)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mind.test") as http:
        # the SDK's default configuration (streaming): the card says no streaming, so SendMessage
        client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url("http://mind.test/")
        texts = [get_message_text((await reply(client, user([new_text_part("s")], "a"))).message) for _ in range(3)]
        assert texts == ["s#1", "s#2", "s#3"]
        assert get_message_text((await reply(client, user([new_text_part("t")], "b"))).message) == "t#1"
        # two first messages of a context at once: one run between them
        both = await asyncio.gather(*(reply(client, user([new_text_part("u")], "z")) for _ in range(2)))
        assert sorted(get_message_text(r.message) for r in both) == ["u#1", "u#2"]
        informed = await reply(client, user([new_data_part({"state": "s", "score": 1.5, "inform": True})], "a"))
        assert get_data_parts(informed.message.parts)[0]["q"] == 3.0
        app.dispatcher.runs.runs.clear()  # the server forgot every run (as after --idle-timeout)
        back = await reply(client, user([new_text_part("s")], "a"))
        assert get_message_text(back.message) == "s#1" and get_data_parts(back.message.parts)[0]["new run"] is True
        ended = await reply(client, user([new_data_part({"end": True})], "a"))
        assert get_data_parts(ended.message.parts)[0]["ended"] is True
        assert len(app.dispatcher.runs.runs) == 0


async def test_bad_requests_are_json_rpc_errors_never_a_500_and_a_long_body_is_not_read():
    """Hand-written HTTP to /a2a: not JSON, an unknown version, an unknown method, a body over
    the server's limit (declared, or sent in chunks without a length): each a JSON-RPC error
    naming what is wrong, and the server answers the next message; and a 0.3 client's
    message/send (no A2A-Version header: 0.3) is answered in 0.3's form."""
    app = make_app(Counting, url="http://mind.test/", extra_routes=lambda d: a2a_routes(d, max_body=1000))
    good = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m1", "role": "ROLE_USER", "contextId": "c", "parts": [{"text": "s"}]}}}
    v1 = {"A2A-Version": "1.0"}
    big = {**good, "params": {"message": {**good["params"]["message"], "parts": [{"text": "x" * 5000}]}}}

    async def chunks():
        body = json.dumps(big).encode()
        for i in range(0, len(body), 500):
            yield body[i:i + 500]

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mind.test") as http:
        asked = [await http.post("/a2a", content=b"{not json", headers=v1),
                 await http.post("/a2a", json=good, headers={"A2A-Version": "7.0"}),
                 await http.post("/a2a", json={**good, "method": "Dance"}, headers=v1),
                 await http.post("/a2a", json=big, headers=v1),
                 await http.post("/a2a", content=chunks(), headers=v1)]
        errors = [a.json()["error"] for a in asked]
        assert all(a.status_code < 500 for a in asked), [a.status_code for a in asked]
        assert [e["code"] for e in errors] == [-32700, -32009, -32601, -32600, -32600], errors
        assert "Payload too large" in errors[3]["message"] and "Payload too large" in errors[4]["message"]
        answer = await http.post("/a2a", json=good, headers=v1)
        assert answer.json()["result"]["message"]["parts"][0]["text"] == "s#1"
        old = await http.post("/a2a", json={"jsonrpc": "2.0", "id": 2, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": "m2", "role": "user", "contextId": "c",
                        "parts": [{"kind": "text", "text": "s"}]}}})
        result = old.json()["result"]
        assert result["kind"] == "message" and result["parts"][0] == {"kind": "text", "text": "s#2"}


def test_a2a_refused_for_a_world_and_with_workers_and_without_the_extra(capsys, monkeypatch):
    from wwm.cli.main import main

    assert main(["serve", "grid", "--a2a", "--port", "0"]) == 2
    assert "--a2a makes a mind an A2A agent; GridWorld is a world" in capsys.readouterr().err
    assert main(["serve", "random", "--a2a", "--workers", "2", "--port", "0"]) == 2
    assert "--a2a is served by one process" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "wwm.a2a", None)  # as if a2a-sdk were not installed
    assert main(["serve", "random", "--a2a", "--port", "0"]) == 2
    assert "--a2a needs the optional extra: pip install 'world-wide-mind[a2a]'" in capsys.readouterr().err


# ---- an A2A agent (the SDK alone) as a Mind ---------------------------------------------------

class Westward(AgentExecutor):
    """An A2A agent knowing nothing of wwm: it answers every message with the word "west"
    (and counts the messages and the contexts they came in)."""

    def __init__(self) -> None:
        self.messages = 0
        self.contexts: set[str] = set()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.messages += 1
        self.contexts.add(context.context_id or "")
        await event_queue.enqueue_event(new_text_message("west", context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise TaskNotCancelableError  # (it answers at once: there is never a task to cancel)


@pytest.fixture
def sdk_agent() -> Iterator[tuple[str, Westward]]:
    """The SDK's own server (Starlette routes, uvicorn on loopback) in a thread."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    executor = Westward()
    card = AgentCard(name="westward", description="says west", version="1",
                     supported_interfaces=[AgentInterface(url=url + "/rpc", protocol_binding=TransportProtocol.JSONRPC,
                                                          protocol_version="1.0")],
                     capabilities=AgentCapabilities(streaming=False), default_input_modes=["text/plain"],
                     default_output_modes=["text/plain"],
                     skills=[AgentSkill(id="west", name="west", description="says west", tags=["test"])])
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/rpc")])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.01)
    try:
        yield url, executor
    finally:
        server.should_exit = True
        thread.join()


async def test_sdk_agent_is_a_member_of_an_action_selection_society_in_the_grid(sdk_agent):
    """A society document: an AS (rotation) over the SDK's agent and HazardAvoider, in the
    grid world, twelve steps. The agent is asked on each of its turns (every other step), in
    one context for the run, and its word reaches the world each time."""
    url, agent = sdk_agent
    doc = {"name": "A2A member",
           "world": {"class": "wwm.kit.grid:GridWorld", "args": {"size": 8, "seed": 3}},
           "mind": {"class": "wwm.selection.mind_as:ActionSelectionMind",
                    "args": {"method": "rotation", "minds": [{"class": "wwm.a2a:A2AMind", "args": {"agent": url}},
                                                         {"class": "wwm.kit.grid_minds:HazardAvoider"}]}},
           "run": {"steps": 12, "timeout": 10}}
    soc = society.parse(doc)
    mind, world = soc.build()
    result = await run(mind, world, soc.settings())
    assert result.status == "completed", result.events
    assert len(result.steps) == 12
    assert agent.messages == 6 and len(agent.contexts) == 1
    assert [step.action for step in result.steps[::2]] == ["west"] * 6 or \
        [step.action for step in result.steps[1::2]] == ["west"] * 6


async def test_a2a_agent_served_as_a_wwm_mind_for_a_remote_client(sdk_agent):
    """``wwm serve wwm.a2a:A2AMind --arg agent=URL``: the A2A agent behind a wwm URL, so a
    remote Mind_AS or any wwm client reaches it; two runs are two A2A contexts."""
    url, agent = sdk_agent
    with ServerProcess("wwm.a2a:A2AMind", {"agent": url}) as bridge:
        for _ in range(2):
            mind = RemoteMind(bridge.url, timeout=10)
            await mind.new_run("urn:test")
            suggestion = await mind.get_action(GRID_EXAMPLE)
            assert suggestion.action == "west"
            await mind.end_run()
            await mind.aclose()
    assert agent.messages == 2 and len(agent.contexts) == 2


async def test_a2a_mind_reads_a_failed_task_as_cannot_suggest_and_a_dead_agent_as_an_error():
    """The client side against a wwm mind served in process: "cannot suggest" comes back as
    such (not an action, not an error); an agent that is not there is an error naming it."""
    from wwm.a2a import A2AError
    from wwm.kit.grid_minds import FoodSeeker

    app = make_app(FoodSeeker, url="http://mind.test/", extra_routes=a2a_routes)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mind.test") as http:
        mind = A2AMind("http://mind.test/").over(http)
        await mind.new_run()
        assert (await mind.get_action(GRID_EXAMPLE)) == Suggestion("east", q=-1.0)
        cannot = await mind.get_action("size=8 step=0 x=4 y=4")
        assert not cannot.can_suggest and cannot.reason == "no food in sight"
        await mind.end_run()
    dead = A2AMind(f"http://127.0.0.1:{free_port()}/", timeout=2)
    with pytest.raises(A2AError, match="no A2A agent at"):
        await dead.get_action(GRID_EXAMPLE)
    await dead.close()
    await asyncio.sleep(0)


async def test_sdk_agent_is_a_member_of_a_served_action_selection_society(sdk_agent):
    """Every server a process of its own: a served AS (rotation) whose members are the A2A
    agent, reached through a served bridge that takes the agent's URL as its New run argument,
    and a served HazardAvoider; the world a served grid. Ten steps, half of them the agent's."""
    url, agent = sdk_agent
    with ServerProcess("grid") as world, ServerProcess("action-selection") as as_, \
            ServerProcess("wwm.a2a:A2AMind") as bridge, ServerProcess("hazard-avoider") as hazard:
        doc = {"world": {"url": world.url, "args": {"size": 8, "seed": 5}},
               "mind": {"url": as_.url, "args": {"method": "rotation", "minds": [
                   {"url": bridge.url, "args": {"agent": url}}, hazard.url]}},
               "run": {"steps": 10, "timeout": 10}}
        soc = society.parse(doc, "a2a-society")
        mind, world_ = soc.build()
        result = await run(mind, world_, soc.settings())
    assert result.status == "completed", result.events
    assert agent.messages == 5 and len(agent.contexts) == 1
    actions = [step.action for step in result.steps]
    assert actions[::2] == ["west"] * 5 or actions[1::2] == ["west"] * 5, actions


# ---- the how-to, as written ---------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
HOWTO = ROOT / "docs" / "howto" / "a2a.md"


def test_the_howto_example_prints_what_the_page_shows(served_mind):
    """docs/howto/a2a.md's run of examples/a2a/ask_mind.py, against a mind served with --a2a:
    the same command (its port aside) prints the lines the page shows."""
    page = HOWTO.read_text()
    block = re.search(r"```console\n\$ (python examples/a2a/ask_mind\.py .*?)\n(.*?)```", page, re.S)
    assert block is not None
    argv = shlex.split(block.group(1).replace("http://127.0.0.1:8102/", served_mind.url))
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert done.stdout == block.group(2)


def test_the_howto_society_runs_with_wwm_run(sdk_agent, tmp_path):
    """The page's first society document, its agent URL pointed at the SDK's agent, run with
    ``wwm run``: the agent is asked on its six turns of twelve steps."""
    url, agent = sdk_agent
    doc = re.search(r"```yaml\n(.*?)```", HOWTO.read_text(), re.S)
    assert doc is not None
    path = tmp_path / "a2a-society.yaml"
    path.write_text(doc.group(1).replace("http://127.0.0.1:8104/", url))
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", str(path)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert agent.messages == 6 and len(agent.contexts) == 1


async def test_a2a_mind_speaks_http_json_to_an_agent_that_offers_only_that():
    """An SDK agent served over the HTTP+JSON (REST) binding alone: A2AMind takes the binding
    its card names."""
    executor = Westward()
    card = AgentCard(name="westward", description="says west", version="1",
                     supported_interfaces=[AgentInterface(url="http://rest.test", protocol_binding="HTTP+JSON",
                                                          protocol_version="1.0")],
                     capabilities=AgentCapabilities(streaming=False), default_input_modes=["text/plain"],
                     default_output_modes=["text/plain"],
                     skills=[AgentSkill(id="west", name="west", description="says west", tags=["test"])])
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_rest_routes(handler)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://rest.test") as http:
        mind = A2AMind("http://rest.test/").over(http)
        await mind.new_run()
        assert (await mind.get_action("anything")).action == "west"
    assert executor.messages == 1


async def test_a2a_mind_over_a_wwm_mind_informs_it_when_asked_to():
    """wwm -> A2A -> wwm: an A2AMind with ``informs`` passes Inform it about state on, and the
    mind behind answers its Q, and its End run ends the run behind; without it nothing is sent."""
    app = make_app(Counting, url="http://mind.test/", extra_routes=a2a_routes)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mind.test") as http:
        quiet = A2AMind("http://mind.test/").over(http)
        await quiet.new_run()
        assert await quiet.inform("s", 1.5) is None
        told = A2AMind("http://mind.test/", informs=True).over(http)
        await told.new_run()
        assert (await told.get_action("s")).action == "s#1"
        assert await told.inform("s", 1.5) == 3.0
        assert (await told.get_action("s")).action == "s#2"  # the same run throughout
        runs = len(app.dispatcher.runs.runs)
        await told.end_run()  # told: the context's run ends there too
        assert len(app.dispatcher.runs.runs) == runs - 1
