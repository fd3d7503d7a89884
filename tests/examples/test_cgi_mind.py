"""A Mind written as a CGI script (examples/cgi/mind.cgi, core Perl) under a stock web server
(Debian's lighttpd, started here on a free port with a generated configuration), section 11.1:
reached by the wwm client, and a member of an Action Selection society, in XML, the only
encoding it reads: the client speaks what its card says, or what its first answer says."""

from __future__ import annotations

import importlib.util
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import connect, connect_mind, connect_world
from wwm.client.runner import RunSettings, run
from wwm.kit.grid import GridWorld
from wwm.server.process import ServerProcess, json_card

pytestmark = pytest.mark.slow

CGI = Path(__file__).resolve().parents[2] / "examples" / "cgi"
_spec = importlib.util.spec_from_file_location("cgi_lighttpd", CGI / "lighttpd.py")
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
lighttpd = _module.lighttpd


@pytest.fixture(scope="module")
def cgi_work(tmp_path_factory):
    """Where lighttpd keeps its configuration and logs (access.log: one line a request)."""
    return tmp_path_factory.mktemp("lighttpd")


@pytest.fixture(scope="module")
def cgi_mind(cgi_work):
    with lighttpd(CGI, cgi_work) as base:
        yield f"{base}/mind.cgi"


def refused_posts(work: Path) -> int:
    """The POSTs lighttpd answered 415 (unsupported encoding: JSON sent to the CGI mind). Read
    it once that lighttpd has stopped: it buffers its access log, so a count read while it runs
    can miss the last lines."""
    log = work / "access.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(1 for line in lines if '"POST ' in line and '" 415 ' in line)


def test_the_cgi_mind_refuses_json_in_xml_with_415(cgi_mind):
    request = urllib.request.Request(cgi_mind, data=b'{"query": "New run", "data": {}}',
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 415
    body = info.value.read().decode()
    assert info.value.headers["Content-Type"] == "application/xml"
    assert '<refusal code="unsupported-encoding">' in body


async def test_the_client_speaks_xml_from_the_card_or_the_first_answer(cgi_mind):
    described = connect(cgi_mind)  # the card says XML only
    assert described.role == "mind" and described.encoding == "xml"
    await described.aclose()
    blind = connect_mind(cgi_mind)  # no card read: JSON first, refused, then XML
    assert blind.encoding == "json"
    try:
        result = await run(blind, GridWorld(size=6, seed=2), RunSettings(steps=30, timeout=10))
        assert blind.encoding == "xml"
        assert result.status == "completed" and len(result.steps) == 30
        assert all(s.action in {"north", "south", "east", "west", "stay"} for s in result.steps)
        # the food seeker eats: what the world scored, the mind was told (Inform, in XML)
        assert result.total_score > 0
        assert result.mind_score == pytest.approx(result.total_score)
    finally:
        await blind.aclose()


async def test_the_cgi_mind_is_a_member_of_an_as_society_in_xml(tmp_path):
    servers = [ServerProcess("wwm.selection.mind_as:ActionSelectionMind"),
               ServerProcess("wwm.kit.random_mind:RandomMind"),
               ServerProcess("wwm.kit.grid:GridWorld")]
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(lambda s: s.start(), servers))
    as_server, random_mind, grid = servers
    try:
        with lighttpd(CGI, tmp_path) as base:  # a lighttpd of this test's own, for its access log
            cgi_mind = f"{base}/mind.cgi"
            mind = connect_mind(as_server.url, minds=[cgi_mind, random_mind.url], method="rotation", timeout=5)
            world = connect_world(grid.url, size=6, seed=2)
            result = await run(mind, world, RunSettings(steps=20, timeout=10))
            await mind.aclose()
            await world.aclose()
            assert result.status == "completed" and len(result.steps) == 20
            # both ends of the trail of credit (7.2): the AS calls the CGI mind, which lists the AS
            as_calls = [link["url"] for link in as_server.card()["credit_trail"]["calls"]]
            assert cgi_mind in as_calls and random_mind.url in as_calls
            cgi_card = json_card(cgi_mind)
            assert cgi_card["encodings"] == ["application/xml"]
            assert as_server.url in [link["url"] for link in cgi_card["credit_trail"]["called_by"]]
        # the AS read the member's card (XML only) and spoke XML from the first query: not one
        # query sent in JSON and refused with 415 (it used to be New run, retried in XML)
        assert refused_posts(tmp_path) == 0
    finally:
        for server in servers:
            server.stop()


async def test_the_cgi_mind_is_a_member_of_a_mind_m_in_xml(tmp_path):
    """Mind_M (the region wrapper of 3.5) calls it in every state (region x>=0), else stays."""
    region = ServerProcess("wwm.kit.region:RegionMind").start()
    try:
        with lighttpd(CGI, tmp_path) as base:  # a lighttpd of this test's own, for its access log
            cgi_mind = f"{base}/mind.cgi"
            mind = connect_mind(region.url, minds=[cgi_mind, "action:stay"], region="x>=0")
            result = await run(mind, GridWorld(size=6, seed=2), RunSettings(steps=30, timeout=10))
            await mind.aclose()
            alone = connect_mind(cgi_mind, encoding="xml")
            direct = await run(alone, GridWorld(size=6, seed=2), RunSettings(steps=30, timeout=10))
            await alone.aclose()
            assert result.status == "completed" and len(result.steps) == 30
            assert [s.action for s in result.steps] == [s.action for s in direct.steps]  # its actions, not "stay"
            assert result.total_score > 0
            called_by = [link["url"] for link in json_card(cgi_mind)["credit_trail"]["called_by"]]
            assert region.url in called_by
        assert refused_posts(tmp_path) == 0   # its card said XML: no JSON query refused first
    finally:
        region.stop()


async def test_an_html_error_page_teaches_the_client_no_encoding(cgi_mind):
    """A web server's own 404 page (HTML, which starts with "<") is an unreadable answer, not
    a sign that the server speaks XML."""
    missing = connect_mind(cgi_mind.replace("mind.cgi", "missing.cgi"))
    with pytest.raises(Refusal) as info:
        await missing.new_run("http://me.example/")
    await missing.aclose()
    assert info.value.code == "server-error" and "unreadable" in info.value.text
    assert missing.encoding == "json"
