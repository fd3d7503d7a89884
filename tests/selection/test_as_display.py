"""In one process: the AS's table for its run display page (each mind's last answer, the
winner, a compromise with no winner, minds not asked), the generic rendering of such details
by the page, and the refusal of the AS's own URL when it answers as a server."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from society_minds import TableMind

from wwm import Refusal
from wwm.selection import ActionSelectionMind
from wwm.server import pages
from wwm.server.trail import CreditTrail, current_server

Q = ["a0:5,a1:4,a2:0", "a0:0,a1:3,a2:4", "a0:2,a1:1.5,a2:0"]


def society(method: str, **kwargs) -> ActionSelectionMind:
    minds = [TableMind(q, url=f"http://m{i}.example/") for i, q in enumerate(Q)]
    return ActionSelectionMind(minds, method=method, seed=0, **kwargs)


def rows(as_: ActionSelectionMind) -> dict[str, dict]:
    return {r["mind"]: r for r in as_.display_details()["minds"]}


async def test_the_table_names_each_minds_answer_and_the_winner():
    as_ = society("w=q")
    await as_.new_run()
    assert {r["suggested"] for r in rows(as_).values()} == {"not asked"}   # before any step
    await as_.get_action("x")
    table = rows(as_)
    assert [table[f"http://m{i}.example/"]["suggested"] for i in range(3)] == ["a0", "a2", "a0"]
    assert [table[f"http://m{i}.example/"]["won"] for i in range(3)] == [True, False, False]
    assert table["http://m1.example/"]["Q"] == 4.0
    assert as_.display_details()["decision"] == {"method": "w=q", "steps": 1, "timeout": 2.0, "action": "a0",
                                                 "winner": "http://m0.example/", "note": None}
    json.dumps(as_.display_details())  # JSON-able as it is


async def test_a_compromise_has_no_winner_and_one_mind_methods_ask_one():
    as_ = society("min-worst-unhappiness", candidates="shared", actions="a0,a1,a2")
    await as_.new_run()
    await as_.get_action("x")
    assert not any(r["won"] for r in rows(as_).values())
    assert as_.display_details()["decision"]["note"] == "compromise action"
    as_ = society("rotation")
    await as_.new_run()
    await as_.get_action("x")
    assert [r["suggested"] for r in rows(as_).values()] == ["a0", "not asked", "not asked"]


def view_of(obj) -> dict:
    d = SimpleNamespace(url="http://as.example/", role="mind", cls=ActionSelectionMind)
    run = SimpleNamespace(obj=obj, started=0.0, queries=2, last_state="x", last_action="a0",
                          score=None, client_url=None)
    return pages.run_view(d, run)  # type: ignore[arg-type]


async def test_the_page_renders_details_generically_and_survives_a_failing_hook():
    as_ = society("w=q")
    await as_.new_run()
    await as_.get_action("x")
    page = pages.display_page(view_of(as_))
    assert "<h2>minds</h2>" in page and '<span class="yes">✓</span>' in page
    assert "http://m2.example/" in page
    assert "details" not in view_of(TableMind("a:1"))       # no hook: no table

    class Broken:
        def display_details(self):
            raise RuntimeError("</script>oops")

    view = view_of(Broken())
    assert "RuntimeError: </script>oops" in view["details"]["error"]
    page = pages.display_page(view)
    assert "&lt;/script&gt;oops" in page and page.count("</script>") == 1


async def test_its_own_url_is_refused_when_it_answers_as_a_server():
    token = current_server.set(CreditTrail("http://127.0.0.1:8123/"))
    try:
        for own in ("http://127.0.0.1:8123/", "http://127.0.0.1:8123", "ws://127.0.0.1:8123/ws"):
            with pytest.raises(Refusal, match="cannot be its own member") as info:
                ActionSelectionMind([own])
            assert info.value.code == "mind-url-invalid" and own in info.value.text
        as_ = ActionSelectionMind([TableMind("a:1")])
        with pytest.raises(Refusal, match="cannot be its own member"):
            await as_.new_run("http://127.0.0.1:8123/")   # a run of this very server asks
        await as_.new_run("http://client.example/")
        with pytest.raises(Refusal, match="cannot be its own member"):
            await as_.add_mind("ws://127.0.0.1:8123")
        assert len(as_.members) == 1
    finally:
        current_server.reset(token)
