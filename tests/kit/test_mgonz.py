"""MGonz, the rude Eliza-type mind: its retorts, its memory of earlier lines, its stalling
answers; and MGonz and Eliza talking to each other over real servers, each the other's
World (sections 3.2 and 10.1.1), the same conversation as in one process."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.kit.eliza import ElizaMind
from wwm.kit.mgonz import QUESTION_RETORTS, REPEATED, STALLS, MGonzMind
from wwm.kit.mind_as_world import MindAsWorld
from wwm.server.process import ServerProcess

SETTINGS = RunSettings(steps=10, keepalive=None, timeout=10.0)
OPENING = "I am worried that my boss hates me."


def test_it_turns_words_round_curtly_and_in_lower_case():
    mgonz = MGonzMind()
    assert mgonz.reply("I think my exams went badly.") == "you think your exams went badly? you think wrong"
    assert mgonz.reply("You are rude!") == "is that the best insult you can manage"   # an insult outranks "you are"
    assert mgonz.reply("You are a slow typist") == "im not a slow typist, you are"
    # a question is dodged: a retort, then a line of the speaker's own thrown back, in turn
    answers = [mgonz.reply(line) for line in ("Is it raining?", "Who are you?", "Why?")]
    assert answers == [QUESTION_RETORTS[0], "earlier you said you think your exams went badly. explain that",
                       QUESTION_RETORTS[1]]
    fresh = MGonzMind()
    assert [fresh.reply(q) for q in ("Is it raining?", "Who are you?")] == list(QUESTION_RETORTS[:2])


def test_it_remembers_earlier_lines_and_notices_repetition():
    mgonz = MGonzMind()
    stalls = [mgonz.reply(line) for line in ("My cat ignores me all day", "the weather is grey here today")]
    assert stalls == list(STALLS[:2])                                               # stalling answers
    assert mgonz.reply("The Weather is grey here today!") in REPEATED               # the same line again
    assert mgonz.reply("the bus was late again") == "earlier you said your cat ignores you all day. explain that"
    assert mgonz.reply("lunch was cold again today") == STALLS[2]                   # each thrown back once
    assert mgonz.reply("") == "say something or go away"


@pytest.mark.parametrize("args", [{"memory": 0}, {"delay": -1}])
def test_bad_arguments_are_refused_by_name(args):
    with pytest.raises(ValueError, match=next(iter(args))):
        MGonzMind(**args)


@pytest.mark.slow
async def test_mgonz_and_eliza_talk_over_real_servers_each_the_others_world():
    mgonz, eliza = ServerProcess("wwm.kit.mgonz:MGonzMind"), ServerProcess("wwm.kit.eliza:ElizaMind")
    wrappers = [ServerProcess("wwm.kit.mind_as_world:MindAsWorld") for _ in range(2)]
    servers = [mgonz, eliza, *wrappers]
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in servers))
        # MGonz is the mind and Eliza the world; then the other way round
        talks = {}
        for name, (mind, other), wrapper in (("mgonz", (mgonz, eliza), wrappers[0]),
                                             ("eliza", (eliza, mgonz), wrappers[1])):
            world = RemoteWorld(wrapper.url, mind=other.url, opening=OPENING)
            talks[name] = await run(RemoteMind(mind.url), world, SETTINGS)
        local = await run(MGonzMind(), MindAsWorld(ElizaMind(), opening=OPENING), SETTINGS)
        local_other = await run(ElizaMind(), MindAsWorld(MGonzMind(), opening=OPENING), SETTINGS)
    finally:
        for server in servers:
            server.stop()
    for talk, alone in ((talks["mgonz"], local), (talks["eliza"], local_other)):
        assert talk.status == "completed" and len(talk.steps) == 10
        assert [(s.state, s.action) for s in talk.steps] == [(s.state, s.action) for s in alone.steps]
        assert all(s.new_state == t.state for s, t in itertools.pairwise(talk.steps))  # each hears the other
    said = talks["mgonz"].steps
    # MGonz throws Eliza's earlier line back at it, and notices when Eliza repeats itself
    assert any(s.action == "earlier you said your boss hates you. explain that" for s in said)
    repeats = [i for i, s in enumerate(said) if s.action in REPEATED]
    assert repeats and all(said[i].state in {s.state for s in said[:i]} for i in repeats)
