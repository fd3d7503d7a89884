"""The credit trail outlives a restart (section 7.2: the lists of who calls whom are to be
"published online" for "long after" their authors "have gone"). A real ``wwm serve --state
FILE`` process, an AS server calling a mind server, is called by two clients, stopped and
started again on the same file: its trail URL still lists both clients, with their counts,
and the mind it calls; a caller seen just before a crash (SIGKILL) is listed after it too.
Past the per-side limit a flood of invented caller URLs is counted, never listed in place of
a caller already listed."""

from __future__ import annotations

import json
import urllib.request

import pytest
from probes import probe_server

from wwm.client.remote import RemoteMind
from wwm.server.process import ServerProcess
from wwm.server.trail import CreditTrail

AS = "wwm.selection.mind_as:ActionSelectionMind"


def trail(url: str) -> dict:
    with urllib.request.urlopen(url + "trail", timeout=5) as reply:
        return json.loads(reply.read())


def listed(url: str, side: str) -> dict[str, int]:
    return {link["url"]: link["queries"] for link in trail(url)[side]}


async def use(url: str, client: str, mind: str, steps: int) -> None:
    society = RemoteMind(url, client_url=client, minds=[mind], method="random")
    await society.new_run(client)
    for _ in range(steps):
        await society.get_action("x")
        await society.inform("y")
    await society.end_run()
    await society.aclose()


@pytest.mark.slow
async def test_a_restarted_server_publishes_the_same_trail(tmp_path):
    one, two, three = "http://one.example/", "http://two.example/", "http://three.example/"
    with probe_server("ProbeMind") as mind, \
            ServerProcess(AS, state=tmp_path / "as.db", env=mind.env) as society:
        await use(society.url, one, mind.url, 3)
        await use(society.url, two, mind.url, 5)
        before = listed(society.url, "called_by")
        assert before[one] == 3 * 2 + 2 and before[two] == 5 * 2 + 2  # New run, steps, End run
        assert mind.url in listed(society.url, "calls")
        society.stop()                                             # a clean stop, then the same file
        society.start()
        assert listed(society.url, "called_by") == before
        assert mind.url in listed(society.url, "calls")
        assert one in listed(society.url, "called_by")
        await use(society.url, three, mind.url, 1)
        society.restart()                                          # killed (SIGKILL), then started
        after = listed(society.url, "called_by")
        assert {one, two, three} <= set(after) and after[one] == before[one]
        card = json.loads(urllib.request.urlopen(society.url + "?format=json", timeout=5).read())
        assert {link["url"] for link in card["credit_trail"]["called_by"]} == set(after)


def test_a_flood_of_invented_callers_is_counted_not_listed_in_place_of_real_ones():
    trail = CreditTrail("http://me.example/", limit=3)
    for url in ("http://a.example/", "http://b.example/", "http://a.example/"):
        trail.called_by(url)
    for i in range(50):
        trail.called_by(f"http://invented-{i}.example/")
    trail.called_by("http://a.example/")
    shown = trail.as_dict()
    assert [(link["url"], link["queries"]) for link in shown["called_by"]] == [
        ("http://a.example/", 3), ("http://b.example/", 1), ("http://invented-0.example/", 1)]
    assert shown["unlisted"] == {"calls": 0, "called_by": 49}
