"""The Eliza-type mind: keywords by rank, reflected fragments, memory, no repetition."""

from __future__ import annotations

import asyncio

import pytest

from wwm.kit.eliza import ElizaMind, reflect


@pytest.mark.parametrize("said,heard", [
    ("I hate my job", "you hate your job"),
    ("you are unfair to me", "I am unfair to you"),
    ("I was tired.", "you were tired"),
    ("they are kind", "they are kind"),
])
def test_reflect_turns_words_round(said, heard):
    assert reflect(said) == heard


def test_the_highest_ranked_keyword_wins_and_fragments_are_reflected():
    mind = ElizaMind()
    assert mind.reply("I feel that my mother ignores me") == "Say a little more about your mother."
    assert mind.reply("I feel lost without my notes") == "When did you first notice feeling lost without your notes?"
    assert mind.reply("I am worn out") == "What has it been like, being worn out?"


def test_it_rotates_templates_instead_of_repeating():
    mind = ElizaMind()
    replies = [mind.reply("I am sad") for _ in range(3)]
    assert len(set(replies)) == 3 and all("sad" in r for r in replies)


def test_it_remembers_what_was_said_about_my_things():
    mind = ElizaMind()
    mind.reply("My garden is full of weeds")
    later = [mind.reply("Hmm.") for _ in range(2)]
    assert any("your garden is full of weeds" in r for r in later), later


async def test_get_action_answers_text_and_handles_silence():
    mind = ElizaMind()
    await mind.new_run()
    assert (await mind.get_action("Hello")).action.startswith("Hello")
    assert "listening" in (await mind.get_action("   ")).action
    assert mind.heard == ["Hello"]


async def test_a_slow_mind_answers_after_its_delay():
    mind = ElizaMind(delay=0.2)
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(mind.get_action("I am here"), 0.05)
    assert (await mind.get_action("I am here")).can_suggest
    assert loop.time() - start >= 0.25


def test_a_negative_delay_is_refused():
    with pytest.raises(ValueError, match="delay"):
        ElizaMind(delay=-1)
