"""Sign-in that resists password guessing, over the real app on loopback: wrong passwords for a
name, then the right one refused (429, Retry-After, a clear page) until the refusal ends, and
longer after each further failure; a name with no account answered exactly the same; the count
shared by two portal apps on one database; a success clears the name's count; failures from one
address refused whatever the name; sign-ups that find a name taken count against the address."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import aiohttp
import pytest
from portal_sites import csrf_of, served, start_portal

from wwm.portal.app import make_app
from wwm.portal.ratelimits import DEFAULTS, Limit, RateLimits
from wwm.portal.signins import SigninLimits
from wwm.portal.store import PortalError, PortalStore

pytestmark = pytest.mark.slow
WRONG = "no account has that username and password"


class Browser:
    """One browser (its own cookies); ``signin`` and ``signup`` post the form as a user would."""

    def __init__(self, base: str, forwarded_for: str | None = None) -> None:
        self.base = base.rstrip("/")
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None  # as a proxy would add
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), headers=headers)

    async def form(self, path: str, fields: dict[str, str]) -> tuple[int, str, str | None]:
        """(status, the page's message or where it redirected, Retry-After)."""
        async with self.session.get(self.base + path) as page:
            token = csrf_of(await page.text())
        async with self.session.post(self.base + path, data={"csrf": token, **fields},
                                     allow_redirects=False) as reply:
            text = await reply.text()
            found = re.search(r'<p class="message" role="alert">(.*?)</p>', text, re.S)
            said = html.unescape(found.group(1)) if found else reply.headers.get("location", "")
            return reply.status, said, reply.headers.get("retry-after")

    async def signin(self, username: str, password: str) -> tuple[int, str, str | None]:
        return await self.form("/signin", {"username": username, "password": password})

    async def signup(self, username: str, password: str) -> tuple[int, str, str | None]:
        return await self.form("/signup", {"username": username, "password": password})

    async def close(self) -> None:
        await self.session.close()


class Clock:
    """The sign-in counts' clock, stepped by the test (no wall-clock window)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


# these tests send many sign-ins from one address on purpose: the per-address rate limit
# (ratelimits.py, tested in test_security.py) is set out of their way
UNLIMITED = RateLimits({action: Limit(10_000, 1.0) for action in DEFAULTS})


@contextmanager
def portals(db: str, limits: SigninLimits, count: int = 1, clock: Clock | None = None) -> Iterator[list[str]]:
    """``count`` portal apps on the database ``db`` (as several portal processes would be)."""
    clock = clock or Clock()                 # frozen unless the test steps it
    with ExitStack() as stack:
        urls = []
        for _ in range(count):
            store = PortalStore(db)
            stack.callback(store.close)
            urls.append(stack.enter_context(served(make_app(store, check_every=0, signin_limits=limits,
                                                            rate_limits=UNLIMITED, clock=clock))))
        yield urls


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'portal.db'}"


async def test_wrong_passwords_then_the_right_one_is_refused_until_the_refusal_ends(tmp_path):
    limits = SigninLimits(name_free=3, address_free=1000, first_refusal=0.5)
    clock = Clock()
    with portals(sqlite(tmp_path), limits, clock=clock) as (url,):
        owner, attacker = Browser(url), Browser(url)
        try:
            assert (await owner.signup("alice", "correct horse"))[:2] == (303, "/me?done=signed-up")
            for _ in range(3):
                assert await attacker.signin("alice", "guess guess") == (400, WRONG, None)
            # the right password now: refused, unchecked, with how long to wait
            assert await attacker.signin("alice", "correct horse") == (
                429, "too many failed sign-ins for alice; try again in 1 s", "1")
            assert (await owner.signin("alice", "correct horse"))[0] == 429     # whoever asks
            clock.now += 0.6
            assert (await attacker.signin("alice", "guess guess"))[:2] == (400, WRONG)   # the 4th failure
            status, said, retry = await attacker.signin("alice", "correct horse")
            assert (status, retry) == (429, "1") and said.endswith("try again in 1 s")
            clock.now += 0.9
            assert (await owner.signin("alice", "correct horse"))[0] == 429     # 1 s this time (0.5 s doubled)
            clock.now += 0.2
            assert (await owner.signin("alice", "correct horse"))[:2] == (303, "/me?done=signed-in")
            # the success cleared the count: three failures again before a refusal
            for _ in range(3):
                assert (await attacker.signin("alice", "guess again"))[:2] == (400, WRONG)
            assert (await attacker.signin("alice", "correct horse"))[0] == 429
        finally:
            await owner.close()
            await attacker.close()


async def test_a_name_with_no_account_is_answered_exactly_as_one_with_an_account(tmp_path):
    limits = SigninLimits(name_free=3, address_free=1000, first_refusal=30)
    with portals(sqlite(tmp_path), limits) as (url,):
        owner, attacker = Browser(url), Browser(url)
        try:
            assert (await owner.signup("alice", "correct horse"))[0] == 303
            answers = {}
            for name in ("alice", "nobody"):
                answers[name] = [await attacker.signin(name, "guess guess") for _ in range(5)]
            shown = [(status, said.replace("nobody", "alice"), retry) for status, said, retry in answers["nobody"]]
            assert shown == answers["alice"]
            assert [a[0] for a in shown] == [400, 400, 400, 429, 429]
            assert shown[-1][2] == "30" and "too many failed sign-ins for alice; try again in 30 s" in shown[-1][1]
        finally:
            await owner.close()
            await attacker.close()


async def test_two_portal_apps_on_one_database_share_the_counts(db_url):
    limits = SigninLimits(name_free=3, address_free=1000, first_refusal=30)
    with portals(db_url, limits, count=2) as (one, two):
        owner, a, b = Browser(one), Browser(one), Browser(two)
        try:
            assert (await owner.signup("alice", "correct horse"))[0] == 303
            assert (await a.signin("alice", "guess one"))[0] == 400
            assert (await b.signin("alice", "guess two"))[0] == 400
            assert (await a.signin("alice", "guess three"))[0] == 400      # the third, across both
            for browser in (a, b):
                status, said, retry = await browser.signin("alice", "correct horse")
                assert (status, retry) == (429, "30"), said
            # a success on either clears it for both (another name, refused on neither)
            for browser in (a, b):
                assert (await browser.signin("bob", "guess guess"))[0] == 400
            assert (await owner.signup("bob", "battery staple"))[0] == 400     # the owner already has an account
            bob = Browser(two)
            try:
                assert (await bob.signup("bob", "battery staple"))[:2] == (303, "/me?done=signed-up")
                assert (await b.signin("bob", "battery staple"))[:2] == (303, "/me?done=signed-in")  # count 2, cleared
                assert (await a.signin("bob", "guess guess"))[0] == 400
                assert (await b.signin("bob", "guess guess"))[0] == 400
                assert (await a.signin("bob", "battery staple"))[:2] == (303, "/me?done=signed-in")
            finally:
                await bob.close()
        finally:
            for browser in (owner, a, b):
                await browser.close()


async def test_one_address_is_refused_whatever_the_names_and_sign_up_is_no_way_around(tmp_path):
    limits = SigninLimits(name_free=100, address_free=4, first_refusal=30)
    with portals(sqlite(tmp_path), limits) as (url,):
        owner, prober = Browser(url), Browser(url)
        try:
            assert (await owner.signup("alice", "correct horse"))[0] == 303
            # probing which names exist through sign-up: each "taken" counts against the address
            for _ in range(2):
                status, said, _ = await prober.signup("alice", "long enough")
                assert status == 400 and "taken" in said
            for name in ("bob", "carol"):
                assert (await prober.signin(name, "guess guess"))[:2] == (400, WRONG)   # the fourth failure
            for status, said, retry in (await prober.signup("dave", "long enough"),
                                        await prober.signin("alice", "correct horse")):
                assert (status, retry) == (429, "30")
                assert said == "too many failed sign-ins from your address; try again in 30 s"
            assert (await prober.form("/signin", {}))[0] == 429     # an empty form is refused alike
        finally:
            await owner.close()
            await prober.close()


def test_the_counts_rules_in_the_store(tmp_path):
    """Refusals double up to the longest and are never shortened; a count starts again a
    ``forget`` after its last failure; an IPv6 client is counted by its /64; bad limits are named."""
    from wwm.portal.signins import SigninGuard, _key

    limits = SigninLimits(name_free=2, first_refusal=10, longest=60, forget=1000)
    assert [limits.refusal(n, 2) for n in range(1, 7)] == [0, 10, 20, 40, 60, 60]

    def refusal(failures: int) -> float:
        return limits.refusal(failures, 2)

    store = PortalStore(sqlite(tmp_path))
    try:
        assert [store.add_signin_failure("k", t, 1000, refusal) for t in (0, 1, 2)] == [0, 10, 20]
        assert store.refusals(["k", "other"], 5) == {"k": 22.0}
        assert store.add_signin_failure("k", 3, 1000, lambda n: 1.0) == 1.0
        assert store.refusals(["k"], 5) == {"k": 22.0}               # not shortened
        assert store.add_signin_failure("k", 2000, 1000, refusal) == 0   # forgotten: the first again
        store.clear_signin_failures("k")
        assert store.refusals(["k"], 2000) == {}
        guard = SigninGuard(store, SigninLimits(address_free=1, first_refusal=60))
        guard.address_failed("2001:db8:1:2::7")
        for neighbour in ("2001:db8:1:2::99", "2001:db8:1:2:ffff::1"):
            with pytest.raises(PortalError, match="from your address"):
                guard.check_address(neighbour)
        guard.check_address("2001:db8:1:3::7")                        # another /64
        assert _key("address", "::ffff:192.0.2.1") == _key("address", "192.0.2.1")
    finally:
        store.close()
    with pytest.raises(ValueError, match="name_free must be at least 1"):
        SigninLimits(name_free=0)
    with pytest.raises(ValueError, match="longest must be more than 0 seconds"):
        SigninLimits(longest=-1)


async def test_addresses_not_counted_refuse_no_one_for_other_people_s_failures(tmp_path):
    """``address_free=0`` (``wwm portal --address-failures 0``), for a portal behind a proxy it
    was not told of: everyone shares the proxy's address, so only names are counted."""
    limits = SigninLimits(name_free=2, address_free=0, first_refusal=30)
    with portals(sqlite(tmp_path), limits) as (url,):
        owner, others = Browser(url), Browser(url)
        try:
            assert (await owner.signup("alice", "correct horse"))[0] == 303
            for n in range(25):                         # 25 people mistyping, one try each
                assert (await others.signin(f"user{n}", "typo"))[:2] == (400, WRONG)
            assert (await others.signup("alice", "x" * 12))[0] == 400   # taken: not counted either
            assert (await owner.signin("alice", "correct horse"))[0] == 303
            for _ in range(2):                          # the name is still counted
                await others.signin("alice", "guess")
            assert (await owner.signin("alice", "correct horse"))[0] == 429
        finally:
            await owner.close()
            await others.close()
    with pytest.raises(ValueError, match="address_free must be at least 0"):
        SigninLimits(address_free=-1)


@pytest.mark.parametrize("proxy", [True, False], ids=["behind --proxy", "no proxy given"])
async def test_behind_the_proxy_it_was_told_of_the_portal_counts_the_forwarded_clients(tmp_path, proxy):
    """``wwm portal --proxy 127.0.0.1``: a client is counted by the address its proxy forwards,
    so one client's failures do not refuse another behind the same proxy; without ``--proxy``
    the header is ignored (anyone could send one) and the connection's address is counted."""
    options = ["--address-failures", "2", "--name-failures", "100"] + (["--proxy", "127.0.0.1"] if proxy else [])
    child, url = start_portal(sqlite(tmp_path), *options)
    one, other = Browser(url, forwarded_for="203.0.113.7"), Browser(url, forwarded_for="198.51.100.9")
    try:
        for name in ("a", "b"):
            assert (await one.signin(name, "wrong"))[:2] == (400, WRONG)
        assert (await one.signin("c", "wrong"))[0] == 429
        said = await other.signin("d", "wrong")
        assert said[0] == (400 if proxy else 429), said
    finally:
        await one.close()
        await other.close()
        child.terminate()
        child.wait(20)


@pytest.mark.parametrize("args, message", [
    (["--proxy", "nginx-box"], "--proxy: expected IP addresses or networks separated by commas, not 'nginx-box'"),
    (["--proxy", "10.0.0.0/8,fe80::/10,nope"], "--proxy: expected IP addresses or networks separated by commas, "
                                                "not 'nope'"),
    (["--address-failures", "-1"], "--address-failures: expected a whole number >= 0, not '-1'"),
    (["--name-failures", "0"], "--name-failures: expected a whole number >= 1, not '0'"),
])
def test_bad_sign_in_options_are_one_clear_line(capsys, args, message):
    from wwm.cli.main import main

    with pytest.raises(SystemExit) as exit:
        main(["portal", *args])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
