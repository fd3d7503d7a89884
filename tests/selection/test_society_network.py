"""Societies across real server processes on loopback: an AS server over mind servers in
both encodings, minds added and removed over the wire; broken links (mind servers killed
one by one during a run: the run goes on and the score declines gradually); a nested
society three levels deep over seven processes, each page showing its credit trail."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind
from wwm.client.runner import RunSettings, run
from wwm.protocol.messages import Query
from wwm.selection import ActionSelectionMind
from wwm.selection.ant import AntWorld
from wwm.server.process import ServerProcess, start_all

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
AS = "wwm.selection.mind_as:ActionSelectionMind"


def servers(*specs: tuple[str, dict]) -> list[ServerProcess]:
    """Start several servers at once (each takes a second or so to import)."""
    return start_all([ServerProcess(target, args=args, env=ENV) for target, args in specs])


def stop(procs: list[ServerProcess]) -> None:
    for p in procs:
        p.stop()


def card(url: str) -> dict:
    with urllib.request.urlopen(url + "?format=json", timeout=5) as reply:
        return json.loads(reply.read())


def callers(url: str) -> set[str]:
    """The servers its trail says call it; a caller acting for a client of its own names it
    in the fragment (``#for=...``, section 7.3), still at the caller's URL."""
    return {link["url"].split("#")[0] for link in card(url)["credit_trail"]["called_by"]}


async def start_society(url: str, encoding: str, **items) -> RemoteMind:
    """New run sent as the raw query, so the test checks the wire names ("mind URL" repeated,
    "method", ...) a client in another language would send; then used as a remote Mind."""
    society = RemoteMind(url, encoding=encoding)
    response = await society.transport.exchange(Query("New run", {"client URL": "http://client.example/", **items}))
    society.run_id = response.data["mind run ID"]
    return society


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_a_served_as_over_mind_servers_in_both_encodings(encoding):
    procs = servers(("society_minds:TableMind", {"q": "a:3,b:2.5,c:0"}),
                    ("society_minds:TableMind", {"q": "c:3.1,b:2.5,a:0"}),
                    ("society_minds:TableMind", {"q": "a:1,b:0,c:0"}), (AS, {}),
                    ("wwm.selection.ant:AntWorld", {}))
    a, b, c, as_server, world = procs
    try:
        society = await start_society(as_server.url, encoding, **{
            "mind URL": [a.url, b.url], "method": "min-worst-unhappiness", "timeout": 2,
            "candidates": "shared", "actions": "a,b,c"})
        # MWU finds the compromise b (worst loss 0.6), which W=Q (c) would not
        assert (await society.get_action("x")).action == "b"
        s = await society.get_suggestion("x")           # the AS is itself a Mind_i
        assert s.action == "b" and s.w == pytest.approx(0.6)
        v = await society.get_values("x", "a")
        assert v.w == pytest.approx(3.1)                # mind b loses 3.1 by a
        await society.inform_winner("y", obeyed=True, score=1.0)
        await society.add_mind(c.url)                   # now a loses at most 3.1, b 2.5 (c: 1-0)
        assert (await society.get_action("x")).action == "b"
        await society.remove_mind(b.url)                # only a and c: both want a
        assert (await society.get_action("x")).action == "a"
        with pytest.raises(Refusal) as info:
            await society.remove_mind("http://127.0.0.1:9/")
        assert info.value.code == "bad-parameters"
        with pytest.raises(Refusal) as info:
            await society.add_mind("http://127.0.0.1:9/")
        assert info.value.code == "mind-url-invalid"
        await society.end_run()
        await society.aclose()
        trail = card(as_server.url)["credit_trail"]
        assert {link["url"] for link in trail["calls"]} >= {a.url, b.url, c.url}
        assert "http://client.example/" in {link["url"] for link in trail["called_by"]}
        assert as_server.url in callers(a.url)
        # bad New run arguments come back as refusals naming what was wrong
        with pytest.raises(Refusal) as info:
            await start_society(as_server.url, encoding, **{"mind URL": [a.url], "method": "loudest"})
        assert info.value.code == "bad-parameters" and "unknown method 'loudest'" in info.value.text
        with pytest.raises(Refusal) as info:
            await start_society(as_server.url, encoding, **{"mind URL": [a.url, "http://127.0.0.1:9/"],
                                                             "timeout": 1})
        assert info.value.code == "mind-url-invalid" and "127.0.0.1:9" in info.value.text
        with pytest.raises(Refusal) as info:  # a World server is no mind
            await start_society(as_server.url, encoding, **{"mind URL": [a.url, world.url]})
        assert info.value.code == "mind-url-invalid" and "a world server, not a Mind server" in info.value.text
    finally:
        stop(procs)


async def test_broken_links_the_run_goes_on_and_the_score_declines_gradually(tmp_path):
    """Nine mind servers, three copies of each of three minds; one server killed after each
    segment of the run. Under W=Q (individual-driven) nothing changes while a copy of each
    mind is left; then the society degrades, one lost skill at a time."""
    kinds = [("f", {"key": "f", "value": 1.0, "when": "i=0"}),
             ("n", {"key": "n", "value": 0.8, "when": "i=1"}),
             ("p", {"key": "p", "value": 0.6, "flee": True})]
    specs = [("society_minds:DirectionMind", args) for _ in range(3) for _, args in kinds]
    procs = servers(*specs)
    try:
        as_ = ActionSelectionMind([p.url for p in procs], method="w=q", timeout=1.0, seed=0)
        # kill order: a predator-fleer, a homer, a forager, ... so skills go one at a time
        order = [procs[i] for i in (2, 1, 0, 5, 4, 3, 8, 7, 6)]
        segment, lost, rows = 120, [], []

        def on_step(step, result):
            if (step.index + 1) % segment == 0 and order:
                lost.append(order.pop(0))
                lost[-1].kill()

        settings = RunSettings(steps=segment * 10, keepalive=None, timeout=5.0)
        result = await run(as_, AntWorld(seed=11, foods=8), settings, on_step=on_step)
        assert result.status == "completed" and len(result.steps) == segment * 10
        scores = result.step_scores
        for k in range(10):
            part = result.steps[k * segment:(k + 1) * segment]
            acted = sum(1 for s in part if s.action is not None)
            rows.append((k / 9, sum(scores[k * segment:(k + 1) * segment]), acted / segment))
        table = "\n".join(f"{frac:8.2f} {score:7.1f} {acted:8.2f}" for frac, score, acted in rows)
        (tmp_path / "broken_links.txt").write_text("fraction lost, score, share of steps acted\n" + table)
        print("\nfraction of servers lost, score per segment, share of steps with an action\n" + table)
        _plot(rows, tmp_path / "broken_links.png")
        # every segment with at least one mind alive acted on every step: no stop, no hang
        assert all(acted == 1.0 for _, _, acted in rows[:9])
        assert rows[9][2] == 0.0  # all nine gone: "Cannot suggest action", still no crash
        intact = [score for _, score, _ in rows[:7]]   # a copy of every mind still alive
        mean = sum(intact) / len(intact)
        assert mean > 2
        assert rows[7][1] < mean                       # no fleer left: caught more often
        assert rows[8][1] < mean                       # no homer left either: no food home
        assert rows[9][1] <= 0
    finally:
        stop(procs)


def _plot(rows, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r[0] for r in rows], [r[1] for r in rows], marker="o")
    ax.set_xlabel("fraction of mind servers lost")
    ax.set_ylabel("score per segment")
    ax.set_title("Broken links: 9 mind servers (3 x 3 copies), W=Q")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    assert path.stat().st_size > 1000


async def test_a_nested_society_three_levels_deep_over_seven_processes():
    """client -> AS (top) -> [Mind_M region -> [AS (lower) -> [forager, homer], fleer], fleer]
    Each server's arguments are its defaults (``--arg``), as a society's author would serve it."""
    forager, homer, fleer, fleer2 = [
        ServerProcess("society_minds:DirectionMind", args=args, env=ENV) for args in (
            {"key": "f", "value": 1.0, "when": "i=0"}, {"key": "n", "value": 0.8, "when": "i=1"},
            {"key": "p", "value": 0.6, "flee": True}, {"key": "p", "value": 0.3, "flee": True})]
    lower = ServerProcess(AS, env=ENV, args={"minds": f"{forager.url},{homer.url}",
                                             "method": "min-worst-unhappiness", "timeout": 2})
    region = ServerProcess("wwm.kit.region:RegionMind", env=ENV,
                           args={"minds": f"{lower.url},{fleer.url}", "region": "p==9"})
    top = ServerProcess(AS, env=ENV, args={"minds": f"{region.url},{fleer2.url}", "timeout": 4})
    procs = [forager, homer, fleer, fleer2, lower, region, top]
    start_all(procs)
    try:
        society = RemoteMind(top.url)
        result = await run(society, AntWorld(seed=3), RunSettings(steps=60, keepalive=None, timeout=10))
        assert result.status == "completed" and all(s.action is not None for s in result.steps)
        assert result.total_score != 0 or any(s.new_state.startswith("i=1") for s in result.steps)
        calls = {p.url: {link["url"] for link in card(p.url)["credit_trail"]["calls"]} for p in procs}
        called_by = {p.url: callers(p.url) for p in procs}
        assert calls[top.url] == {region.url, fleer2.url}
        assert calls[region.url] == {lower.url, fleer.url}
        assert calls[lower.url] == {forager.url, homer.url}
        assert top.url in called_by[region.url] and region.url in called_by[lower.url]
        assert lower.url in called_by[forager.url] and lower.url in called_by[homer.url]
        assert region.url in called_by[fleer.url] and top.url in called_by[fleer2.url]
        page = urllib.request.urlopen(lower.url, timeout=5).read().decode()
        assert forager.url in page and region.url in page  # the HTML page shows the trail too
    finally:
        stop(procs)


async def test_a_winner_may_answer_with_a_passive_minds_url():
    """10.17.2: the caller wins with a Mind URL; the passive mind outside the competition is
    called only then, by the AS, and credits it."""
    passive = ServerProcess("society_minds:TableMind", args={"q": "p:1"}, env=ENV)
    with passive:
        caller = ServerProcess("society_minds:TableMind", args={"q": "c:5", "call": passive.url}, env=ENV)
        with caller:
            from society_minds import TableMind

            rival = TableMind("r:1")
            society = ActionSelectionMind([caller.url, rival], method="w=q", timeout=3)
            await society.new_run("http://client.example/")
            assert (await society.get_action("x")).action == "p"
            assert society.last.note == f"via {passive.url}" and passive.url in society.passive
            await society.inform("y", 1.0)
            assert (await society.get_action("x")).action == "p"
            await society.end_run()
            # this AS runs in the test's process, so its client's URL is the caller on record
            assert "http://client.example/" in {link["url"] for link in card(passive.url)["credit_trail"]["called_by"]}
            assert len(rival.told) == 1 and rival.told[-1]["obeyed"] is False


async def test_an_as_server_killed_and_restarted_resumes_its_run():
    """The AS's run is in its snapshot file: the restarted server reconnects to the same runs
    of the same mind servers, and the client carries on with its run ID."""
    minds = servers(("society_minds:TableMind", {"q": "a:1,b:0"}), ("society_minds:TableMind", {"q": "b:2,a:0"}))
    as_server = ServerProcess(AS, env=ENV, state=True,
                              args={"minds": ",".join(p.url for p in minds), "method": "hierarchical-q"})
    with as_server:
        try:
            society = RemoteMind(as_server.url)
            await society.new_run("http://client.example/")
            for _ in range(5):
                assert (await society.get_action("x")).action in ("a", "b")
                await society.inform("y", 1.0)
            as_server.restart()                          # SIGKILL, then the same port and file
            try:  # the client's pooled connection died with the server: like the run loop, ask again
                await society.no_operation()
            except Refusal as refusal:
                assert refusal.code == "unreachable"
            for _ in range(5):
                assert (await society.get_action("x")).action in ("a", "b")
                await society.inform("y", 1.0)
            q = await society.get_q_temperature()        # the switch's schedule went on
            assert q is not None and q < 1.0
            await society.end_run()
            await society.aclose()
        finally:
            stop(minds)


async def test_min_members_starts_with_the_minds_that_answer_and_admits_one_that_comes_back():
    """Broken links at New run (section 6; issue 15 item 6): five minds, one of them down. Under
    min_members 5 the AS refuses with too-few-minds naming the dead one; under min_members 3
    it starts with four, keeps trying the fifth, and admits it once its server is up."""
    from wwm.server.process import free_port

    *alive, as_server = servers(*[("society_minds:TableMind", {"q": f"{a}:{v}"})
                                  for a, v in (("a", 1), ("b", 2), ("c", 3), ("d", 4))], (AS, {}))
    late = ServerProcess("society_minds:TableMind", args={"q": "z:9"}, env=ENV, port=free_port())
    urls = [p.url for p in alive] + [late.url]
    try:
        with pytest.raises(Refusal) as info:
            await start_society(as_server.url, "xml", **{"mind URL": urls, "min_members": 5, "timeout": 1})
        assert info.value.code == "too-few-minds"
        assert "4 of 5 minds started a run and min_members is 5" in info.value.text
        assert f"minds[4] {late.url}" in info.value.text
        society = await start_society(as_server.url, "xml", **{"mind URL": urls, "min_members": 3,
                                                                "timeout": 1, "retry": 0.2})
        assert (await society.get_action("x")).action == "d"   # the best of the four that answer
        late.start()
        actions = []
        for _ in range(100):                                   # the fifth is tried again and joins
            actions.append((await society.get_action("x")).action)
            await society.inform("y", 0.0)
            if actions[-1] == "z":
                break
        assert actions[-1] == "z" and set(actions) <= {"d", "z"}
        assert as_server.url in callers(late.url)
        await society.end_run()
        await society.aclose()
    finally:
        stop([*alive, as_server, late])


async def test_time_outs_shrink_down_a_three_level_chain():
    """9.2 note 1 (issue 15 item 6): client -> AS (time-out 4) -> AS -> probe mind. Each AS
    hands the next server a share (0.8) of its own time-out; the probe answers with the one it
    got, and each AS's run display shows its own and where its minds display theirs."""
    probe, mid, top = servers(("society_minds:TimeoutProbe", {}), (AS, {}), (AS, {}))
    try:
        society = await start_society(top.url, "json", **{"mind URL": [
            json.dumps({"url": mid.url, "args": {"minds": [probe.url]}})], "timeout": 4})
        assert (await society.get_action("x")).action == "2.56"  # 4 x 0.8 x 0.8 at the third level
        top_view = json.loads(urllib.request.urlopen(await society.get_display_url() + ".json", timeout=5).read())
        assert top_view["details"]["decision"]["timeout"] == 4
        (row,) = top_view["details"]["minds"]
        mid_view = json.loads(urllib.request.urlopen(row["display"] + ".json", timeout=5).read())
        assert mid_view["details"]["decision"]["timeout"] == pytest.approx(3.2)
        assert mid_view["details"]["minds"][0]["mind"] == probe.url
        await society.end_run()
        await society.aclose()
    finally:
        stop([probe, mid, top])


async def test_a_master_as_hands_its_list_of_peers_to_the_nested_servers(tmp_path):
    """10.17 (issue 15 item 6): the Nested server is started with no peers; the master AS sends
    it the other minds' URLs in its New run. Told that the good mind won, it learns that
    calling it pays, then wins and answers with the good mind's URL, which the AS follows."""
    from wwm import Outcome, World

    class Bandit(World):
        async def get_state(self) -> str:
            return "s"

        async def execute_action(self, action: str) -> Outcome:
            return Outcome("s", 1.0 if action == "g" else 0.0)

    env = {**ENV, "WWM_KNOWLEDGE_DIR": str(tmp_path)}
    nested, good = [ServerProcess(target, args=args, env=env) for target, args in (
        ("wwm.selection.learning.nested:NestedMind",
         {"actions": "x,y", "reward": "score", "gamma": 0, "w": "q", "q_temperature": 0}),
        ("society_minds:TableMind", {"q": "g:0.3"}))]
    with nested, good:
        master = ActionSelectionMind([nested.url, good.url], method="static-w", timeout=3)
        result = await run(master, Bandit(), RunSettings(steps=6, keepalive=None, timeout=10))
        assert result.total_score == 6.0
        assert master.last.winner.url == nested.url and master.last.note == f"via {good.url}"


class _FakeMind:
    """A loopback HTTP server that claims to be a Mind server and starts runs, but hides its
    trail of credit (``trail=None``) or publishes one that never lists who calls it."""

    def __init__(self, trail: bool) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from wwm.protocol import jsoncodec
        from wwm.protocol.messages import Response

        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                card = {"wwm": "1.0", "role": "mind", "url": fake.url}
                if trail:
                    card["credit_trail"] = {"url": fake.url, "calls": [], "called_by": []}
                self._send(json.dumps(card).encode())

            def do_POST(self) -> None:
                query = jsoncodec.decode(self.rfile.read(int(self.headers["Content-Length"])))
                fake.queries.append(query.name)
                self._send(jsoncodec.encode(Response(query.name, {"mind run ID": "r1"}
                                                     if query.name == "New run" else {})))

        self.queries: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def test_add_mind_refuses_a_mind_whose_trail_of_credit_cannot_be_followed():
    """7.2, 9.2.4 (issue 18 item 3): a mind server that publishes no trail of credit is refused
    before any run is started on it; one whose trail never lists the AS as calling it is
    refused after New run (and its run ended). A real mind server is added as before."""
    (as_server, honest) = servers((AS, {}), ("society_minds:TableMind", {"q": "h:2"}))
    hidden, forgetful = _FakeMind(trail=False), _FakeMind(trail=True)
    try:
        society = await start_society(as_server.url, "json", **{"mind URL": [honest.url], "timeout": 2})
        with pytest.raises(Refusal) as info:
            await society.add_mind(hidden.url)
        assert info.value.code == "credit-trail-failed" and "publishes no trail of credit" in info.value.text
        assert hidden.queries == []
        with pytest.raises(Refusal) as info:
            await society.add_mind(forgetful.url)
        assert info.value.code == "credit-trail-failed"
        assert "does not list it among the servers that call it" in info.value.text
        assert forgetful.queries[0] == "New run" and "End run" in forgetful.queries
        assert (await society.get_action("x")).action == "h"  # the society goes on as it was
        with pytest.raises(Refusal) as info:                  # and a New run names the failure too
            await start_society(as_server.url, "json", **{"mind URL": [honest.url, hidden.url]})
        assert info.value.code == "credit-trail-failed" and hidden.url in info.value.text
        await society.end_run()
        await society.aclose()
    finally:
        hidden.close()
        forgetful.close()
        stop([as_server, honest])


async def test_one_client_of_a_served_society_cannot_change_what_another_gets(tmp_path):
    """7.3 (issue 18 item 3): a learning mind keeps what it learns per client. Behind a served
    AS every query comes from the AS's URL, so without more the AS's clients would share one
    copy: client one teaching "b" through the society would change what client two gets. The
    AS sends its own URL with the client it acts for, so each client has its own copy."""
    from wwm import Outcome, World

    class Bandit(World):
        async def get_state(self) -> str:
            return "s"

        async def execute_action(self, action: str) -> Outcome:
            return Outcome("s", 1.0 if action == "b" else 0.0)

    env = {**ENV, "WWM_KNOWLEDGE_DIR": str(tmp_path)}
    learner = ServerProcess("wwm.selection.learning.qlearning:QLearningMind", env=env,
                            args={"reward": "score", "actions": "a,b", "q_temperature": 2.0, "seed": 1})
    as_server = ServerProcess(AS, env=env, args={"minds": learner.url, "method": "w=q"})
    with learner, as_server:
        one = RemoteMind(as_server.url)
        result = await run(one, Bandit(), RunSettings(steps=80, keepalive=None, client_url="http://one.example/"))
        assert result.status == "completed"

        async def greedy(client: str) -> str:
            society = RemoteMind(as_server.url)
            await society.new_run(client)
            action = (await society.get_action("s", q_temperature=0)).action
            await society.end_run()
            await society.aclose()
            return action

        assert await greedy("http://one.example/") == "b"   # what client one taught, kept for it
        assert await greedy("http://two.example/") == "a"   # nothing learnt with two: ties go to a
        callers = {link["url"] for link in card(learner.url)["credit_trail"]["called_by"]}
        assert callers and all(url.startswith(as_server.url) for url in callers)  # the trail still names the AS


async def test_under_min_members_a_mind_whose_server_restarted_without_its_run_rejoins():
    """A mind server killed and started again has forgotten the AS's run (unknown-run): under
    min_members the AS starts a new run on it and it rejoins, instead of missing every round."""
    low, high = servers(("society_minds:TableMind", {"q": "a:1"}), ("society_minds:TableMind", {"q": "b:2"}))
    try:
        society = ActionSelectionMind([low.url, high.url], method="w=q", timeout=1, min_members=1, retry=0.2)
        await society.new_run("http://client.example/")
        assert (await society.get_action("x")).action == "b"
        high.restart()                                  # same port, no snapshot: the run is gone
        actions = []
        for _ in range(100):
            actions.append((await society.get_action("x")).action)
            await society.inform("y", 0.0)
            if len(actions) > 1 and actions[-1] == "b":
                break
            await asyncio.sleep(0.02)
        assert actions[0] == "a" and actions[-1] == "b"  # out while its run was lost, then back
        assert [m.url for m in society.members] == [low.url, high.url] and not society.waiting
        await society.end_run()
    finally:
        stop([low, high])
