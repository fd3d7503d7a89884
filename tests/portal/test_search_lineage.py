"""Searches and people on one record: a search started from a person's combination saves every
candidate as a combination derived from it, runs each through the portal's run store, and its
good candidates enter the World's Top 10 beside the person's, ranked by the World's scores;
a candidate's page says which search proposed it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml
from portal_sites import card_of, served

from wwm.portal.app import make_app
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.search.lineage import BOT
from wwm.store import RunStore

pytestmark = pytest.mark.slow


async def test_a_search_from_a_persons_combination_enters_the_top_10_beside_it(signal_bed, tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'portal.db'}"
    store, run_store = PortalStore(db), RunStore(db)
    try:
        world = store.add_server(signal_bed["world"], card_of(signal_bed["world"]))
        person = store.new_user().user
        doc = {"world": {"url": signal_bed["world"]},
               "mind": {"url": signal_bed["as"], "args": {"method": "w=q", "seed": 0,
                                                          "minds": [{"url": signal_bed["ab"]},
                                                                    {"url": signal_bed["s1"]}]}},
               "run": {"steps": 20}}
        theirs = store.save_combination(author_id=person.id, title="ab and a saboteur", document=doc,
                                        world_url=signal_bed["world"]).id
        async with RunService(store=run_store) as service:   # the person runs it on the portal
            started = await service.start(doc, steps=20, owner=f"user:{person.id}")
            assert await service.wait(started.run_id) == "completed"
        store.set_run(store.new_run(theirs, person.id, 20).id, run_store_id=started.run_id, status="completed")

        extra = tmp_path / "more.yaml"   # one more candidate, and two methods to choose from
        extra.write_text(yaml.safe_dump({"minds": {"cd": {"url": signal_bed["cd"]}},
                                         "choose": {"methods": ["w=q", "static-w"]}, "seeds": [0]}))
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "search", str(extra), "--portal-db", db,
                               "--from-combination", str(theirs), "--trials", "12", "--seed", "2", "--parallel", "2",
                               "--json"], capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert "12 candidates recorded in the portal" in done.stderr

        search = store.found_by(max(c.id for c in store.combinations_of_world(signal_bed["world"])))
        assert search is not None and search[0].start_id == theirs
        trials = store.search_trials(search[0].id)
        assert [t.number for t in trials] == list(range(12))
        made = [store.combination(t.combination_id) for t in trials if t.combination_id is not None]
        assert made and all(c.derived_from == theirs for c in made)                 # lineage
        assert {store.user(c.author_id).username for c in made} == {BOT}
        by_trial = {t["number"]: t for t in report["trials"]}
        for t in trials:                                                              # same scores both sides
            assert t.state == by_trial[t.number]["state"]
            if t.state == "complete":
                assert t.score == pytest.approx(by_trial[t.number]["values"][0])

        with served(make_app(store, check_every=0, runs=RunService(store=run_store))) as url:
            page = urllib.request.urlopen(f"{url}world/{world.id}").read().decode()
            board = re.search(r'<section class="top" data-steps="20">(.*?)</section>', page, re.S)
            assert board is not None, page
            ranked = [(int(cid), float(score)) for cid, score in re.findall(
                r'<li data-combination="(\d+)">.*?<strong class="score">([^<]*)</strong>', board.group(1), re.S)]
            ids = [cid for cid, _ in ranked]
            scores = [score for _, score in ranked]
            assert scores == sorted(scores, reverse=True)
            complete = sorted((t.score for t in trials if t.state == "complete"), reverse=True)
            person_score = run_store.get_run(started.run_id, max_steps=0).world_score
            expected = sorted([*complete, person_score], reverse=True)[:10]
            assert scores == pytest.approx(expected)                                  # the World's scores
            best_search = next(t.combination_id for t in sorted(trials, key=lambda t: -(t.score or -1e9)))
            assert ids[0] == best_search or scores[0] == scores[ids.index(best_search)]
            if person_score >= expected[-1]:
                assert theirs in ids                                                  # beside the person's
            cpage = urllib.request.urlopen(f"{url}combination/{best_search}").read().decode()
            assert "Proposed by the automated search" in cpage
            assert f'href="/combination/{theirs}" class="derived-from"' in cpage
            assert f"--from-combination {best_search}" in cpage
    finally:
        run_store.close()
        store.close()
