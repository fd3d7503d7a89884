"""The SQLite store: identical trees stored once, computations reloaded by a new Store on the
same file, and a reloaded agent snapshot asked again (a fork) with its policy supplied."""

from __future__ import annotations

from sqlalchemy import func, select

from wwm.meta.agents import Agent, FunctionPolicy
from wwm.meta.hch import HCH
from wwm.meta.messages import Message
from wwm.meta.meta import encode
from wwm.meta.store import Store, messages


def count(store: Store) -> int:
    with store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(messages)).scalar()


def test_identical_trees_are_stored_once(tmp_path):
    store = Store(tmp_path / "s.db")
    a = encode([1, 2, 3])
    b = encode([1, 2, 3])  # built separately, equal content
    assert a is not b and a.key == b.key
    store.save(a)
    store.save(Message.of("both [] and []", a, b))
    store.flush()
    # [1,2,3]: 4 list nodes, ints 0..3 share "zero" and subtrees: zero, 1, 2=two times 1, 3
    assert count(store) == 4 + 4 + 1
    again = Store(tmp_path / "s.db").load_message(a.key)
    assert again == a and again.expand() == a.expand()


def counting(name: str = "counter") -> FunctionPolicy:
    def decide(observations, actions):
        if observations[0].startswith("boss"):
            return ["ask remember #0", "reply done"][len(actions)]
        first_word = observations[0].split(": ", 1)[-1].split()[0]
        return f"reply I have seen {len(observations)} screens, the first saying {first_word}"
    return FunctionPolicy(name, decide)


async def test_a_computation_survives_a_restart_and_its_snapshots_can_be_forked(tmp_path):
    path = tmp_path / "run.db"
    store = Store(path)
    answer = await HCH(Agent(counting()), 1000).ask(Message.of("boss [] ", Message.of("the secret")))
    child = answer.call.children[0]
    number = store.record("fork test", [answer.call])
    del store

    later = Store(path)  # as a new process would
    (root,) = later.load_calls(number)
    root.check()
    assert root.children[0].reply.expand() == child.reply.expand()
    assert [s.action for s in root.steps] == ["ask remember #0", "reply done"]
    # The child's final snapshot, rebuilt from the file, is asked again: it forks and
    # remembers what it saw before the restart.
    snapshot = later.load_agent(child.final_agent_key, policies={"counter": counting()})
    fork = await HCH(Agent(counting()), 100).ask(Message.of("and now?"), to=snapshot)
    assert fork.reply.expand() == "I have seen 2 screens, the first saying remember"
    # Without its policy the snapshot can still be loaded and inspected.
    bare = later.load_agent(child.final_agent_key)
    assert bare.key == snapshot.key and bare.env[1] == Message.of("the secret")


def test_keys_tell_apart_sequences_that_join_to_the_same_text():
    from wwm.meta.messages import digest

    assert digest("a\x1fb") != digest("a", "b")
    assert digest("a", "b\x1fc") != digest("a\x1fb", "c")
    assert digest("a", "b") == digest("a", "b") != digest("ab")
    assert Message.of("x\x1fy").key != Message(("x", "y"), (Message.of(""),)).key


def test_very_deep_messages_are_stored_shown_and_reloaded(tmp_path):
    deep = encode("x" * 3000)  # a list nested 3000 deep
    store = Store(tmp_path / "deep.db")
    store.save(deep)
    store.flush()
    again = Store(tmp_path / "deep.db").load_message(deep.key)
    assert again == deep
    assert again.expand().count("(the list with first element") == 3000
