"""The portal ready for the open internet (issue 26, item 6), each over the real app on loopback:
a page on another port that plants the portal's cookie and a matching token cannot start a run
(Debian's chromium); a POST whose Origin or Referer is another origin is refused; the CSRF
token is bound to the identity; ``__Host-`` cookies over HTTPS, X-Forwarded-Proto believed only
from the proxy given by ``--proxy``; per-address rate limits (429, Retry-After) on a clock the
test steps, and a sign-up flood that leaves the home page answering; the address policy of a
public portal at run time (a name re-pointed at loopback after it was checked); canonical URLs
and no credentials; every id past 2^63 in every route, a bad token and a non-UTF-8 form a 4xx."""

from __future__ import annotations

import asyncio
import html
import ipaddress
import re
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from portal_sites import Site, csrf_of, run_status, served, start_portal
from sqlalchemy import func, select
from starlette.routing import Route

from wwm.portal.app import make_app
from wwm.portal.cards import tidy_url
from wwm.portal.fetching import FetchRefused, Policy, check_url
from wwm.portal.models import PortalRun, Server
from wwm.portal.ratelimits import Limit, RateLimits
from wwm.portal.store import PortalStore
from wwm.portal.visitors import Signer, Visitor

pytestmark = pytest.mark.slow
BIG = 2**63


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield store
    store.close()


def rows(store: PortalStore, model: Any) -> int:
    with store._session() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def combination(store: PortalStore, world: str, mind: str, steps: int = 3) -> int:
    author = store.new_user().user
    doc = {"name": "a society", "world": {"url": world, "args": {"size": 5}}, "mind": {"url": mind},
           "run": {"steps": steps, "timeout": 5.0}}
    return store.save_combination(author_id=author.id, title="A society", document=doc, world_url=world).id


def said(page: str) -> str:
    found = re.search(r'<p class="message" role="alert">(.*?)</p>', page, re.S)
    return html.unescape(found.group(1)) if found else ""


class Client:
    """One visitor's HTTP client (its own cookies)."""

    def __init__(self, base: str, **headers: str) -> None:
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), headers=headers or None)

    async def token(self, path: str = "/signup") -> str:
        async with self.session.get(self.base + path) as page:
            return csrf_of(await page.text())

    async def post(self, path: str, data: dict[str, str] | bytes, **headers: str) -> tuple[int, str, Any]:
        kwargs: dict[str, Any] = {"allow_redirects": False, "headers": headers or None}
        if isinstance(data, bytes):
            kwargs["headers"] = {**(headers or {}), "Content-Type": "application/x-www-form-urlencoded"}
        async with self.session.post(self.base + path, data=data, **kwargs) as reply:
            return reply.status, await reply.text(), reply.headers

    async def close(self) -> None:
        await self.session.close()


@pytest.fixture
async def client(store: PortalStore) -> AsyncIterator[tuple[Client, str]]:
    with served(make_app(store, check_every=0)) as url:
        c = Client(url)
        yield c, url
        await c.close()


# -- 1. CSRF that holds against cookie planting ---------------------------------------------------

@pytest.mark.browser
async def test_a_page_on_another_port_that_plants_the_cookie_cannot_start_a_run(store, wwm_servers, chromium):
    """The attacker takes a cookie and its token from the portal (as any visitor can), serves a
    page on another loopback port that writes that cookie (cookies are not separated by port)
    and posts the start-run form with the token: the browser names the page's origin, refused."""
    cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
    with served(make_app(store, check_every=0)) as portal:
        attacker = Client(portal)
        try:
            token = await attacker.token(f"/combination/{cid}")
            cookie = next(c.value for c in attacker.session.cookie_jar if c.key == "wwm_portal")
        finally:
            await attacker.close()
        page_html = (f'<!doctype html><form id="f" method="post" action="{portal}combination/{cid}/runs">'
                     f'<input name="csrf" value="{token}"><input name="steps" value="3"></form>'
                     '<script src="/go.js"></script>')
        script = f'document.cookie = "wwm_portal={cookie}; path=/"; document.getElementById("f").submit();'

        async def evil(request: web.Request) -> web.Response:
            return web.Response(text=page_html, content_type="text/html")

        async def go(request: web.Request) -> web.Response:
            return web.Response(text=script, content_type="application/javascript")

        with Site({"/": evil, "/go.js": go}) as site:
            assert site.port != int(portal.rsplit(":", 1)[1].strip("/"))
            browser = chromium
            page = await browser.new_page()
            page.set_default_timeout(15000)
            async with page.expect_response(lambda r: r.url.endswith(f"/combination/{cid}/runs")) as answer:
                await page.goto(site.url("/"))
            reply = await answer.value
            assert reply.status == 403
            await page.wait_for_load_state()
            text = await page.locator("p.message").inner_text()
            assert "it was sent from 'http://127.0.0.1:" in text and "not from this portal's own pages" in text
    assert rows(store, PortalRun) == 0           # no run was started


async def test_a_post_from_another_origin_is_refused_and_from_its_own_accepted(client, store):
    c, url = client
    own = url.rstrip("/")
    other = own.rsplit(":", 1)[0] + ":1"
    cases = [({"Origin": other}, 403), ({"Referer": other + "/page"}, 403), ({"Origin": "null"}, 403),
             ({"Origin": "http://evil.example"}, 403), ({"Origin": own}, 303), ({"Referer": own + "/me"}, 303),
             ({}, 303)]       # neither: not a browser (every browser sends Origin with a POST)
    for headers, status in cases:
        token = await c.token("/me")
        got, page, _ = await c.post("/me/new", {"csrf": token}, **headers)
        assert got == status, (headers, got, said(page))
        if status == 403:
            assert "This form was refused: it was sent from" in said(page)


async def test_a_portal_given_its_origin_accepts_only_that(store):
    with served(make_app(store, check_every=0, origin="https://portal.example.org:443/")) as url:
        c = Client(url)
        try:
            for origin, status in ((url.rstrip("/"), 403), ("https://portal.example.org", 303)):
                got, _, _ = await c.post("/me/new", {"csrf": await c.token("/me")}, Origin=origin)
                assert got == status
        finally:
            await c.close()
    with pytest.raises(ValueError, match="origin must be an http"):
        make_app(store, origin="portal.example.org")


def test_the_token_is_bound_to_the_identity():
    signer = Signer("k" * 32)
    anonymous, someone = Visitor("same-nonce"), Visitor("same-nonce", 7)
    assert signer.csrf_token(anonymous) != signer.csrf_token(someone)
    assert signer.csrf_ok(someone, signer.csrf_token(someone))
    assert not signer.csrf_ok(someone, signer.csrf_token(anonymous))
    for bad in ("é" * 64, "a" * 10_000, None, 5, ""):
        assert not signer.csrf_ok(someone, bad)


@pytest.mark.parametrize("proxy, forwarded, secure", [
    ("127.0.0.1", "https", True),        # the proxy it was told of says HTTPS: __Host-, Secure
    ("127.0.0.1", "http", False),
    (None, "https", False),              # no --proxy: the header is anyone's, ignored
    ("192.0.2.1", "https", False),       # another proxy's address: ignored
])
async def test_host_prefixed_cookie_over_https_from_the_trusted_proxy_only(tmp_path, proxy, forwarded, secure):
    child, url = start_portal(f"sqlite:///{tmp_path / 'portal.db'}", *(["--proxy", proxy] if proxy else []))
    try:
        async with aiohttp.ClientSession() as session, session.get(
                url + "/me", headers={"X-Forwarded-Proto": forwarded, "X-Forwarded-For": "203.0.113.5"}) as reply:
            cookie = reply.headers["set-cookie"]
        if secure:
            assert cookie.startswith("__Host-wwm_portal=") and "; Secure" in cookie and "Path=/" in cookie
            assert "Domain" not in cookie
        else:
            assert cookie.startswith("wwm_portal=") and "Secure" not in cookie
    finally:
        child.terminate()
        child.wait(20)


# -- 2. rate limits --------------------------------------------------------------------------------

def test_a_bucket_refills_on_the_clock_it_is_given():
    clock = Clock()
    limits = RateLimits({"signup": Limit(2, 60.0)}, clock=clock)
    assert [limits.take("signup", "192.0.2.1") for _ in range(3)] == [None, None, 30]
    assert limits.take("signup", "192.0.2.2") is None                      # another address
    assert limits.take("signup", "2001:db8::1") is None
    assert limits.take("signup", "2001:db8::2") is None
    assert limits.take("signup", "2001:db8::3") == 30                      # the same /64
    clock.now += 29
    assert limits.take("signup", "192.0.2.1") == 1
    clock.now += 1
    assert limits.take("signup", "192.0.2.1") is None
    with pytest.raises(ValueError, match="at least 1 request"):
        Limit(0, 1.0)


async def test_a_sign_up_flood_is_answered_429_and_the_home_page_still_answers(store, monkeypatch):
    """16 sign-ups at once from one address: 3 served (each hashed in the one hashing thread),
    13 answered 429 with Retry-After and a page saying how long; the home page answers during
    the flood; after the bucket's refill time, one more sign-up is served."""
    clock = Clock()
    hashed_in: list[str] = []
    sign_up = store.sign_up

    def recording(*args: Any) -> Any:
        hashed_in.append(threading.current_thread().name)
        return sign_up(*args)

    monkeypatch.setattr(store, "sign_up", recording)
    limits = RateLimits({"signup": Limit(3, 600.0)}, clock=clock)
    with served(make_app(store, check_every=0, rate_limits=limits)) as url:
        visitors = [Client(url) for _ in range(17)]
        try:
            tokens = [await v.token() for v in visitors]

            async def home() -> int:
                await asyncio.sleep(0.05)
                async with visitors[0].session.get(url) as reply:
                    return reply.status

            answers = await asyncio.gather(
                *(v.post("/signup", {"csrf": t, "username": f"user{n}", "password": "long enough pass"})
                  for n, (v, t) in enumerate(zip(visitors[:16], tokens, strict=False))), home())
            flood, home_status = answers[:-1], answers[-1]
            assert home_status == 200
            refused = [a for a in flood if a[0] == 429]
            assert len(refused) == 13 and sorted(a[0] for a in flood if a[0] != 429) == [303, 303, 303]
            for _, page, headers in refused:
                assert headers["retry-after"] == "200"
                assert said(page) == "Too many requests to sign up from your address: try again in 200 s."
            assert set(hashed_in) == {"wwm-portal-hash_0"} and len(hashed_in) == 3
            clock.now += 200
            status, _, _ = await visitors[16].post("/signup", {"csrf": tokens[16], "username": "late",
                                                               "password": "long enough pass"})
            assert status == 303
        finally:
            for v in visitors:
                await v.close()


async def test_every_limited_form_is_limited(store):
    clock = Clock()
    one = Limit(1, 60.0)
    limits = RateLimits({a: one for a in ("signin", "register", "compose", "run")}, clock=clock)
    with served(make_app(store, check_every=0, rate_limits=limits)) as url:
        c = Client(url)
        try:
            for path in ("/signin", "/servers", "/compose", "/combination/1/runs"):
                first, _, _ = await c.post(path, {"csrf": await c.token("/me")})
                second, page, headers = await c.post(path, {"csrf": await c.token("/me")})
                assert first != 429 and second == 429 and headers["retry-after"] == "60", path
                assert "from your address: try again in 60 s" in said(page)
        finally:
            await c.close()


# -- 3. the address policy at every connection -------------------------------------------------

class Resolver:
    """A name resolver the test controls: ``localhost`` points where the test says."""

    def __init__(self, address: str) -> None:
        self.address = address

    async def __call__(self, host: str, port: int) -> list[tuple[int, str]]:
        import socket

        if host != "localhost":
            raise OSError(f"{host} is not known here")
        return [(socket.AF_INET6 if ":" in self.address else socket.AF_INET, self.address)]


async def test_a_name_re_pointed_at_loopback_is_refused_when_the_run_connects(store, wwm_servers):
    """A public portal: ``localhost`` was a public address when it was checked (registration),
    and is loopback now. The run is refused before it connects ("could not start", saying
    why), where before it reached the servers on loopback."""
    resolver = Resolver("93.184.216.34")
    policy = Policy(public=True, resolve=resolver)
    world = wwm_servers["world"].url.replace("127.0.0.1", "localhost")
    mind = wwm_servers["seeker"].url.replace("127.0.0.1", "localhost")
    await check_url(world, policy)                            # allowed, as when it was registered
    cid = combination(store, world, mind)
    resolver.address = "127.0.0.1"                            # re-pointed since
    with pytest.raises(FetchRefused, match="is a loopback address"):
        await check_url(world, policy)
    app = make_app(store, check_every=0, policy=policy, secure_cookie=False)
    with served(app) as url:
        c = Client(url)
        try:
            status, page, _ = await c.post(f"/combination/{cid}/runs", {"csrf": await c.token(f"/combination/{cid}"),
                                                                       "steps": "3"})
            assert status == 303, said(page)
            for _ in range(300):
                run = one_run(store)
                if run.run_store_id is not None and run_status(store, run.id) != "running":
                    break
                await asyncio.sleep(0.1)
        finally:
            await c.close()
        record = app.state.runs.store.get_run(run.run_store_id, max_steps=0)
    assert (run_status(store, run.id), record.status, record.step_count) == ("could not start", "could not start", 0)
    assert [e.text for e in record.events if e.kind == "run-ended"] in (
        [f"the portal does not fetch {url}: localhost (127.0.0.1) is a loopback address, and this portal is public"]
        for url in (world, mind))


async def test_the_guard_checks_every_server_of_a_society_members_included():
    """The check before a run connects covers the members a Mind_AS server is asked to call
    (the portal would otherwise have a public server reach a private address for it)."""
    from wwm.client.society import parse
    from wwm.portal.fetching import society_guard

    resolver = Resolver("93.184.216.34")
    guard = society_guard(Policy(public=True, resolve=resolver, allow=(ipaddress.ip_network("192.0.2.0/24"),)))
    doc = {"world": {"url": "http://192.0.2.1/"},
           "mind": {"url": "http://192.0.2.2/", "args": {"minds": ["http://192.0.2.3/", {"url": "http://localhost:9/"}]}}}
    await guard(parse(doc))                                  # all public (or allowed) now
    resolver.address = "10.1.2.3"
    with pytest.raises(FetchRefused, match=r"http://localhost:9/: localhost \(10.1.2.3\) is a private address"):
        await guard(parse(doc))
    await society_guard(Policy(public=False, resolve=resolver))(parse(doc))   # a local portal: anything


def one_run(store: PortalStore) -> PortalRun:
    with store._session() as s:
        return s.scalars(select(PortalRun)).one()


# -- 4. canonical URLs, no credentials ------------------------------------------------------------

def test_one_server_one_canonical_url():
    same = ["http://localhost:8001", "http://127.0.0.1:8001/", "http://0.0.0.0:8001", "HTTP://0x7f000001:8001/",
            "http://[::ffff:127.0.0.1]:8001", "http://2130706433:8001/", "http://LOCALHOST:8001/#top"]
    assert {tidy_url(u) for u in same} == {"http://127.0.0.1:8001/"}
    assert tidy_url("http://Example.ORG:80") == tidy_url("http://example.org./") == "http://example.org/"
    assert tidy_url("https://example.org:443") == "https://example.org/"
    assert tidy_url("https://example.org:8443/wwm") == "https://example.org:8443/wwm"
    assert tidy_url("http://[2001:DB8::0:1]:8000") == "http://[2001:db8::1]:8000/"
    for typed in ("http://user:secret@example.org/", "http://user@example.org/", "http://:pw@example.org/"):
        with pytest.raises(FetchRefused, match="carries a user name or password"):
            tidy_url(typed)


async def test_the_same_server_under_five_spellings_is_one_entry_and_credentials_are_not_kept(
        client, store, wwm_servers):
    c, _ = client
    port = wwm_servers["world"].port
    for host in ("127.0.0.1", "localhost", "0.0.0.0", "0x7f000001", "[::ffff:127.0.0.1]"):
        status, page, headers = await c.post("/servers", {"csrf": await c.token("/servers"),
                                                          "url": f"http://{host}:{port}"})
        assert status == 303, said(page)
    assert [s.url for s in store.servers()] == [f"http://127.0.0.1:{port}/"]
    status, page, _ = await c.post("/servers", {"csrf": await c.token("/servers"),
                                                "url": f"http://admin:s3cr3t-word@127.0.0.1:{wwm_servers['seeker'].port}/"})
    assert status == 400 and "carries a user name or password" in said(page)
    assert "s3cr3t-word" not in page and rows(store, Server) == 1


# -- 5. malformed ids, tokens and forms: a 4xx, never a 500 ----------------------------------------

def id_routes(app: Any) -> list[tuple[str, str]]:
    """(method, path) of every route of ``app`` with a number in its path, numbers past 2^63."""
    found = []
    for route in app.routes:
        if isinstance(route, Route) and ":int}" in route.path:
            path = re.sub(r"\{[^}:]+:int\}", str(BIG), route.path)
            path = re.sub(r"\{[^}]+\}", "x", path)
            found += [(method, path) for method in sorted(route.methods or {"GET"}) if method != "HEAD"]
    return found


async def test_every_id_past_2_63_in_every_route_is_a_404_saying_so(store):
    app = make_app(store, check_every=0)
    routes = id_routes(app)
    paths = {path for _, path in routes}
    for expected in ("/combination/{0}", "/servers/{0}", "/world/{0}", "/run/{0}", "/challenge/{0}",
                     "/search/{0}", "/combination/{0}/runs"):
        assert expected.format(BIG) in paths
    with served(app) as url:
        c = Client(url)
        try:
            for method, path in routes:
                for number in (str(BIG), "9" * 40):
                    target = path.replace(str(BIG), number)
                    if method == "GET":
                        async with c.session.get(c.base + target) as reply:
                            status, page = reply.status, await reply.text()
                    else:
                        status, page, _ = await c.post(target, {"csrf": await c.token("/me")})
                    assert status == 404, (method, target, status)
                    assert "numbers in the portal's addresses are at most 9223372036854775807" in said(page)
            async with c.session.get(c.base + f"/combination/{BIG - 1}") as reply:   # the largest: not there
                assert reply.status == 404
        finally:
            await c.close()


async def test_numbers_past_any_id_in_a_query_or_a_form_are_a_400(client, store):
    c, _ = client
    for path in (f"/compose?from={BIG}", f"/servers?world={'9' * 40}", f"/combinations?world={BIG}"):
        async with c.session.get(c.base + path) as reply:
            status, page = reply.status, await reply.text()
        assert status == 400 and "past any id here: numbers here are at most 9223372036854775807" in said(page), path
    assert (await c.post("/signup", {"csrf": await c.token(), "username": "alice",
                                     "password": "long enough pass"}))[0] == 303
    status, page, _ = await c.post("/challenges", {"csrf": await c.token("/challenges"), "kind": "society",
                                                   "title": "t", "world": str(BIG), "steps": "10", "seeds": "1"})
    assert status == 400
    assert said(page) == "A number in this request is larger than any id here (at most 9223372036854775807)."


async def test_bad_tokens_and_bodies_are_refused_clearly(client):
    c, _ = client
    await c.token("/me")
    for token in ("é" * 64, "a" * 10_000, "\x00" * 64, ""):
        status, page, _ = await c.post("/me/recovery", {"csrf": token})
        assert status == 403 and "security token is missing or does not match" in said(page)
    token = await c.token("/me")
    status, page, _ = await c.post("/me/recovery", f"csrf={token}&x=%ff%fe".encode())
    assert status == 400 and said(page) == ("This form was refused: its fields are not UTF-8 text. "
                                            "Send it again from the portal's page.")
    status, page, _ = await c.post("/me/recovery", b"csrf=\xff\xfe")
    assert status == 400 and "not UTF-8" in said(page)


# -- 6. (identity) a GET makes no user --------------------------------------------------------------

async def test_cookie_less_gets_make_no_user(client, store):
    c, url = client
    from wwm.portal.models import User

    for path in ("/me", "/", "/servers", "/signup", "/me"):
        async with aiohttp.ClientSession() as fresh, fresh.get(url.rstrip("/") + path) as reply:
            assert reply.status == 200
    assert rows(store, User) == 0


# -- 7. the public how-to, as written: behind a TLS proxy on this host ------------------------------

async def test_behind_the_proxy_of_the_how_to_the_portal_believes_only_that_proxy(tmp_path):
    """``wwm portal --public --proxy 127.0.0.1 --origin https://portal.example.org`` (the
    command of docs/howto/portal-public.md), sent what nginx sends (Host, X-Forwarded-Proto,
    X-Forwarded-For): its links are https://portal.example.org/..., its cookie ``__Host-``,
    a form posted from its origin accepted, from the loopback origin it is reached at refused."""
    child, url = start_portal(f"sqlite:///{tmp_path / 'portal.db'}", "--public", "--proxy", "127.0.0.1",
                              "--origin", "https://portal.example.org")
    proxied = {"Host": "portal.example.org", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/me", headers=proxied) as reply:
                cookie = reply.headers["set-cookie"].split(";")[0]
                token = csrf_of(await reply.text())
            assert cookie.startswith("__Host-wwm_portal=")
            sent = {**proxied, "Cookie": cookie, "Origin": "https://portal.example.org"}
            async with session.post(url + "/me/recovery", data={"csrf": token}, headers=sent) as reply:
                page = await reply.text()
                assert reply.status == 200, said(page)
            assert re.search(r'value="https://portal\.example\.org/recover/[\w-]+"', page)
            async with session.post(url + "/me/recovery", data={"csrf": token},
                                    headers={**sent, "Origin": url}) as reply:
                assert reply.status == 403
    finally:
        child.terminate()
        child.wait(20)
    assert "--origin: expected the portal's origin" in start_portal_error(tmp_path, "--origin", "portal.example.org")
    assert "--rate-limit: expected ACTION=N/SECONDS with ACTION one of signup, signin" in start_portal_error(
        tmp_path, "--rate-limit", "runs=5/60")
    assert "N a whole number >= 1 and SECONDS more than 0, not 'run=0/60'" in start_portal_error(
        tmp_path, "--rate-limit", "run=0/60")


def start_portal_error(tmp_path: Path, *args: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "wwm.portal", "--port", "0", "--db",
                           f"sqlite:///{tmp_path / 'other.db'}", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    return done.stderr
