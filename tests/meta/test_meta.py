"""Meta(A): encoding round trips through the decoding questions, asking again on a bad
answer, loops in answers, and a scripted A that sorts a list it sees only through pointers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.meta.agents import Agent, FunctionPolicy, LinesPolicy
from wwm.meta.hch import HCH, DictMemo
from wwm.meta.messages import Message
from wwm.meta.meta import DecodeError, Decoder, Meta, encode, encode_int
from wwm.meta.scripted import ScriptedPolicy

SORT = "what is the sorted version of the list []?"


def scripted_hch(budget: int = 10 ** 6, memo=None) -> HCH:
    return HCH(Agent(ScriptedPolicy()), budget, memo=memo, budget_display="rounded", split="all")


def test_integers_are_binary_with_the_least_significant_bit_outermost():
    assert encode_int(0).expand() == "zero"
    assert encode_int(2).expand() == "two times (two times (zero) plus one)"
    assert encode_int(-3).expand() == "the additive inverse of (two times (two times (zero) plus one) plus one)"


@settings(max_examples=25, deadline=None)
@given(value=st.integers(-10 ** 6, 10 ** 6) | st.floats(allow_nan=False, allow_infinity=False, width=32)
       | st.text(max_size=4) | st.lists(st.integers(-100, 100), max_size=4))
async def test_values_survive_encoding_and_decoding_by_questions(value):
    kind = type(value) if not isinstance(value, list) else list[int]
    decoder = Decoder(scripted_hch())
    assert await decoder.reader(kind)(encode(value)) == value


async def test_an_answer_that_is_not_yes_or_no_is_asked_about_again():
    policy = LinesPolicy(["reply perhaps", "reply I said perhaps", "reply yes"])
    decoder = Decoder(HCH(Agent(policy), 100))
    assert await decoder.list(Message.of("some list"), decoder.int) == []
    assert policy.seen[1].startswith("your answer was #1, but the answer must be exactly one of: yes, no. "
                                     "So, is it empty? (respond yes/no)")


async def test_after_the_retries_a_decode_error_says_what_was_asked_and_answered():
    decoder = Decoder(HCH(Agent(FunctionPolicy("stubborn", lambda o, a: "reply maybe")), 100), retries=2)
    with pytest.raises(DecodeError, match=r"asked 'is \[…\] empty\? \(respond yes/no\)' 3 times .* 'maybe'"):
        await decoder.list(Message.of("a list"), decoder.int)


async def test_an_answer_that_loops_is_reported_not_followed_forever():
    # An A that says every list is non-empty and is its own remainder.
    def liar(observations, actions):
        last = observations[-1]
        if last.startswith("is"):
            return "reply no"
        return "reply zero" if "first" in last else "reply #0"
    decoder = Decoder(HCH(Agent(FunctionPolicy("liar", liar)), 100))
    with pytest.raises(DecodeError, match="loop"):
        await decoder.list(Message.of("a list"), decoder.str)


async def test_meta_with_a_scripted_a_sorts_a_list_it_sees_only_through_pointers():
    budget = 10 ** 5
    meta = Meta(scripted_hch(budget))
    value, calls = await meta.compute(SORT, [31, 4, 15, 9, 26, 5, 3], returns=list[int])
    assert value == [3, 4, 5, 9, 15, 26, 31]
    root = calls[0]
    root.check()
    assert root.spent < budget  # the sort itself; each decoding question had its own budget
    assert root.totals()["loops"] == 0


async def test_the_memo_cuts_calls_to_a_on_a_second_similar_question():
    plain, cached = scripted_hch(), scripted_hch(memo=DictMemo())
    counts = {}
    for name, hch in (("plain", plain), ("cached", cached)):
        meta = Meta(hch)
        for xs in ([7, 2, 9, 4], [7, 2, 9, 4, 1]):
            value, calls = await meta.compute(SORT, xs, returns=list[int])
            assert value == sorted(xs)
            counts[name, len(xs)] = sum(c.totals()["a_calls"] for c in calls)
    # Without the memo each question costs every call again; with it the second, similar
    # question reuses the comparisons and decoding steps already answered.
    assert counts["cached", 4] < counts["plain", 4]
    assert counts["cached", 5] < counts["plain", 5] / 4
    print("calls to A:", counts)


async def test_meta_act_echoes_and_keeps_its_state_as_a_message():
    meta = Meta(scripted_hch())
    action, meta2 = await meta.act("hi!")
    assert action == "hi!"
    assert meta2.state.expand().startswith("the state of an agent who last saw (the string with list of characters")
    action, _ = await meta2.act("")
    assert action == ""


@pytest.mark.parametrize("code", [-1, 0xD800, 0xDFFF, 0x110000])
async def test_a_code_that_is_no_character_is_a_decode_error(code):
    # A lone surrogate would decode to a str that cannot be written as UTF-8 (XML on the wire).
    decoder = Decoder(scripted_hch())
    with pytest.raises(DecodeError, match=f"{code} is not a character code"):
        await decoder.char(Message.of("the character with ASCII code []", encode_int(code)))
    assert await decoder.char(Message.of("the character with ASCII code []", encode_int(0xE000))) == "\ue000"


async def test_a_comparison_that_fails_is_passed_up_not_taken_as_no():
    # The scripted insertion sort used to read any answer but "yes" as "no": a comparison that
    # could not be made still produced a (wrong) list.
    meta = Meta(scripted_hch())
    with pytest.raises(DecodeError, match="the first answer was '<<I can only compare integers>>'"):
        await meta.compute(SORT, [3, "x"], returns=list[int])
