"""A portal run's status lives in one place, the run store (issue 26, item 8): the pages and
lists read it there, so a run whose end is written to the run store alone (no portal-side
update: no hook, no copy, no sync) is shown ended everywhere at once; and no module of the
portal reaches into the run store's tables (it uses the store's API)."""

from __future__ import annotations

import html
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from portal_sites import served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore
from wwm.store import RunStore, StepRecord

PORTAL = Path(__file__).resolve().parents[2] / "src" / "wwm" / "portal"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield store
    store.close()


def get(base: str, path: str) -> str:
    with urllib.request.urlopen(base + path, timeout=30) as reply:
        return str(reply.read().decode())


def run_status_on(page: str) -> str:
    found = re.search(r'id="run-status"[^>]*>(.*?)</', page, re.S)
    assert found, "the run page shows no status"
    return html.unescape(found.group(1))


def history_status(page: str, rid: int) -> str:
    found = re.search(rf'<tr data-run="{rid}">(?:<td>.*?</td>){{4}}<td>(.*?)</td>', page, re.S)
    assert found, f"run {rid} is not in the combination's runs"
    return html.unescape(found.group(1))


def test_a_run_ended_in_the_run_store_alone_is_shown_ended_on_every_page(store: PortalStore) -> None:
    me = store.new_user().user
    doc = {"world": {"url": "http://127.0.0.1:9/"}, "mind": {"url": "http://127.0.0.1:9/m"}}
    cid = store.save_combination(author_id=me.id, title="One place", document=doc, world_url="http://127.0.0.1:9/").id
    with RunStore(store.url.render_as_string(hide_password=False)) as runs, \
            served(make_app(store, check_every=0)) as url:
        base = url.rstrip("/")
        record_id = runs.start_run(mind_url="http://127.0.0.1:9/m", world_url="http://127.0.0.1:9/", society=doc)
        for i in range(3):
            runs.record_step(record_id, StepRecord(i, f"s{i}", "a", f"s{i + 1}", score=1.0))
        runs.flush()
        rid = store.new_run(cid, me.id, 10).id
        store.link_run(rid, record_id)

        assert run_status_on(get(base, f"/run/{rid}")) == "running"
        assert f'data-run="{rid}"' in get(base, "/"), "a running run is among the home page's live runs"
        assert history_status(get(base, f"/combination/{cid}"), rid) == "running"

        runs.finish_run(record_id, "completed", 3.0, 3, world_score=3.0)   # the run store, and nothing else

        # the lists first: the run page used to copy a finished status to the portal's row
        assert f'data-run="{rid}"' not in get(base, "/"), "an ended run is no longer live on the home page"
        assert history_status(get(base, f"/combination/{cid}"), rid) == "completed"
        assert run_status_on(get(base, f"/run/{rid}")) == "completed"

        other = runs.start_run(mind_url="m", world_url="w", society=doc)   # a writer that died: interrupted
        lost = store.new_run(cid, me.id, 10).id
        store.link_run(lost, other)
        runs.release_run(other)                                             # as if its process were gone
        with runs.writing() as conn:
            from sqlalchemy import update

            from wwm.store import schema
            conn.execute(update(schema.runs).where(schema.runs.c.id == other).values(pid=2**22 + 1))
        assert f'data-run="{lost}"' not in get(base, "/")
        assert history_status(get(base, f"/combination/{cid}"), lost) == "interrupted"
        assert run_status_on(get(base, f"/run/{lost}")) == "interrupted"


RUN_TABLES = re.compile(r"wwm_runs|wwm_steps|wwm_events|wwm_meta|store\.schema|store import[^\n]*\bschema\b"
                        r"|schema\.(runs|steps|events|meta)\b")


def test_no_portal_module_queries_the_run_stores_tables() -> None:
    """The portal reads and marks runs through the run store's API (``RunStore.states``,
    ``running``, ``unfinished``, ``close_left``, ...), never by SQL against its tables."""
    found = []
    for path in sorted(PORTAL.rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if RUN_TABLES.search(code) or ("text(" in code and "wwm_" in code):
                found.append(f"{path.relative_to(PORTAL)}:{n}: {line.strip()}")
    assert found == [], "the portal reaches into the run store's tables:\n" + "\n".join(found)
