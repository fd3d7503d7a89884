"""The portal over real HTTP (uvicorn on loopback) with real WWM servers: register three and
list them by role, by world and by search, open a server's page; every bad input a clear
message on the page and nothing stored; a hostile card shown inert; the Content-Security-Policy
on every response; a POST without this visitor's CSRF token refused; accounts with argon2;
recovery links; the checker marking a server down; and ``wwm portal`` printing its ready line."""

from __future__ import annotations

import asyncio
import html
import ipaddress
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from portal_sites import csrf_of, served
from sqlalchemy import func, select

from wwm.portal.app import make_app
from wwm.portal.fetching import Policy
from wwm.portal.models import User
from wwm.portal.store import PortalError, PortalStore
from wwm.portal.visitors import CSP
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield store
    store.close()


@pytest.fixture
def portal(store: PortalStore) -> Iterator[str]:
    with served(make_app(store, check_every=0)) as url:
        yield url


class Browser:
    """An HTTP client with a cookie jar (loopback cookies included), like one browser."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def get(self, path: str) -> tuple[int, str, aiohttp.typedefs.LooseHeaders]:
        async with self.session.get(self.base + path) as reply:
            return reply.status, await reply.text(), reply.headers

    async def post(self, path: str, data: dict[str, str], *, csrf_from: str | None = None) -> tuple[int, str]:
        if csrf_from is not None:
            _, page, _ = await self.get(csrf_from)
            data = {**data, "csrf": csrf_of(page)}
        async with self.session.post(self.base + path, data=data) as reply:
            return reply.status, await reply.text()

    async def register(self, url: str) -> tuple[int, str]:
        return await self.post("/servers", {"url": url}, csrf_from="/servers")

    async def close(self) -> None:
        await self.session.close()


@pytest.fixture
async def browser(portal: str) -> AsyncIterator[Browser]:
    b = Browser(portal)
    yield b
    await b.close()


def user_rows(store: PortalStore) -> int:
    with store._session() as s:
        return int(s.scalar(select(func.count()).select_from(User)) or 0)


def listed(page: str) -> list[str]:
    """The names in a page's table of servers."""
    rows = re.findall(r'<tr data-server="\d+">\s*<td><a href="/servers/\d+">(.*?)</a>', page)
    return [html.unescape(name) for name in rows]


def message(page: str) -> str:
    found = re.search(r'<p class="message" role="alert">(.*?)</p>', page, re.S)
    assert found, "the page shows no message"
    return html.unescape(found.group(1))


async def test_register_three_servers_list_by_role_and_world_search_and_open_one(browser, store, wwm_servers):
    for key in ("world", "random", "seeker"):
        status, page = await browser.register(wwm_servers[key].url)
        assert status == 200 and f"{wwm_servers[key].url}</a>" in page, page[-1500:]  # sent on to its page
    assert len(store.servers()) == 3
    assert [s.role for s in store.servers()] == ["mind", "world", "mind"]    # FoodSeeker, GridWorld, RandomMind
    _, worlds, _ = await browser.get("/servers?role=world")
    assert listed(worlds) == ["GridWorld"]
    _, minds, _ = await browser.get("/servers?role=mind")
    assert listed(minds) == ["FoodSeeker", "RandomMind"]
    _, found, _ = await browser.get("/servers?q=seek")
    assert listed(found) == ["FoodSeeker"]
    _, nothing, _ = await browser.get("/servers?q=zebra")
    assert "No server matches" in nothing and listed(nothing) == []
    grid = store.server_by_url(wwm_servers["world"].url)
    seeker = store.server_by_url(wwm_servers["seeker"].url)
    assert grid and seeker
    author = store.new_user().user
    store.save_combination(author_id=author.id, title="Seeking food", world_url=grid.url,
                           document={"world": {"url": grid.url}, "mind": {"url": seeker.url}})
    _, by_world, _ = await browser.get(f"/servers?world={grid.url}")
    assert listed(by_world) == ["FoodSeeker", "GridWorld"]
    _, everything, _ = await browser.get("/servers")
    assert listed(everything) == ["FoodSeeker", "GridWorld", "RandomMind"]
    status, page, _ = await browser.get(f"/servers/{seeker.id}")
    assert status == 200 and "<h2>Credit trail</h2>" in page and "Seeking food" in page
    assert "<h2>Description</h2>" in page and html.escape(seeker.card["description"]) in page
    status, page, _ = await browser.get(f"/servers/{grid.id}")
    assert "size" in page and "<td>integer</td>" in page                     # its arguments
    status, again = await browser.register(wwm_servers["world"].url)        # once only
    assert status == 200 and len(store.servers()) == 3


async def test_bad_input_is_a_clear_message_and_nothing_is_stored(browser, store, odd_sites):
    cases = [
        ("127.0.0.1:8000", "is not a URL the portal can read"),
        ("javascript:alert(1)", "is not a URL the portal can read"),
        ("http://no-such-host.invalid/", "nothing answers at http://no-such-host.invalid/"),
        (odd_sites.url("/html"), "answers, but it is not a WWM server"),
        (odd_sites.url("/not-card"), "answers, but it is not a WWM server"),
    ]
    for typed, words in cases:
        status, page = await browser.register(typed)
        assert status == 400 and words in message(page), typed
        assert html.escape(typed) in page                              # the form keeps what was typed
    assert store.servers() == []
    status, page = await browser.post("/servers", {"url": "x" * 100_000}, csrf_from="/servers")
    assert status == 413 and store.servers() == []


async def test_public_mode_refuses_private_addresses_on_the_page(store, wwm_servers):
    with served(make_app(store, public=True, check_every=0, secure_cookie=False)) as url:
        browser = Browser(url)
        try:
            for typed in (wwm_servers["world"].url, "http://10.0.0.1/", "http://169.254.169.254/",
                          "http://[::1]:9/", "http://localhost:9/"):
                status, page = await browser.register(typed)
                assert status == 400 and "and this portal is public" in message(page), typed
            assert "public portal" in page
        finally:
            await browser.close()
    assert store.servers() == []


async def test_a_hostile_card_is_shown_inert(browser, store, odd_sites):
    status, page = await browser.register(odd_sites.url("/hostile"))
    assert status == 200
    server = store.servers()[0]
    for path in ("/servers", f"/servers/{server.id}", "/servers?role=mind", "/servers?q=evil"):
        _, page, _ = await browser.get(path)
        assert "<script>window" not in page and "<img src=x" not in page
        assert 'href="javascript:' not in page and "onerror=\"window" not in page
        assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page
    _, page, _ = await browser.get(f"/servers/{server.id}")
    assert page.count("&lt;script&gt;window.pwned=1") >= 8          # name, summary, formats, trail, arguments
    assert "javascript:window.pwned=3" in page                       # shown as text, never a link
    assert page.count("<script") == 1                                # the portal's own, from /static


async def test_every_response_has_the_security_headers(browser, store, odd_sites):
    await browser.register(odd_sites.url("/hostile"))
    for path in ("/", "/servers", "/servers/1", "/me", "/signin", "/signup", "/no-such-page",
                 "/servers/999", "/static/portal.css", "/static/portal.js"):
        status, page, headers = await browser.get(path)
        assert headers["Content-Security-Policy"] == CSP, path
        assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP
        assert headers["X-Content-Type-Options"] == "nosniff"
    status, page, _ = await browser.get("/no-such-page")
    assert status == 404 and "There is no page here." in page
    status, page, _ = await browser.get("/servers/999")
    assert status == 404 and "there is no server 999 on this portal" in page


async def test_a_post_without_this_visitors_csrf_token_is_refused(browser, portal, store, wwm_servers):
    url = wwm_servers["world"].url
    for data in ({"url": url}, {"url": url, "csrf": "0" * 64}, {"url": url, "csrf": ""}):
        status, page = await browser.post("/servers", data)
        assert status == 403 and "its security token is missing or does not match your cookie" in page
    other = Browser(portal)                              # a token from another visitor's page
    try:
        _, page, _ = await other.get("/servers")
        status, _ = await browser.post("/servers", {"url": url, "csrf": csrf_of(page)})
        assert status == 403
    finally:
        await other.close()
    for path in ("/signup", "/signin", "/signout", "/me/recovery", "/recover/abc"):
        status, page = await browser.post(path, {"username": "mallory", "password": "password123"})
        assert status == 403 and "Form refused" in page, path
    assert store.servers() == []
    with pytest.raises(PortalError):                      # no account was made
        store.sign_in("mallory", "password123")


async def test_accounts_store_the_argon2_hash_and_sign_in_and_out(browser, portal, store):
    status, page = await browser.post("/signup", {"username": "alice", "password": "correct horse"},
                                      csrf_from="/signup")
    assert status == 200 and '<strong class="username">alice</strong>' in page
    from sqlalchemy import text
    with store.engine.connect() as conn:
        rows = [" ".join(map(str, row)) for row in conn.execute(text("SELECT * FROM portal_users"))]
    assert any("$argon2id$" in row for row in rows) and not any("correct horse" in row for row in rows)
    status, page = await browser.post("/signup", {"username": "bob", "password": "long enough"}, csrf_from="/signup")
    assert status == 400 and "you already have an account, alice" in message(page)
    await browser.post("/signout", {}, csrf_from="/")
    status, page = await browser.post("/signin", {"username": "alice", "password": "wrong one"},
                                      csrf_from="/signin")
    assert status == 400 and message(page) == "no account has that username and password"
    status, page = await browser.post("/signin", {"username": "alice", "password": "correct horse"},
                                      csrf_from="/signin")
    assert status == 200 and "signed in as <strong" in page
    second = Browser(portal)
    try:
        status, page = await second.post("/signup", {"username": "alice", "password": "another one"},
                                         csrf_from="/signup")
        assert status == 400 and "the username 'alice' is taken" in message(page)
        status, page = await second.post("/signup", {"username": "<script>", "password": "long enough"},
                                         csrf_from="/signup")
        assert status == 400 and "<script>" not in page
    finally:
        await second.close()


async def test_an_anonymous_identity_comes_back_by_its_recovery_link(browser, portal, store):
    _, page, _ = await browser.get("/me")                       # a GET makes no identity (issue 26)
    assert "no identity on this portal yet" in page and user_rows(store) == 0
    _, page = await browser.post("/me/recovery", {}, csrf_from="/me")   # a POST makes one, link shown
    link = html.unescape(re.search(r'id="recovery" value="([^"]+)"', page).group(1))
    user = re.search(r"anonymous visitor (\d+)", page).group(1)
    elsewhere = Browser(portal)
    try:
        _, page, _ = await elsewhere.get(link.removeprefix(portal.rstrip("/")))
        assert "Continue as that visitor" in page
        status, page = await elsewhere.post(link.removeprefix(portal.rstrip("/")), {},
                                            csrf_from=link.removeprefix(portal.rstrip("/")))
        assert status == 200 and f"anonymous visitor {user}" in page
        status, page = await elsewhere.post("/me/recovery", {}, csrf_from="/me")   # a new link
        assert "the old one no longer works" in page
        stale = Browser(portal)
        try:
            path = link.removeprefix(portal.rstrip("/"))
            status, page = await stale.post(path, {}, csrf_from=path)
            assert status == 404 and "that recovery link is not valid" in page
        finally:
            await stale.close()
    finally:
        await elsewhere.close()


async def test_the_checker_marks_servers_up_and_down(store, tmp_path):
    with ServerProcess("wwm.kit.random_mind:RandomMind") as mind, served(make_app(store, check_every=0.2)) as url:
        browser = Browser(url)
        try:
            await browser.register(mind.url)
            server = store.servers()[0]
            mind.kill()
            for _ in range(100):
                if store.server(server.id).up is False:
                    break
                await asyncio.sleep(0.05)
            checked = store.server(server.id)
            assert checked.up is False and "nothing answers at" in (checked.last_error or "")
            _, page, _ = await browser.get(f"/servers/{server.id}")
            assert '<span class="badge failed down">down</span>' in page and "nothing answers at" in page
            mind.start()
            for _ in range(100):
                if store.server(server.id).up:
                    break
                await asyncio.sleep(0.05)
            assert store.server(server.id).up and store.server(server.id).latency_ms is not None
        finally:
            await browser.close()


def test_the_command_prints_its_ready_line_and_serves(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    process = subprocess.Popen([sys.executable, "-m", "wwm.portal", "--port", "0", "--db",
                                f"sqlite:///{tmp_path / 'p.db'}", "--check-every", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.fullmatch(r"serving the portal at (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops it\)\n", line)
        assert found, line
        import urllib.request
        with urllib.request.urlopen(found.group(1) + "servers", timeout=10) as reply:
            assert reply.status == 200 and reply.headers["Content-Security-Policy"] == CSP
    finally:
        process.terminate()
        process.wait(10)
    bad = subprocess.run([sys.executable, "-m", "wwm.portal", "--db", "postgresql://u:pw@127.0.0.1:1/x"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 1 and bad.stderr.startswith("wwm portal: cannot open the portal's database at ")
    assert "pw" not in bad.stderr


def test_policy_allow_is_kept():
    assert Policy(public=True, allow=(ipaddress.ip_network("127.0.0.2/32"),)).refusal(
        ipaddress.ip_address("127.0.0.2")) is None


async def test_an_error_inside_the_portal_is_a_page_with_the_security_headers_and_it_keeps_serving(store):
    from starlette.routing import Route

    async def broken(request):
        raise RuntimeError("a defect")

    app = make_app(store, check_every=0)
    app.router.routes.insert(0, Route("/broken", broken))
    with served(app) as url:
        b = Browser(url)
        try:
            status, page, headers = await b.get("/broken")
            assert status == 500 and "The portal could not answer that." in page and "a defect" not in page
            assert headers["Content-Security-Policy"] == CSP and headers["X-Content-Type-Options"] == "nosniff"
            status, _, _ = await b.get("/servers")
            assert status == 200
        finally:
            await b.close()
