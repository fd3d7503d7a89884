"""A society degraded during a run is said on the run's page, in the status line beside the
plain-language status and in the record's events (issue 26, item 7): a step whose answer says
``degraded: member X lost at step k (why)`` (a Mind_AS that could not reopen a member's run)
is recorded as a ``degraded`` event, and the page reads it from the run store."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore
from wwm.protocol.records import RunResult, Step
from wwm.store import RunStore, StoreRecorder

LOST = "http://127.0.0.1:9/third"


def test_the_status_line_and_the_record_say_degraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'portal.db'}"
    with RunStore(url) as runs:
        recorder = StoreRecorder(runs, mind_url="http://127.0.0.1:9/as", world_url="local:Cycle")
        result = RunResult(status="running")
        recorder.on_start(result)
        for i in range(5):
            note = f"degraded: member {LOST} lost at step 3 (unreachable: connection refused)" if i == 3 else None
            recorder.on_step(Step(i, "x", None if note else "a", "y", 0.0, None, 0.0, 0.0, 0.0, 0.0, note))
        recorder.on_finish(RunResult(status="completed", steps=[]))
        assert recorder.run_id is not None
        record = runs.get_run(recorder.run_id)
    assert [(e.step, e.kind, e.text) for e in record.events] == [
        (3, "degraded", f"member {LOST} lost at step 3 (unreachable: connection refused)")]

    store = PortalStore(url)
    try:
        me = store.new_user().user
        cid = store.save_combination(author_id=me.id, title="Three minds", world_url="local:Cycle",
                                     document={"world": {"url": "local:Cycle"}, "mind": {"url": "http://a/"}}).id
        rid = store.new_run(cid, me.id, 5).id
        store.link_run(rid, record.id)
        with TestClient(make_app(store, check_every=0)) as client:
            page = client.get(f"/run/{rid}").text
    finally:
        store.close()
    line = re.search(r'<p class="run-says"[^>]*>(.*?)</p>', page, re.S)
    assert line, "the page has no status line"
    words = html.unescape(re.sub(r"<[^>]+>", "", line.group(1)))
    assert words.startswith("Finished: ") and f"degraded: member {LOST} lost at step 3" in words
    assert "connection refused" not in words, "the reason is the record's, not the status line's"
    status = re.search(r'<dt>Status</dt><dd>(.*?)</dd>', page, re.S)
    assert status and f"completed (degraded: member {LOST} lost at step 3)" in html.unescape(
        re.sub(r"<[^>]+>", "", status.group(1)))
    events = re.search(r'<ul class="events" id="events">(.*?)</ul>', page, re.S)
    assert events and (f"step 3: degraded: member {LOST} lost at step 3 (unreachable: connection refused)"
                       in html.unescape(events.group(1)))
