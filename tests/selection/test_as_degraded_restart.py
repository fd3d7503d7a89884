"""A society resumed after a restart whose members lost their runs (issue 26 item 7): real
``wwm serve --state`` processes. The Action Selection server is killed and restarted from its
snapshot while two of its three mind servers restart without theirs. It heals: the members'
runs are reopened (their servers each hold a new run) and the very next answer is the
society's of three, which only both restarted members together make. Where a member cannot be
reopened (its server is down), the run's record says ``degraded: member X lost at step k``
at the step it happened, and the run goes on with the others, never a silent smaller society.

The minds' Q-values are set so the action tells who answered: with Maximize Collective
Happiness, "b" wins only if both restarted members (Q(b) 1.5 and 1) answer beside the first
(Q(a) 2); any one of them missing makes it "a"."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from society_minds import Cycle

from wwm.client.remote import RemoteMind
from wwm.client.runner import Runner, RunResult, RunSettings
from wwm.server.process import ServerProcess, start_all
from wwm.store import RunDetail, RunStore, StoreRecorder

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
AS = "wwm.selection.mind_as:ActionSelectionMind"
TABLE = "society_minds:TableMind"
SETTINGS = RunSettings(steps=8, timeout=5.0, keepalive=None, mind_wait=20.0)


def society() -> tuple[ServerProcess, list[ServerProcess]]:
    """Three mind servers (the first never restarted) and an AS over them, with --state."""
    first, second, third = start_all([ServerProcess(TABLE, args={"q": "a:2,b:0"}, env=ENV),
                                      ServerProcess(TABLE, args={"q": "b:1.5,a:0"}, env=ENV),
                                      ServerProcess(TABLE, args={"q": "b:1,a:0"}, env=ENV)])
    as_server = ServerProcess(AS, env=ENV, state=True, args={
        "minds": ",".join(p.url for p in (first, second, third)), "method": "max-collective-happiness",
        "timeout": "2", "retry": "60"}).start()
    return as_server, [first, second, third]


class OneRecord(StoreRecorder):
    """One record across the suspension, as the portal keeps it: the run is not finished
    when the first runner stops at a step boundary, and the resumed runner goes on writing it."""

    def on_finish(self, result: RunResult) -> None:
        if result.status != "suspended":
            super().on_finish(result)


async def run_across_a_restart(as_server: ServerProcess, restart_members: Callable[[], None],
                               store: RunStore) -> tuple[RunResult, RunDetail]:
    """Steps 0-2, then the AS killed and restarted from its snapshot (and the members as
    ``restart_members`` does), then the run resumed at step 3; one record in ``store``."""
    world = Cycle(n=4, good="b")
    mind = RemoteMind(as_server.url)
    recorder = OneRecord(store, mind_url=as_server.url, world_url="local:Cycle")
    runner = Runner(mind, world, SETTINGS, recorder=recorder,
                    on_step=lambda step, _: runner.suspend() if step.index == 2 else None)
    first = await runner.run()
    assert first.status == "suspended" and [s.action for s in first.steps] == ["b", "b", "b"]
    as_server.restart()               # SIGKILL, then the same port and snapshot file
    restart_members()
    second = await Runner(mind, world, SETTINGS, recorder=recorder, first_step=3).run()
    await mind.aclose()
    assert recorder.run_id is not None
    return second, store.get_run(recorder.run_id)


def portal_run_page(db: Path, record: RunDetail) -> str:
    """The portal's page of a portal run whose record is ``record`` (in the portal's database)."""
    from starlette.testclient import TestClient

    from wwm.portal.app import make_app
    from wwm.portal.store import PortalStore

    store = PortalStore(f"sqlite:///{db}")
    try:
        me = store.new_user().user
        document = {"world": {"url": "local:Cycle"}, "mind": {"url": record.mind_url}}
        combination = store.save_combination(author_id=me.id, title="Three minds", world_url="local:Cycle",
                                             document=document)
        run = store.new_run(combination.id, me.id, 8)
        store.link_run(run.id, record.id)     # its status: the run store's
        with TestClient(make_app(store, check_every=0)) as client:
            reply = client.get(f"/run/{run.id}")
            assert reply.status_code == 200, reply.text
            return reply.text
    finally:
        store.close()


async def test_members_that_lost_their_runs_get_new_ones_and_the_society_answers_whole(tmp_path) -> None:
    as_server, (first, second, third) = society()
    try:
        def restart_members() -> None:
            for member in (second, third):
                member.restart()      # no --state: the AS's runs on them are gone
                assert member.card()["runs_in_progress"] == 0

        with RunStore(f"sqlite:///{tmp_path / 'runs.db'}") as store:
            result, record = await run_across_a_restart(as_server, restart_members, store)
        assert result.status == "completed"
        # the first answer after the restart is already the three minds' "b"
        assert [s.index for s in record.steps] == list(range(8))
        assert [s.action for s in record.steps] == ["b"] * 8
        assert not any(s.note for s in record.steps)
        # New run again on both restarted members (ended with the run); never on the first
        for member in (second, third):
            assert member.card()["runs_ended"] == 1
        assert first.card()["runs_ended"] == 1
    finally:
        for p in (as_server, first, second, third):
            p.stop()


async def test_a_member_that_cannot_be_reopened_is_recorded_as_degraded_at_its_step(tmp_path) -> None:
    as_server, (first, second, third) = society()
    try:
        def restart_members() -> None:
            second.restart()          # lost its run: reopened
            third.kill()              # down: cannot be reopened

        with RunStore(f"sqlite:///{tmp_path / 'runs.db'}") as store:
            result, record = await run_across_a_restart(as_server, restart_members, store)
        assert result.status == "completed"
        steps = {s.index: s for s in record.steps}
        lost = steps[3]
        assert lost.action is None and lost.note is not None
        assert lost.note.startswith(f"degraded: member {third.url} lost at step 3 (")
        assert second.url not in lost.note
        # then the society goes on without it: the first and the reopened second say "a"
        assert [steps[i].action for i in (4, 5, 6, 7)] == ["a"] * 4
        assert second.card()["runs_ended"] == 1
        # the record says so among its events, and so does the portal's run page, reading this
        # record: in its status line and its status, besides the step and what it says
        assert [(e.step, e.kind) for e in record.events if e.kind == "degraded"] == [(3, "degraded")]
        assert [e.text for e in record.events if e.kind == "degraded"][0].startswith(f"member {third.url} lost at "
                                                                                     "step 3 (")
        page = html.unescape(portal_run_page(tmp_path / "runs.db", record))
        assert f"degraded: member {third.url} lost at step 3 (" in page
        line = re.search(r'<p class="run-says"[^>]*>(.*?)</p>', page, re.S)
        assert line and f"degraded: member {third.url} lost at step 3" in re.sub(r"<[^>]+>", "", line.group(1))
        assert f"completed (degraded: member {third.url} lost at step 3)" in re.sub(r"<[^>]+>", "", page)
    finally:
        for p in (as_server, first, second, third):
            p.stop()
