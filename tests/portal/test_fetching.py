"""Fetching the URLs visitors give, against real loopback servers: redirects followed by hand,
a slow server cut at the time-out, a huge answer cut at the size cap, a non-WWM answer named as
such; in public mode, loopback, private, link-local and reserved addresses refused after name
resolution and on every redirect, and the connection made only to the addresses checked."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from aiohttp import web
from portal_sites import Site

from wwm.portal.cards import NotAServer, read_card, tidy_url
from wwm.portal.fetching import FetchFailed, FetchRefused, Policy, _Pinned, address_kind, fetch

LOCAL = Policy(public=False, timeout=2.0, max_bytes=1_000_000)
PUBLIC = Policy(public=True, timeout=2.0)


async def test_local_mode_reads_a_card_and_follows_redirects_by_hand(odd_sites):
    card = await read_card(odd_sites.url("/redirect"), LOCAL)
    assert card.card["role"] == "mind" and card.latency_ms > 0
    fetched = await fetch(odd_sites.url("/redirect"), LOCAL)
    assert fetched.url == odd_sites.url("/hostile") and fetched.status == 200


async def test_a_real_wwm_server_is_read(wwm_servers):
    card = await read_card(wwm_servers["world"].url, LOCAL)
    assert card.card["role"] == "world" and card.card["name"] == "GridWorld"


@pytest.mark.parametrize(("path", "error", "words"), [
    ("/slow", FetchFailed, "did not answer within 2 s"),
    ("/huge", FetchFailed, "more than 1,000,000 bytes"),
    ("/huge-chunked", FetchFailed, "more than 1,000,000 bytes"),
    ("/loop", FetchFailed, "redirects more than 5 times"),
    ("/html", NotAServer, "is not a WWM server: its answer is not a server's JSON card"),
    ("/not-card", NotAServer, "is not a WWM server: its JSON does not describe a WWM server"),
    ("/missing", NotAServer, "is not a WWM server: it answered HTTP 404"),
])
async def test_bad_answers_are_one_clear_sentence(odd_sites, path, error, words):
    with pytest.raises(error) as caught:
        await read_card(odd_sites.url(path), LOCAL)
    assert words in str(caught.value) and "\n" not in str(caught.value)


async def test_nothing_behind_a_url():
    with socket.socket() as s:                   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchFailed, match="nothing answers at .*: the connection was refused"):
        await fetch(f"http://127.0.0.1:{port}/", LOCAL)
    with pytest.raises(FetchFailed, match="the name no-such-host.invalid does not resolve"):
        await fetch("http://no-such-host.invalid/", LOCAL)


@pytest.mark.parametrize(("url", "kind"), [
    ("http://127.0.0.1:9/", "127.0.0.1 is a loopback address"),
    ("http://10.1.2.3/", "10.1.2.3 is a private address"),
    ("http://192.168.0.1/", "is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://[::1]:9/", "::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]:9/", "is a loopback address"),
    ("http://[fe80::1]/", "is a link-local address"),
    ("http://0.0.0.0:9/", "is an unspecified address"),
    ("http://224.0.0.1/", "is a multicast address"),
    ("http://240.0.0.1/", "is a reserved address"),
    ("http://localhost:9/", "localhost (127.0.0.1) is a loopback address"),    # after resolution
])
async def test_public_mode_refuses_non_public_addresses(url, kind):
    with pytest.raises(FetchRefused) as caught:
        await fetch(url, PUBLIC)
    assert kind in str(caught.value) and "this portal is public" in str(caught.value)


@pytest.mark.parametrize("url", ["ftp://example.org/", "file:///etc/passwd", "javascript:alert(1)",
                                 "gopher://127.0.0.1/"])
async def test_only_http_and_https_in_either_mode(url):
    for policy in (LOCAL, PUBLIC):
        with pytest.raises(FetchRefused, match="is not an http:// or https:// URL"):
            await fetch(url, policy)


async def test_a_redirect_to_loopback_is_refused_in_public_mode():
    """A "public" server (127.0.0.2, trusted for the test) that redirects to 127.0.0.1."""
    async def mind(request: web.Request) -> web.Response:
        return web.json_response({"wwm": "1.0", "role": "mind"})

    async def world(request: web.Request) -> web.Response:
        return web.json_response({"wwm": "1.0", "role": "world"})

    with Site({"/card": mind}, host="127.0.0.1") as inner:
        async def away(request: web.Request) -> web.Response:
            raise web.HTTPFound(inner.url("/card"))

        with Site({"/away": away, "/card": world}, host="127.0.0.2") as outer:
            trusting = Policy(public=True, timeout=2.0, allow=(ipaddress.ip_network("127.0.0.2/32"),))
            assert (await read_card(outer.url("/card"), trusting)).card["role"] == "world"
            with pytest.raises(FetchRefused, match="127.0.0.1 is a loopback address"):
                await fetch(outer.url("/away"), trusting)
            assert (await read_card(outer.url("/away"), LOCAL)).card["role"] == "mind"


async def test_the_connection_goes_only_to_the_checked_addresses():
    pinned = _Pinned("example.org", [(socket.AF_INET, "93.184.216.34")])
    answers = await pinned.resolve("example.org", 80, socket.AF_UNSPEC)
    assert [a["host"] for a in answers] == ["93.184.216.34"]
    with pytest.raises(OSError, match="was not checked"):
        await pinned.resolve("attacker.example", 80)


def test_address_kinds():
    assert address_kind(ipaddress.ip_address("8.8.8.8")) is None
    assert address_kind(ipaddress.ip_address("2606:4700::1111")) is None
    assert address_kind(ipaddress.ip_address("100.64.0.1")) == "non-public"     # carrier-grade NAT
    assert Policy(public=False).refusal(ipaddress.ip_address("127.0.0.1")) is None


@pytest.mark.parametrize(("typed", "words"), [
    ("", "give the server's URL"),
    ("not a url", "is not a URL the portal can read"),
    ("127.0.0.1:8000", "is not a URL the portal can read"),
    ("http://", "is not a URL the portal can read"),
    ("http://host:99999/", "is not a well-formed URL"),
])
def test_malformed_urls(typed, words):
    with pytest.raises(FetchRefused, match=words):
        tidy_url(typed)
    assert tidy_url("  http://Example.org:80  ") == "http://example.org/"   # canonical: one server, one entry
