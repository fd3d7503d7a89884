"""ACL over the World-Wide-Mind network, end to end: six contractor servers in their own
processes (one never answers, one reneges, one refuses), found through the directory built
from their server cards, and a manager with its own loopback endpoint that allocates a task
by Contract Net, speaking the XML of section 11.2.1 while the contractors answer in JSON."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from wwm.acl.agent import Agent
from wwm.acl.contractnet import contract_net
from wwm.acl.directory import Directory, listing_from_card, register_with, search
from wwm.acl.log import read, replay, show
from wwm.acl.message import AID, AclError
from wwm.acl.network import serve_agent
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

CONTRACTORS = {"c1": (5, "honest"), "c2": (7, "honest"), "c3": (9, "honest"),
               "mute": (1, "silent"), "flake": (2, "renege"), "busy": (3, "refuse")}


@pytest.fixture(scope="module")
def contractors(tmp_path_factory):
    logs = tmp_path_factory.mktemp("acl-logs")
    servers = {name: ServerProcess("wwm.acl.contractnet:Contractor",
                                   args={"name": name, "price": price, "mode": mode,
                                         "services": "haulage, storage",
                                         # the reneger takes its time, so the team is seen whole
                                         "work_seconds": 0.5 if mode == "renege" else 0.05,
                                         "log": str(logs / f"{name}.jsonl")})
               for name, (price, mode) in CONTRACTORS.items()}
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(lambda s: s.start(), servers.values()))
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


async def test_contract_net_over_six_agent_servers(contractors) -> None:
    directory = Directory()
    for server in contractors.values():
        await directory.register(server.url)
    found = directory.find("haulage")
    assert sorted(a.name for a in found) == sorted(CONTRACTORS) and directory.find("flying") == []

    boss = Agent("boss")
    async with serve_agent(boss, encoding="xml") as url:
        assert boss.aid.url == url
        result = await contract_net(boss, found, "(haul crates)", needed=2, deadline=2.0, work_timeout=5)
        # the honest bidders got the work; the cheap reneger and the silent one did not
        assert result.complete and result.contractors == ["c1", "c2"]
        first, second = result.rounds
        assert first.silent == ["mute"] and first.refused == ["busy"]
        assert first.accepted == ["flake", "c1"] and first.team == {"boss", "c1", "flake"}
        assert first.dropped == ["flake"] and second.accepted == ["c2"] and second.done == ["c2"]
        outcomes = {t.participant: boss.engine.outcome(t) for t in boss.engine.talks_of(first.conversation)}
        assert outcomes == {"c1": "success", "flake": "reneged", "mute": "withdrawn", "busy": "refused",
                            "c2": "countered-rejected", "c3": "countered-rejected"}
        assert any(r.violated and r.holder == "flake" for r in boss.tracker.records(first.conversation))
        for r in result.rounds:   # every team formed was disbanded; nothing is owed by anyone
            assert boss.tracker.team(r.conversation) == set()
            assert all(t.final for t in boss.engine.talks_of(r.conversation))
            assert [c for c in boss.tracker.records(r.conversation) if c.active] == []
        # a plain FIPA request to one of them, over the same channels
        asked = await boss.request(directory.aid("c3"), "(count crates)", timeout=5)
        assert asked.outcomes == {"c3": "success"}
    steps = list(replay(boss.log.entries))
    assert steps and all(step.agrees for step in steps)
    # each contractor's own engine, read back from its log, reached the same account
    for name, state in {"c1": "closed", "flake": "reneged", "mute": "cancelled", "busy": "refused",
                        "c3": "rejected"}.items():
        log_file = contractors[name].command[contractors[name].command.index("--arg") + 1:]
        path = next(a.split("=", 1)[1] for a in log_file if a.startswith("log="))
        theirs = read(path)
        mine = [e for e in theirs if e.message.conversation_id == first.conversation]
        assert all(step.agrees for step in replay(mine))
        last = [v for e in mine for v in e.verdicts if v["accepted"] and v["after"]][-1]
        assert last["after"] == state, (name, last)
    assert "flake → boss: inform [X-act renege]" in show(boss.log.entries, first.conversation)
    assert "\n       to boss: renege  accepted → reneged" in show(boss.log.entries, first.conversation)


def _post(url: str, body: str) -> tuple[int, str]:
    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/xml"})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_send_message_in_the_xml_of_the_seed_and_bad_messages(contractors) -> None:
    url = contractors["c3"].url
    card = json.loads(urllib.request.urlopen(url + "?format=json", timeout=5).read())
    assert "Mind_ACL" in card["query_sets"] and "Send message" in card["queries"]
    assert listing_from_card(card).services == ("haulage", "storage")
    status, text = _post(url, '<xml><query name="New run"></query></xml>')
    run_id = text.split('name="mind run ID">')[1].split("<")[0]

    def send(*items: str) -> tuple[int, str]:
        data = "".join(items)
        return _post(url, f'<xml><query name="Send message"><data name="mind run ID">{run_id}</data>'
                          f'{data}</query></xml>')

    status, text = send('<data name="performative">inform</data><data name="receiver">c3</data>',
                        '<data name="sender">(agent-identifier :name someone)</data>',
                        '<data name="content">hello</data><data name="conversation-id">x1</data>')
    assert status == 200 and "<refusal" not in text
    status, text = send('<data name="performative">inform</data>',
                        '<data name="sender">(agent-identifier :nom someone)</data>')
    assert status == 400 and 'code="bad-parameters"' in text and "sender" in text and "position" in text
    status, text = send('<data name="performative">shout</data>')
    assert status == 400 and "unknown performative" in text
    status, text = send('<data name="performative">inform</data><data name="receiver">c1</data>')
    assert status == 400 and "this server is agent 'c3'" in text
    status, text = send('<data name="performative">inform</data><data name="reply-by">soon</data>')
    assert status == 400 and "YYYYMMDDThhmmssmmm" in text


def test_the_directory_refuses_servers_that_do_not_talk_acl() -> None:
    with pytest.raises(AclError, match="not an ACL agent"):
        listing_from_card({"role": "mind", "query_sets": ["Mind"], "url": "http://x/"})


async def test_the_directory_agent_lists_servers_and_answers_searches(contractors) -> None:
    with ServerProcess("wwm.acl.directory:DirectoryAgent") as df_server:
        df = AID("directory", (df_server.url,))
        me = Agent("me")
        async with serve_agent(me):
            for name in ("c1", "flake", "busy"):
                await register_with(me, df, contractors[name].url)
            with pytest.raises(AclError, match="not an ACL agent"):
                await register_with(me, df, df_server.url.replace("/", "/", 1) + "trail")
            found = await search(me, df, "haulage")
            assert [(a.name, a.url) for a in found] == [(n, contractors[n].url) for n in ("busy", "c1", "flake")]
            assert await search(me, df, "flying") == []
            asked = await me.request(found[1], "(lift one crate)", timeout=5)   # and talk to what was found
            assert asked.outcomes == {"c1": "success"}


async def test_a_restarted_server_gets_a_new_channel_and_a_dead_one_rolls_back() -> None:
    from wwm.acl.agent import Undeliverable

    with ServerProcess("wwm.acl.contractnet:Contractor", args={"name": "solo", "work_seconds": 0}) as server:
        solo = AID("solo", (server.url,))
        boss = Agent("boss")
        async with serve_agent(boss):
            assert (await boss.request(solo, "(one)", timeout=5)).outcomes == {"solo": "success"}
            server.restart()          # its runs are gone: the next message opens a new channel
            assert (await boss.request(solo, "(two)", timeout=5)).outcomes == {"solo": "success"}
            server.kill()
            msg = boss.compose("request", solo, "(three)", protocol="fipa-request")
            with pytest.raises(Undeliverable, match="unreachable"):
                await boss.send(msg)
            assert boss.talk(msg.conversation_id, "solo") is None
            assert boss.tracker.obligations("boss") == []
            assert boss.log.entries[-1].direction == "undelivered"
            assert all(step.agrees for step in replay(boss.log.entries))


async def test_an_endpoint_on_a_busy_port_is_a_clear_error() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        agent = Agent("x")
        with pytest.raises(OSError, match=f"cannot give agent 'x' an endpoint on 127.0.0.1:{port}"):
            async with serve_agent(agent, port=port):
                pass
        assert agent.address is None and agent.transport is None
    async with serve_agent(agent, port=port) as url:     # once free, the same port serves
        assert url == f"http://127.0.0.1:{port}/" and agent.address == url
