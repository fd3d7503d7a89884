"""The Eliza-type World: a scripted patient scored on engagement and topics reached."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.client.runner import RunSettings, run
from wwm.kit.eliza import ElizaMind
from wwm.kit.eliza_world import ALL_TOPICS, ENGAGED, NEW_TOPIC, TOPICS, ElizaWorld
from wwm.kit.random_mind import RandomMind

FREE = RunSettings(steps=None, keepalive=None, timeout=5.0)


def topic(name: str):
    return next(t for t in TOPICS if t.name == name)


def test_the_patient_opens_with_a_seeded_topic():
    openings = {ElizaWorld(seed=s).said for s in range(12)}
    assert len(openings) > 1                                      # seeds differ
    assert ElizaWorld(seed=3).said == ElizaWorld(seed=3).said     # and repeat
    world = ElizaWorld(seed=3)
    assert world.said == world.topic.lines[0] and world.reached == [world.topic.name]


def test_an_engaging_reply_keeps_the_patient_talking():
    world = ElizaWorld(seed=0)
    first, current = world.said, world.topic
    assert world.respond("Why is that?") == ENGAGED               # a question engages
    assert world.said == current.lines[1] and world.said != first
    word = max((w.strip(".,") for w in world.said.split()), key=len)
    assert world.respond(f"Tell me about {word}.") == ENGAGED     # taking up a word engages too


def test_naming_a_new_topic_moves_the_talk_there():
    world = ElizaWorld(seed=0)
    other = next(t for t in TOPICS if t.name != world.topic.name)
    assert world.respond(f"And how is your {other.triggers[0]}?") == NEW_TOPIC
    assert world.topic is other and world.said == other.lines[0] and other.name in world.reached
    assert world.respond(f"Tell me about your {other.triggers[0]} again?") == ENGAGED  # no new points


@pytest.mark.parametrize("reply,line", [("", "Hello? Are you still there?"),
                                        (None, "Why are you repeating what I say?")])
def test_silence_and_parroting_try_its_patience(reply, line):
    world = ElizaWorld(seed=1, patience=2)
    assert world.respond(world.said if reply is None else reply) == 0.0
    assert world.said == line and world.bored == 1 and not world.finished
    world.respond("north")
    assert world.finished and "Goodbye" in world.said


def test_repeating_oneself_is_boring_but_patience_recovers():
    world = ElizaWorld(seed=2, patience=3)
    world.respond("Why?")
    assert world.respond("Why?") == 0.0 and world.said == "You said that already."
    assert world.respond("How did that feel?") == ENGAGED and world.bored == 0


def test_talking_through_every_topic_ends_with_a_bonus():
    world = ElizaWorld(seed=0, turns=100)
    total = 0.0
    while not world.finished:
        nxt = next((t for t in TOPICS if t.name not in world.reached), None)
        if nxt is not None and world.position >= len(world.topic.lines):
            total += world.respond(f"What about your {nxt.triggers[0]}?")
        else:
            total += world.respond(f"Why do you say that, turn {world.turn}?")
    assert sorted(world.reached) == sorted(t.name for t in TOPICS)
    assert "Thank you" in world.said
    assert total == world._score and total >= (len(TOPICS) - 1) * NEW_TOPIC + ALL_TOPICS


def test_the_run_ends_after_its_turns():
    world = ElizaWorld(turns=2)
    world.respond("Why?")
    assert not world.finished
    world.respond("How so?")
    assert world.finished


@pytest.mark.parametrize("kw", [{"turns": 0}, {"patience": 0}])
def test_bad_parameters(kw):
    with pytest.raises(ValueError, match="at least 1"):
        ElizaWorld(**kw)


async def test_world_interface_and_reset():
    world = ElizaWorld(seed=4, patience=1)
    await world.new_run()
    opening = await world.get_state()
    outcome = await world.execute_action("")
    assert outcome.finished and outcome.score == 0.0
    with pytest.raises(Refusal) as ended:
        await world.execute_action("Hello?")
    assert ended.value.code == "run-ended"
    await world.reset()
    assert await world.get_state() == opening and not world.finished
    assert await world.get_current_score() == 0.0


async def test_eliza_mind_talks_the_patient_through_every_topic():
    """The seed's initial test (10.1.1): an Eliza Mind talking to an Eliza World."""
    for seed in range(3):
        world = ElizaWorld(seed=seed, turns=40)
        result = await run(ElizaMind(), world, FREE)
        assert result.status == "ended by world"
        assert sorted(world.reached) == sorted(t.name for t in TOPICS), world.transcript
        assert result.total_score >= (len(TOPICS) - 1) * NEW_TOPIC + ALL_TOPICS
        assert result.world_score == result.total_score
        talk = [line for who, line in world.transcript if who == "listener"]
        assert len(set(talk)) == len(talk)                         # it never repeated itself


async def test_a_random_mind_bores_the_patient():
    world = ElizaWorld(seed=0, patience=3)
    result = await run(RandomMind(seed=1), world, FREE)
    assert result.status == "ended by world" and len(result.steps) == 3
    assert result.total_score == 0.0 and "Goodbye" in world.said


@pytest.mark.parametrize("policy", ["requery", "ignore-late"])
async def test_a_mind_too_slow_for_the_time_out_loses_the_run(policy):
    """10.1.1 with time-outs: the client gives up on a mind slower than it allows."""
    world = ElizaWorld(seed=0)
    settings = RunSettings(steps=5, keepalive=None, timeout=0.1, mind_wait=0.5, policy=policy)
    result = await run(ElizaMind(delay=0.3), world, settings)
    assert result.status == "mind lost" and result.steps == []
    assert any(e.kind == "timeout" for e in result.events)
    assert world.turn == 0                                   # nothing the slow mind said was used


@pytest.mark.slow
async def test_eliza_mind_server_talks_to_eliza_world_server():
    """10.1.1 over the network: both served, talking in the XML of 11.2.1."""
    import asyncio

    from wwm.client.remote import RemoteMind, RemoteWorld
    from wwm.server.process import ServerProcess

    servers = [ServerProcess("wwm.kit.eliza:ElizaMind"), ServerProcess("wwm.kit.eliza_world:ElizaWorld")]
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in servers))
        mind = RemoteMind(servers[0].url, encoding="xml")
        world = RemoteWorld(servers[1].url, encoding="xml", seed=2, turns=40)
        remote = await run(mind, world, FREE)
        await mind.aclose(), await world.aclose()
        local = await run(ElizaMind(), ElizaWorld(seed=2, turns=40), FREE)
        assert remote.status == "ended by world" and remote.total_score == local.total_score
        assert [(s.state, s.action) for s in remote.steps] == [(s.state, s.action) for s in local.steps]
        assert any("'" in s.state for s in remote.steps)    # text with quotes crossed the XML intact
    finally:
        for server in servers:
            server.stop()


async def test_a_conversation_survives_a_snapshot():
    import pickle

    world, mind = ElizaWorld(seed=1), ElizaMind()
    for _ in range(3):
        await world.execute_action((await mind.get_action(world.said)).action)
    world2, mind2 = pickle.loads(pickle.dumps(world)), pickle.loads(pickle.dumps(mind))
    for _ in range(4):
        a, b = await mind.get_action(world.said), await mind2.get_action(world2.said)
        assert a == b and await world.execute_action(a.action) == await world2.execute_action(b.action)
