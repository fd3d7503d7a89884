"""The original's ``examples.meta.act("test")`` session, replayed by a scripted A: the same
screens, pointer names included, and the same final answer and state."""

from __future__ import annotations

from wwm.meta.agents import Agent, LinesPolicy
from wwm.meta.hch import HCH
from wwm.meta.meta import Meta, encode_str

LINES = [
    "view #0",
    "view #1",
    "ask what is the first element of the list #2?",
    "view #1",
    "reply #2",
    "ask@3 which character is it, as a letter?",
    "reply the letter t",
    "ask$1 say hi",
    "reflect",
    "out of budget, sorry",
    "reflect",
    "hello",
    "reply the empty string",
    "reply the state of an agent who has seen (the observation #1) and output (the empty string)",
    "reply the empty list",
    "reply yes",
]

SCREENS = [
    "what string should be returned by an agent in state #0 who observes #1?\n[Remaining budget is 100000000]",
    "the initial state of an agent\n[Remaining budget is 99999999]",
    "the string with list of characters #2\n[Remaining budget is 99999998]",
    "@0: what is the first element of the list #1?\n[Remaining budget is 9999999]",
    "the list with first element #2 and remaining elements in the list #3\n[Remaining budget is 9999998]",
    "@3: the character with ASCII code #4\n[Remaining budget is 99999995]",
    "@4: which character is it, as a letter?\n[Remaining budget is 9999999]",
    "@5: the letter t\n[Remaining budget is 99999993]",
    "@0: say hi\n[Remaining budget is 1]",
    "you are @1\n[You have no budget, type a message to reply]",
    "@6: out of budget, sorry\n[Remaining budget is 99999991]",
    "you are @7\n[Remaining budget is 99999990]",
    "the valid commands are 'reply', 'ask', 'reflect', 'view', and 'ask@N'\n[Remaining budget is 99999989]",
    "what should the agent's state be after responding?\n[Remaining budget is 100000000]",
    "what is the list of characters in #0?\n[Remaining budget is 100000000]",
    "is #0 empty? (respond yes/no)\n[Remaining budget is 100000000]",
]


async def test_scripted_a_reproduces_the_original_session_for_test():
    script = LinesPolicy(LINES)
    step = await Meta(HCH(Agent(script))).step("test")
    assert script.seen == SCREENS
    assert step.action == ""
    expected_state = ("the state of an agent who has seen (the observation "
                      f"({encode_str('test').expand()})) and output (the empty string)")
    assert step.meta.state.expand() == expected_state
    assert expected_state.startswith(
        "the state of an agent who has seen (the observation (the string with list of characters "
        "(the list with first element (the character with ASCII code (two times (two times (two times")
    for call in step.calls:
        call.check()
    root = step.calls[0]
    assert (root.budget, root.remaining) == (10 ** 8, 10 ** 8 - 12)
    assert [c.spent for c in root.children] == [2, 1, 1]  # the asker pays each of these plus one


async def test_an_echo_bot_takes_the_originals_number_of_steps():
    # The reference notes measured a scripted echo bot inside the original: 78 steps of A to
    # echo "hi" and 150 to echo "test". The scripted A here echoes in exactly as many.
    from wwm.meta.scripted import ScriptedPolicy

    for text, steps in (("hi", 78), ("test", 150)):
        step = await Meta(HCH(Agent(ScriptedPolicy()))).step(text)
        assert step.action == text
        assert sum(c.totals()["a_calls"] for c in step.calls) == steps
