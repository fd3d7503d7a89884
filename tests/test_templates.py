"""Every web page is a template (src/wwm/**/templates/), escaped by default, and every name a
template uses is given: rendering each page in its shapes (a world's and a mind's description
page, a display page with and without a picture and details, the run-ended page, the grid
picture, an ACL conversation log) loads every template file there is, under StrictUndefined,
without an error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from wwm.acl import log
from wwm.acl.agent import Agent, LocalBus
from wwm.acl.contractnet import contract_net, worker
from wwm.acl.message import AID, ACLMessage
from wwm.kit.grid import GridWorld
from wwm.kit.random_mind import RandomMind
from wwm.server import make_app, pages, templates
from wwm.server.drawing import grid_svg

SRC = Path(__file__).resolve().parents[1] / "src"


def template_files() -> set[str]:
    """Each template file by the name it is loaded by: the server's by its own, a feature's
    under its package's last name (see wwm.server.templates)."""
    names = set()
    for folder in SRC.glob("wwm/**/templates"):
        prefix = "" if folder.parent.name == "server" else folder.parent.name + "/"
        names |= {prefix + p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    return names


def cards() -> list[dict]:
    world = make_app(GridWorld, url="http://127.0.0.1:9/", defaults={"size": 10}).card()
    world["credit_trail"]["calls"] = [{"url": "http://other.example/", "queries": 2, "last_seen": 0.0}]
    mind = make_app(RandomMind, url="http://127.0.0.1:9/").card()
    mind["arguments_in_force"]["needed"] = {"set": "run"}                  # one each New run gives
    return [world, mind]


class Offers:
    def __init__(self, details=None, grid=None) -> None:
        self.details, self.grid = details, grid

    def display_details(self):
        return self.details

    def display_grid(self):
        return self.grid


def view(obj) -> dict:
    d = SimpleNamespace(url="http://127.0.0.1:9/", role="world", cls=type(obj))
    run = SimpleNamespace(obj=obj, started=0.0, queries=1, last_state="s", last_action=None,
                          score=0.5, client_url=None)
    return pages.run_view(d, run)  # type: ignore[arg-type]


async def conversation(tmp_path: Path) -> list[log.Entry]:
    """A Contract Net round with a reneger (commitments made and broken) and a message out
    of sequence (refused)."""
    bus = LocalBus()
    boss = bus.add(Agent("boss", log_path=str(tmp_path / "boss.jsonl")))
    for name, price, mode in (("a", 1, "renege"), ("b", 2, "honest")):
        bus.add(Agent(name, handler=worker(price, mode, 0.01)))
    await contract_net(boss, [AID("a"), AID("b")], "(lift)", needed=1, deadline=0.3)
    await boss.deliver(ACLMessage("agree", AID("b"), (boss.aid,), conversation_id="c-rogue",
                                  reply_with="r1", protocol="fipa-request"))
    await asyncio.sleep(0.01)
    return log.read(tmp_path / "boss.jsonl")


async def asgi_get(app, path: str) -> tuple[int, str]:
    """GET ``path`` from an ASGI app in this process (no client library, no socket)."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    path, _, query = path.partition("?")
    await app({"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
               "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
               "headers": [(b"host", b"portal.test")], "server": ("portal.test", 80),
               "client": ("127.0.0.1", 1), "root_path": ""}, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body.decode()


def portal_pages(tmp_path: Path) -> list[tuple[int, str]]:
    """Every page of the portal, through its app: home, the servers (listed, one open), the
    visitor's own page, the recovery, sign-up and sign-in pages, a run's page (not started),
    the compose form, a combination's page, the combinations, a World's Top 10, a refused
    end-run link, a not-found page."""
    from wwm.portal.app import make_app
    from wwm.portal.store import PortalStore

    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    try:
        store.add_server("http://127.0.0.1:9/", cards()[0])
        user = store.new_user().user
        document = {"world": {"url": "http://127.0.0.1:9/"}, "mind": {"url": "http://m.test/", "args": {
            "minds": [{"url": "http://m1.test/", "args": {"x": 1}}]}}}
        combination = store.save_combination(author_id=user.id, title="t", document=document,
                                             world_url="http://127.0.0.1:9/", explanation="*why*")
        run = store.new_run(combination.id, user.id, 10)
        # a challenge with a scored entry and a failed one (their evaluations), and a search with a trial
        challenge = store.new_challenge(kind="society", title="cup", world_url="http://127.0.0.1:9/", steps=5,
                                        seeds=[0, 1], settings={"timeout": 1.0}, created_by=user.id)
        scored = store.new_entry(challenge.id, user.id, combination_id=combination.id)
        store.set_entry(scored.id, status="scored", score=4.0, error=0.5, detail={"scores": [3.5, 4.5]}, finished=True)
        store.add_evaluation(scored.id, seed=0, status="completed", score=3.5, run_store_id=1)
        failed = store.new_entry(challenge.id, user.id, combination_id=combination.id)
        store.set_entry(failed.id, status="failed: mind lost", detail={"reason": "no answer"}, finished=True)
        test = store.new_challenge(kind="lambdastar", title="Λ*", world_url="wwm:lambdastar", steps=5, seeds=[0],
                                   settings={"timeout": 1.0, "grid": 5, "iterations": 5, "profile": "paper",
                                             "oracle_hints": True}, created_by=user.id)
        sat = store.new_entry(test.id, user.id, minds=["http://m1.test/", "http://m2.test/"])
        store.set_entry(sat.id, status="scored", score=0.5, error=0.01, finished=True, detail={
            "agents": 2, "episodes": 5, "seeds": [{"seed": 0, "upsilon": 0.5, "per_mind": [0.4, 0.6]}],
            "bands": [{"k_min": 1, "k_max": 3, "episodes": 5, "upsilon": 0.5, "stderr": 0.01}]})
        bot = store.bot_user("wwm-search")
        search = store.open_search(study="s", sampler="cmaes", space={}, author_id=bot, start_id=combination.id)
        store.record_trial(search.id, 0, state="complete", combination_id=combination.id, score=2.0)
        store.record_trial(search.id, 1, state="failed", combination_id=None, score=None, reason="down",
                           best_before=combination.id)
        app = make_app(store, check_every=0)
        try:
            return [asyncio.run(asgi_get(app, path)) for path in
                    ("/", "/servers?q=grid", "/servers/1", "/me", "/recover/x", "/signup", "/signin",
                     f"/user/{user.id}/combination/{combination.id}/run/{run.id}",
                     "/compose", f"/combination/{combination.id}", "/combinations", "/world/1",
                     "/challenges", f"/challenge/{challenge.id}", f"/challenge/{test.id}", "/searches",
                     f"/search/{search.id}", f"/run/{run.id}/end/x", "/nowhere")]
        finally:
            app.state.runs.store.close()
    finally:
        store.close()


def test_every_template_renders_with_every_name_given(monkeypatch, tmp_path):
    loaded: set[str] = set()
    get_template = jinja2.Environment.get_template

    def spy(self, name, *args, **kwargs):
        loaded.add(name)
        return get_template(self, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "get_template", spy)
    grid = {"columns": 3, "rows": 2, "marks": {"agent": [[0, 0]], "wall": [[1, 1]], "hazard": [[2, 0]],
                                               "ghost": [[2, 1]]}, "caption": "c"}
    for card in cards():
        assert "<h2>Credit trail</h2>" in pages.description_page(card)
    for obj in (Offers(), Offers({"minds": [{"m": 1, "won": True}], "x": {"y": 1.5}}, grid),
                Offers([1, "two", None], {"columns": 0, "rows": 1}), Offers("text")):
        assert '<div id="details">' in pages.display_page(view(obj))
    assert "No run here" in pages.gone_page()
    assert pages.icon().startswith("<svg")
    assert grid_svg(grid).startswith('<svg class="grid"')
    page = log.html(asyncio.run(conversation(tmp_path)))
    assert 'class="refused"' in page and 'class="from line l"' in page
    statuses = [status for status, _ in portal_pages(tmp_path)]
    assert statuses == [200] * 17 + [410, 404]

    assert template_files() <= loaded, f"templates no test renders: {sorted(template_files() - loaded)}"


@pytest.mark.parametrize("package", ["wwm.server", "wwm.acl"])
def test_a_missing_name_fails_loudly_and_pages_are_escaped(package):
    env = templates.environment(package)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ nobody }}").render()
    with pytest.raises(jinja2.UndefinedError):
        templates.render("description.html", package=package)         # no card given
    assert all(env.autoescape(name) for name in ("page.html", "picture.svg", "feed.xml"))
    assert not env.autoescape("style.css")
