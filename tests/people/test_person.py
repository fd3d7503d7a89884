"""A person as a mind and as a world, answered through the desk's HTTP API on loopback (what
the person's page sends): the question shown, an answer not allowed refused by name, a
time-out that becomes "Cannot suggest action" (mind) or a ``timeout`` refusal (world)."""

from __future__ import annotations

import asyncio
import gc

import aiohttp
import pytest

from wwm.people import PersonMind, PersonWorld
from wwm.protocol.errors import Refusal


async def waiting(http: aiohttp.ClientSession, seat_url: str, until=lambda q: True) -> dict:
    """The seat, once the page would show a question (``until`` it is the one awaited)."""
    api = seat_url.replace("/seat/", "/api/seat/")
    for _ in range(500):
        async with http.get(api) as reply:
            seat = await reply.json()
        if seat["question"] is not None and until(seat["question"]):
            return seat
        await asyncio.sleep(0.01)
    raise AssertionError("no such question came")


async def answer(http: aiohttp.ClientSession, seat_url: str, **form) -> tuple[int, dict]:
    async with http.post(seat_url.replace("/seat/", "/api/seat/"), json=form) as reply:
        return reply.status, await reply.json()


async def test_the_person_answers_for_the_mind_and_a_wrong_action_is_refused_by_name():
    mind = PersonMind(actions="north, south,east", timeout=10, title="Ann")
    started = await mind.new_run()
    assert started.display_url.startswith(mind.desk.url + "seat/")
    async with aiohttp.ClientSession() as http:
        asked = asyncio.ensure_future(mind.get_action("x=1 y=2"))
        seat = await waiting(http, started.display_url)
        q = seat["question"]
        assert (seat["role"], seat["title"], q["kind"], q["shown"]) == ("mind", "Ann", "action", "x=1 y=2")
        assert q["allowed"] == ["north", "south", "east"] and 0 < q["seconds_left"] <= 10
        status, body = await answer(http, started.display_url, question=q["number"], action="up")
        assert status == 400 and body["error"] == ("'up' is not an allowed action: the allowed actions are "
                                                   "north, south, east")
        assert not asked.done()
        status, _ = await answer(http, started.display_url, question=q["number"] + 1, action="north")
        assert status == 409                                       # not the question waiting
        assert await answer(http, started.display_url, question=q["number"], action=" NORTH ") == (200, {"ok": True})
        suggestion = await asked
        assert suggestion.action == "north"
        await mind.inform("x=1 y=3", 2.0)
        async with http.get(mind.desk.url + "api/seats") as reply:
            listed = {s["token"]: s for s in (await reply.json())["seats"]}
        here = listed[seat["token"]]
        assert here["question"] is None and here["answered"] == 1
        assert [h["text"] for h in here["history"]][-2:] == ["north", "x=1 y=3   (score 2)"]
        # the person may decline: "Cannot suggest action", not "Do nothing"
        asked = asyncio.ensure_future(mind.get_action("x=1 y=3"))
        q = (await waiting(http, started.display_url))["question"]
        assert (await answer(http, started.display_url, question=q["number"], cannot=True))[0] == 200
        declined = await asked
        assert not declined.can_suggest and "Cannot suggest action" in declined.reason
        assert await mind.end_run() == 2.0


async def test_nobody_answering_in_time_is_cannot_suggest_action_and_a_late_answer_is_refused():
    mind = PersonMind(timeout=0.3)
    started = await mind.new_run()
    async with aiohttp.ClientSession() as http:
        asked = asyncio.ensure_future(mind.get_action("anyone there?"))
        q = (await waiting(http, started.display_url))["question"]
        suggestion = await asked
        assert not suggestion.can_suggest
        assert suggestion.reason == "nobody answered at the person's page within 0.3 s"
        status, body = await answer(http, started.display_url, question=q["number"], action="hello")
        assert status == 409 and "no longer waiting" in body["error"]
        # with no actions given, any line is an action; an empty one is refused with what to do
        asked = asyncio.ensure_future(mind.get_action("again?"))
        q = (await waiting(http, started.display_url))["question"]
        assert await answer(http, started.display_url, question=q["number"], action="  ") == (
            400, {"error": "type an action (or press 'Cannot suggest action')"})
        assert (await answer(http, started.display_url, question=q["number"], action="hello there"))[0] == 200
        assert (await asked).action == "hello there"


async def test_the_person_says_what_the_world_does():
    world = PersonWorld(timeout=10)
    started = await world.new_run()
    async with aiohttp.ClientSession() as http:
        state = asyncio.ensure_future(world.get_state())
        q = (await waiting(http, started.display_url))["question"]
        assert q["kind"] == "opening"
        await answer(http, started.display_url, question=q["number"], state="I feel low today.")
        assert await state == "I feel low today."
        assert await world.get_state() == "I feel low today."        # asked once
        outcome = asyncio.ensure_future(world.execute_action("Why do you feel low?"))
        q = (await waiting(http, started.display_url))["question"]
        assert (q["kind"], q["shown"]) == ("outcome", "Why do you feel low?")
        status, body = await answer(http, started.display_url, question=q["number"], state="Work.", score="lots")
        assert status == 400 and body["error"] == "the score must be a number (or left blank), not 'lots'"
        assert (await answer(http, started.display_url, question=q["number"], state="Work.", score="1.5",
                             finished=True))[0] == 200
        done = await outcome
        assert (done.state, done.score, done.finished) == ("Work.", 1.5, True)
        with pytest.raises(Refusal, match="the person ended this run"):
            await world.execute_action("more?")
        assert await world.end_run() == 1.5


async def test_a_world_nobody_answers_refuses_with_timeout():
    world = PersonWorld(opening="ready", timeout=0.2)
    await world.new_run()
    assert await world.get_state() == "ready"
    with pytest.raises(Refusal) as refused:
        await world.execute_action("go")
    assert refused.value.code == "timeout"
    assert str(refused.value.text) == "nobody answered at the person's page within 0.2 s; the state is unchanged"
    assert await world.get_state() == "ready"


@pytest.mark.parametrize("args, message", [
    ({"timeout": 0}, "timeout must be a positive number of seconds, got 0"),
    ({"page_port": 70000}, "page_port must be a port number"),
])
def test_bad_arguments_are_refused_by_name(args, message):
    with pytest.raises(ValueError, match=message):
        PersonMind(**args)
    with pytest.raises(ValueError, match=message):
        PersonWorld(**args)


async def test_a_question_the_asker_stops_waiting_for_leaves_the_page_and_bad_posts_are_refused():
    mind = PersonMind(timeout=10)
    started = await mind.new_run()
    api = started.display_url.replace("/seat/", "/api/seat/")
    async with aiohttp.ClientSession() as http:
        asked = asyncio.ensure_future(mind.get_action("hello?"))
        q = (await waiting(http, started.display_url))["question"]
        asked.cancel()                                    # the client timed out: the server cancels
        with pytest.raises(asyncio.CancelledError):
            await asked
        async with http.get(api) as reply:
            assert (await reply.json())["question"] is None
        assert (await answer(http, started.display_url, question=q["number"], action="hi"))[0] == 409
        async with http.post(api, data=b"not json") as reply:
            assert (reply.status, await reply.json()) == (400, {"error": "the answer must be a JSON object"})
        async with http.post(mind.desk.url + "api/seat/nobody", json={"question": 1}) as reply:
            assert (reply.status, await reply.json()) == (404, {"error": "no seat with this token at this desk"})
        async with http.get(mind.desk.url + "seat/nobody") as reply:
            assert reply.status == 404 and "No seat" in await reply.text()
        # a run the server drops without End run (idle) leaves the page when its mind goes
        del mind, asked
        gc.collect()
        async with http.get(api) as reply:
            assert (await reply.json())["ended"] is True


def test_a_page_port_that_cannot_be_had_is_refused_by_name():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ValueError, match=rf"the person's page cannot be served at 127.0.0.1:{port} "
                                             r"\(page_port, host\): Address already in use$"):
            PersonMind(page_port=port)


@pytest.mark.slow
async def test_a_served_person_mind_has_its_page_at_the_server_s_own_url(tmp_path):
    """``wwm serve`` mounts the desk under the server's URL + ``pages/``: no second port (not
    even for the instance the server builds at start to check its ``--arg`` values)."""
    from wwm.client.remote import connect_mind
    from wwm.server.process import ServerProcess

    log = tmp_path / "person.log"
    with ServerProcess("wwm.people:PersonMind", args={"actions": "left,right", "timeout": 20}, log=log) as person, \
            ServerProcess("wwm.kit.random_mind:RandomMind") as plain:
        pages = [line for line in log.read_text().splitlines() if "the person's page is at" in line]
        assert pages == [f"wwm: the person's page is at {person.url}pages/"]
        mind = connect_mind(person.url)
        started = await mind.new_run()
        assert started.display_url.startswith(person.url + "pages/seat/")
        async with aiohttp.ClientSession() as http:
            async with http.get(person.url + "pages/") as reply:
                assert reply.status == 200 and "<!doctype html>" in (await reply.text()).lower()
            asked = asyncio.ensure_future(mind.get_action("x=1"))
            q = (await waiting(http, started.display_url))["question"]
            assert q["shown"] == "x=1" and q["allowed"] == ["left", "right"]
            assert (await answer(http, started.display_url, question=q["number"], action="up"))[0] == 400
            assert await answer(http, started.display_url, question=q["number"], action="Right") == (200, {"ok": True})
            assert (await asked).action == "right"
            async with http.get(plain.url + "pages/") as reply:
                assert reply.status == 404                   # a class with no pages of its own has none
        await mind.end_run()
        await mind.aclose()


@pytest.mark.slow
async def test_a_second_get_action_on_the_same_run_is_answered_and_not_left_to_time_out():
    """Two "Get action" queries on one run, over real HTTP, as the page's JSON API shows them:
    the same state asked again (a client that timed out asks again) joins the waiting question
    and the person's one answer goes to both; another state replaces the waiting question,
    whose asker is answered at once, saying so, and the page shows the new one."""
    from wwm.client.remote import connect_mind
    from wwm.server.process import ServerProcess

    with ServerProcess("wwm.people:PersonMind", args={"actions": "left,right", "timeout": 30}) as person:
        first = connect_mind(person.url)
        started = await first.new_run()
        again = connect_mind(person.url)
        again.reattach(first.attachment())              # the same run, from a client asking again
        async with aiohttp.ClientSession() as http:
            one = asyncio.ensure_future(first.get_action("x=1"))
            q = (await waiting(http, started.display_url))["question"]
            two = asyncio.ensure_future(again.get_action("x=1"))
            seat = await waiting(http, started.display_url,   # the second query has come
                                 until=lambda shown: shown.get("asked") == 2 or shown["number"] != q["number"])
            assert seat["question"]["number"] == q["number"]          # one question on the page
            assert await answer(http, started.display_url, question=q["number"], action="left") == (200, {"ok": True})
            both = await asyncio.wait_for(asyncio.gather(one, two), 5)  # neither waits for its 30 s
            assert [s.action for s in both] == ["left", "left"]
            async with http.get(started.display_url.replace("/seat/", "/api/seat/")) as reply:
                seat = await reply.json()
            assert seat["answered"] == 1 and [h["text"] for h in seat["history"]].count("left") == 1

            three = asyncio.ensure_future(first.get_action("x=2"))
            q3 = (await waiting(http, started.display_url))["question"]
            four = asyncio.ensure_future(again.get_action("x=3"))
            stale = await asyncio.wait_for(three, 5)                    # answered at once, saying why
            q4 = (await waiting(http, started.display_url, until=lambda shown: shown["shown"] == "x=3"))["question"]
            assert not stale.can_suggest and stale.reason == (
                f"question {q3['number']} was replaced by question {q4['number']} before the person answered it: "
                "the run asked about something else")
            assert await answer(http, started.display_url, question=q3["number"], action="right") == (
                409, {"error": f"question {q3['number']} was replaced by question {q4['number']} (the run asked "
                               "about something else): answer that one"})
            assert (await answer(http, started.display_url, question=q4["number"], action="right"))[0] == 200
            assert (await asyncio.wait_for(four, 5)).action == "right"
        await first.end_run()
        await first.aclose()
        await again.aclose()


async def test_a_world_asked_the_same_action_twice_does_it_once_and_another_query_replaces_it():
    world = PersonWorld(opening="ready", timeout=30)
    started = await world.new_run()
    async with aiohttp.ClientSession() as http:
        asked = [asyncio.ensure_future(world.execute_action("go"))]
        q = (await waiting(http, started.display_url))["question"]
        asked.append(asyncio.ensure_future(world.execute_action("go")))
        seat = await waiting(http, started.display_url,
                             until=lambda shown: shown.get("asked") == 2 or shown["number"] != q["number"])
        assert seat["question"]["number"] == q["number"]
        assert (await answer(http, started.display_url, question=q["number"], state="gone", score="2"))[0] == 200
        outcomes = await asyncio.wait_for(asyncio.gather(*asked), 5)
        assert [(o.state, o.score) for o in outcomes] == [("gone", 2.0)] * 2
        older = asyncio.ensure_future(world.execute_action("left"))
        await waiting(http, started.display_url, until=lambda shown: shown["shown"] == "left")
        newer = asyncio.ensure_future(world.execute_action("right"))
        with pytest.raises(Refusal) as refused:
            await asyncio.wait_for(older, 5)
        assert refused.value.code == "in-use" and str(refused.value.text).endswith("; the state is unchanged")
        newer.cancel()
    assert await world.get_state() == "gone" and await world.end_run() == 2.0       # done once, scored once


async def test_a_question_asked_again_outlives_the_first_asker_s_time_out():
    from wwm.people import Desk

    seat = Desk.open().seat("mind", "Bea")

    def read(form: dict) -> str:
        return str(form["action"])

    async with aiohttp.ClientSession() as http:
        first = asyncio.ensure_future(seat.ask("action", "x=1", (), 0.3, read))
        q = (await waiting(http, seat.url))["question"]
        later = asyncio.ensure_future(seat.ask("action", "x=1", (), 10, read))
        await waiting(http, seat.url, until=lambda shown: shown["asked"] == 2)
        with pytest.raises(TimeoutError):
            await first                                      # its own time-out, as it asked
        shown = (await waiting(http, seat.url))["question"]
        assert shown["number"] == q["number"] and shown["seconds_left"] > 5   # still there for the later asker
        assert (await answer(http, seat.url, question=q["number"], action="go"))[0] == 200
        got = await asyncio.wait_for(later, 5)
        assert (got.value, got.first) == ("go", True)
        async with http.get(seat.url.replace("/seat/", "/api/seat/")) as reply:
            notes = [h["text"] for h in (await reply.json())["history"]]
        assert any("gave up after 0.3 s; it waits on for the later one" in n for n in notes)
    seat.end()
