"""A person as A for Meta(A) (seed 002), over real servers: ``wwm serve meta --arg
amplify=URL`` with the URL of a person-mind. Every question Meta(A) puts to a copy of A
appears on the person's page; the person here answers through the page's own HTTP API,
typing what the scripted policy of ``wwm.meta`` would type on reading the same screen."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.meta.agents import parse_transcript
from wwm.meta.scripted import ScriptedPolicy
from wwm.server.process import ServerProcess, free_port

pytestmark = pytest.mark.slow


async def sit_at_the_page(desk: str, answered: list[tuple[str, str]], stop: asyncio.Event) -> None:
    """The person: reads each question on the page, decides, types the answer."""
    policy = ScriptedPolicy()
    async with aiohttp.ClientSession() as http:
        while not stop.is_set():
            async with http.get(desk + "api/seats") as reply:
                seats = (await reply.json())["seats"]
            for seat in seats:
                question = seat["question"]
                if question is None:
                    continue
                observations, actions = parse_transcript(question["shown"])
                line = await policy.decide(observations, actions)
                async with http.post(f"{desk}api/seat/{seat['token']}",
                                     json={"question": question["number"], "action": line}) as reply:
                    assert reply.status == 200, await reply.text()
                answered.append((question["shown"], line))
            await asyncio.sleep(0.01)


async def test_meta_of_a_person_answers_through_the_persons_page():
    page_port = free_port()
    with ServerProcess("wwm.people:PersonMind", args={"timeout": 20, "page_port": page_port}) as person, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": person.url, "budget": 10000}) as meta, \
            ServerProcess("wwm.kit.eliza_world:ElizaWorld", args={"seed": 1}) as patient:
        answered: list[tuple[str, str]] = []
        stop = asyncio.Event()
        sitting = asyncio.ensure_future(sit_at_the_page(f"http://127.0.0.1:{page_port}/", answered, stop))
        try:
            world = RemoteWorld(patient.url)
            result = await run(RemoteMind(meta.url), world, RunSettings(steps=1, timeout=120))
        finally:
            stop.set()
            await sitting
    assert result.status == "completed" and len(result.steps) == 1
    step = result.steps[0]
    assert step.action == step.state       # the person echoed what Meta(A) observed, through Meta's decoding
    assert answered[0][0].startswith("what string should be returned by an agent in state #0 who observes #1?")
    assert answered[0][1] == "reply #1"
    assert len(answered) >= 2              # the top question, and the questions that decode its answer
