"""Meta(A) served as a WWM Mind drives a run in a world over HTTP; with A itself a Mind
server across the network; and a bad setting is refused with a reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wwm import connect
from wwm.client.runner import RunSettings, run
from wwm.meta.store import Store
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def echo_world():
    with ServerProcess("echo_world:EchoWorld", env=ENV) as server:
        yield server


@pytest.mark.slow
async def test_meta_mind_drives_a_run_in_a_world_over_http(echo_world, tmp_path):
    db = tmp_path / "meta.db"
    with ServerProcess("wwm.meta.mind:MetaMind", args={"budget": 100000, "store": db}) as mind:
        result = await run(connect(mind.url), connect(echo_world.url), RunSettings(steps=3, timeout=30))
    assert result.status == "ended by world"
    assert [s.action for s in result.steps] == ["hi", "ok!", "W-W-M"]
    assert result.total_score == 3
    store = Store(db)  # the server's computations outlive it
    assert [label for _, label, _ in store.computations()] == ["step 1: hi", "step 2: ok!", "step 3: W-W-M"]
    calls = store.load_calls(3)
    for call in calls:
        call.check()
    assert calls[0].question.render() == "what string should be returned by an agent in state #0 who observes #1?"


@pytest.mark.slow
async def test_an_amplified_listener_talks_with_the_projects_eliza_patient():
    # Every reply is computed by copies of A appending "?" to the patient's words one list
    # cell each, then decoded character by character; the memo makes the copies cheap.
    with ServerProcess("wwm.kit.eliza_world:ElizaWorld") as world, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": "scripted-listener"}) as mind:
        result = await run(connect(mind.url), connect(world.url), RunSettings(steps=4, timeout=60))
    assert [s.action for s in result.steps] == [s.state + "?" for s in result.steps]
    assert all(s.score >= 1 for s in result.steps)  # each reply engaged the patient
    assert result.total_score >= 4


@pytest.mark.slow
async def test_a_can_be_any_mind_on_the_network(echo_world):
    with ServerProcess("wwm.meta.mind:ScriptedMind") as a, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": a.url, "budget": 10000}) as mind:
        result = await run(connect(mind.url), connect(echo_world.url), RunSettings(steps=1, timeout=60))
        # A goes down in the middle of a run: Meta(A) cannot suggest, and says why.
        meta = connect(mind.url)
        await meta.new_run()
        a.kill()
        suggestion = await meta.get_action("hi")
    assert [s.action for s in result.steps] == ["hi"]
    assert result.total_score == 1
    assert not suggestion.can_suggest and suggestion.reason.startswith("A did not answer")


@pytest.mark.slow
async def test_bad_settings_are_refused_with_the_reason():
    with ServerProcess("wwm.meta.mind:MetaMind") as server:
        mind = connect(server.url, amplify="telepathy")
        with pytest.raises(Refusal, match="unknown A 'telepathy'"):
            await mind.new_run()
        mind = connect(server.url, budget=-5)
        with pytest.raises(Refusal, match="budget must be 0 or more"):
            await mind.new_run()
        mind = connect(server.url, store="/nonexistent/dir/meta.db")
        with pytest.raises(Refusal, match="store='/nonexistent/dir/meta.db' cannot be used"):
            await mind.new_run()


async def test_when_meta_cannot_read_the_answer_the_mind_cannot_suggest_and_says_why():
    from wwm.meta.agents import FunctionPolicy
    from wwm.meta.mind import MetaMind
    from wwm.meta.session import Session, Settings
    from wwm.meta.store import Store as MetaStore

    mind = MetaMind(budget=50, retries=1)
    mind.session = Session(Settings(budget=50, retries=1), FunctionPolicy("shrug", lambda o, a: "reply dunno"),
                           MetaStore())
    suggestion = await mind.get_action("hello")
    assert not suggestion.can_suggest
    assert "could not read the answer" in suggestion.reason and "'dunno'" in suggestion.reason


@pytest.mark.slow
async def test_a_served_listener_answers_an_observation_far_longer_than_pythons_stack():
    # One ask per character, 1,000 deep: it stopped at about 250 on Python's stack.
    state = ("a patient who keeps talking, " * 40)[:1000]
    with ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": "scripted-listener"}) as server:
        mind = connect(server.url, timeout=120)
        await mind.new_run()
        suggestion = await mind.get_action(state)
    assert suggestion.action == state + "?"
