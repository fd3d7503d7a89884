"""HCH: every mistake comes back as an observation, budgets add up, snapshots fork, loops and
the memo behave; random computations (hypothesis) never crash or break an invariant."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.meta.agents import Agent, FunctionPolicy, LinesPolicy
from wwm.meta.hch import HCH, DictMemo, HCHAgent
from wwm.meta.messages import Channel, Message
from wwm.meta.meta import encode


def lines(*script: str) -> Agent:
    return Agent(LinesPolicy(script))


async def test_mistakes_come_back_as_observations_and_cost_one():
    policy = LinesPolicy(["view #9", "view @0", "ask@0 hi", "view #0 (", "frobnicate", "reply done"])
    answer = await HCH(Agent(policy), 100).ask(Message.of("look at []", Message.of("x")))
    assert [s.split("\n")[0] for s in policy.seen[1:]] == [
        "there is no #9: your pointers are numbered 0 to 0",
        "@0 is not an agent but a message: write #0 to view it",
        "@0 is not an agent but a message: write #0 to view it",
        "malformed command: the '(' at column 9 is never closed",
        "the valid commands are 'reply', 'ask', 'reflect', 'view', and 'ask@N'",
    ]
    assert answer.reply == Message.of("done")
    assert answer.call.remaining == 100 - 6
    answer.call.check()


async def test_a_wrong_type_of_pointer_to_an_agent_is_explained():
    policy = LinesPolicy(["reflect", "view #0", "reply ok"])
    await HCH(Agent(policy), 10).ask(Message.of("hi"))
    assert policy.seen[2].startswith("#0 is not a message but an agent: write @0 to ask it")


async def test_at_zero_budget_the_line_is_the_reply_and_bad_pointers_are_reported():
    answer = await HCH(lines("reply #5"), 0).ask(Message.of("q"))
    assert answer.reply.expand() == "<<malformed message: there is no #5: your pointers do not exist yet>>"
    assert (answer.call.spent, answer.call.own_ops) == (0, 0)


async def test_asking_an_old_snapshot_forks_it():
    def count(observations, actions):
        first = observations[0]
        if first.startswith("boss"):
            return ["ask how many?", "ask@0 how many now?", "ask@0 how many now?",
                    "ask@1 and now?", "reply done"][len(actions)]
        return f"reply I have seen {len(observations)} screens"
    answer = await HCH(Agent(FunctionPolicy("count", count)), 1000).ask(Message.of("boss"))
    replies = [c.reply.expand() for c in answer.call.children]
    # @0 is the child after one screen; asking it twice forks the same snapshot both times,
    # while @1 (the snapshot after its second screen) remembers one more.
    assert replies == ["I have seen 1 screens", "I have seen 2 screens", "I have seen 2 screens",
                       "I have seen 3 screens"]


async def test_reflect_and_spawn_give_channels_and_a_spawned_agent_starts_fresh():
    def policy(observations, actions):
        if observations[0].startswith("root"):
            return ["spawn", "ask@0 who are you?", "reply ok"][len(actions)]
        return f"reply fresh with {len(observations)} screen"
    p = FunctionPolicy("p", policy)
    seen = []
    hch = HCH(Agent(p), 100, on_step=lambda call, step: seen.append(step.observation))
    await hch.ask(Message.of("root"))
    assert seen[1].startswith("you spawned @0")
    assert seen[3].startswith("@1: fresh with 1 screen")


async def test_budgets_split_a_tenth_by_default_and_refund_what_is_unspent():
    answer = await HCH(lines("ask think about #0", "view #1", "reply #1", "reply fine"), 1000).ask(
        Message.of("q []", Message.of("x")))
    child = answer.call.children[0]
    assert (child.budget, child.spent, child.remaining) == (100, 2, 98)
    assert answer.call.spent == 1 + 2 + 1
    answer.call.check()


async def test_a_repeated_question_with_the_same_pointers_is_reported_as_a_loop():
    # A that always passes the question on unchanged would recurse until the budget ran out.
    def relay(observations, actions):
        if not actions:
            return "ask what is #1?" if observations[0].startswith("@") else "ask what is #0?"
        return "reply " + observations[-1].split("\n")[0].replace("@", "agent ").replace("#", "message ")
    answer = await HCH(Agent(FunctionPolicy("relay", relay)), 10 ** 6).ask(
        Message.of("what is []?", Message.of("x")))
    assert answer.call.totals()["loops"] == 1
    assert "loop detected" in answer.reply.expand()
    assert answer.call.totals()["calls"] == 2  # the root, one child; the grandchild refused
    answer.call.check()


async def test_the_memo_answers_a_seen_situation_and_can_be_invalidated():
    calls = []

    def policy(observations, actions):
        calls.append(observations[-1])
        return "reply yes" if "zero" in observations[0] else "reply no"
    memo = DictMemo()
    hch = HCH(Agent(FunctionPolicy("p", policy)), 100, memo=memo)
    first = await hch.ask(Message.of("is it zero?"))
    second = await hch.ask(Message.of("is it zero?"))
    assert len(calls) == 1 and first.reply == second.reply == Message.of("yes")
    assert second.call.steps[0].cached
    assert memo.invalidate(second.call.steps[0].memo_key)
    await hch.ask(Message.of("is it zero?"))
    assert len(calls) == 2


# ---- properties over random computations ----------------------------------------------
MENU = ["view #{k}", "view @{k}", "ask what about #{k}?", "ask@{k} and you?", "ask${b} deeper #{k}",
        "ask go on", "ask${b} and on", "ask@{k} again",
        "ask@{k}${b} (nested #{k} (more)) @{k}", "reply #{k}", "reply got #{k}", "reflect", "spawn",
        "note #{k}", "garbage {k}", "view (#{k}", "reply #{k} )", "ask@99 x", ""]


def random_policy(seed: int) -> FunctionPolicy:
    def decide(observations, actions):
        rng = random.Random(f"{seed}:{len(observations)}:{observations[-1]}:{len(observations[0])}")
        if len(actions) > 12 or rng.random() < 0.15:
            return "reply enough"
        template = rng.choice(MENU)
        return template.format(k=rng.randrange(0, 5), b=rng.randrange(0, 40))
    return FunctionPolicy(f"random-{seed}", decide)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), budget=st.integers(0, 400),
       data=st.recursive(st.integers(-50, 50) | st.text("abc", max_size=3), lambda c: st.lists(c, max_size=3),
                         max_leaves=6))
async def test_random_computations_never_crash_conserve_budget_and_change_nothing(seed, budget, data):
    question = Message.of("consider [] and []", encode(data), Message.of("(x)"))
    before = {m.key: m.expand() for m in question.walk()}
    memo = DictMemo()
    hch = HCH(Agent(random_policy(seed)), budget, memo=memo, split="tenth" if seed % 2 else "all")
    answer = await hch.ask(question)
    answer.call.check()  # every node: spent == own ops + sub-calls, 0 <= remaining <= budget
    assert answer.call.budget == answer.call.spent + answer.call.remaining
    assert {m.key: m.expand() for m in question.walk()} == before
    for node in question.walk():  # keys still match the content
        if isinstance(node, Message):
            assert Message(node.texts, node.args).key == node.key
    agents = {}  # every agent snapshot handed out, with what it was when handed out
    for call in answer.call.walk():
        for message in (call.question, call.reply):
            for node in message.walk():
                if isinstance(node, Channel):
                    agents[node.agent.key] = (node.agent, len(node.agent.env), node.agent.a.transcript)
    again = await hch.ask(question)  # same A, same question: same reply (deterministic A)
    for key, (agent, size, transcript) in agents.items():
        assert len(agent.env) == size and agent.a.transcript is transcript
        assert HCHAgent.build(Agent(agent.a.policy, transcript), list(agent.env)).key == key
    assert again.reply == answer.reply
    assert again.call.totals()["a_calls"] == 0


async def test_offering_more_budget_than_one_has_is_capped_and_said():
    policy = LinesPolicy(["ask$500 go", "reply spent", "reply ok"])
    answer = await HCH(Agent(policy), 10).ask(Message.of("q"))
    assert answer.call.children[0].budget == 9
    assert policy.seen[2] == ("@0: spent\n[you offered $500 but had 10, so the ask handed over 9]"
                              "\n[Remaining budget is 8]")


@settings(max_examples=40, deadline=None)
@given(typed=st.lists(st.text(max_size=30), min_size=1, max_size=8), budget=st.integers(0, 30))
async def test_whatever_an_agent_types_yields_a_message_not_an_exception(typed, budget):
    def decide(observations, actions):
        return typed[len(actions)] if len(actions) < len(typed) else "reply end"
    answer = await HCH(Agent(FunctionPolicy("typist", decide)), budget).ask(
        Message.of("q [] []", Message.of("x"), encode([1, -2])))
    answer.call.check()
    assert isinstance(answer.reply, Message)


async def test_a_tree_that_keeps_growing_deeper_is_stopped_with_a_message_not_a_crash():
    # Every copy asks a new, longer question: no loop, and budget enough for thousands of
    # levels; a declared max_depth stops it with a message.
    def deeper(observations, actions):
        if not actions:
            return "ask level (wrapped #1)" if observations[0].startswith("@") else "ask level #0"
        return "reply " + observations[-1].split("\n")[0].replace("@", "at ").replace("#", "no. ")
    answer = await HCH(Agent(FunctionPolicy("deeper", deeper)), 10 ** 6, split="all", max_depth=250).ask(
        Message.of("level []", Message.of("x")))
    answer.call.check()
    assert answer.call.totals()["calls"] == 251
    assert "too deep: this question is already 250 asks below the top" in answer.reply.expand()


def test_a_rounded_budget_is_the_largest_power_of_ten_not_above_it():
    from wwm.meta.hch import budget_line

    # math.log10 rounds 10**15 - 1 up to 15.0, which claimed "at least 10**15".
    for budget, shown in ((1, 1), (9, 1), (10, 10), (99, 10), (10 ** 15 - 1, 10 ** 14), (10 ** 15, 10 ** 15),
                          (10 ** 30 - 1, 10 ** 29)):
        assert budget_line(budget, "rounded") == f"\n[Remaining budget is at least {shown}]"
    assert budget_line(0, "rounded") == "\n[You have no budget, type a message to reply]"


@pytest.mark.slow
async def test_a_20000_character_observation_is_worked_on_20000_asks_deep():
    # The listener appends "?" to a list by asking a fresh copy of itself about the rest of
    # it: one ask per character, so the tree is as deep as the observation is long. It runs
    # on the interpreter's own stack (it stopped at about 250 on Python's): 20,000 is 20 times
    # Python's recursion limit. (benchmarks/meta_length.py works 100,000 asks deep, the depth
    # docs/howto/meta.md states, and checks the count of asks there; here it cost 25-70 s.)
    from wwm.meta.scripted import ScriptedPolicy

    n = 20_000
    assert n > 10 * sys.getrecursionlimit()
    observation = ("any length " * n)[:n]
    hch = HCH(Agent(ScriptedPolicy("listener")), 10 ** 9, split="all", memo=DictMemo())
    answer = await hch.ask(Message.of("what is the list [] with a question mark added at the end?",
                                      encode(observation).args[0]))
    answer.call.check()
    assert answer.call.totals()["calls"] == n + 1
    codes, cell = [], answer.reply
    while cell.texts[0].startswith("the list with first element"):
        char, cell = cell.args
        codes.append(_value(char.args[0]))
    assert "".join(map(chr, codes)) == observation + "?"


def _value(encoded: Message) -> int:
    """An encoded integer read directly off its tree (not by asking)."""
    bits = []
    while encoded.texts[0] != "zero":
        bits.append(1 if encoded.texts[-1].endswith("plus one") else 0)
        encoded = encoded.args[0]
    return sum(bit << i for i, bit in enumerate(bits))
