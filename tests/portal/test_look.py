"""The shared look's rules (look.py): a run status's badge kind, the flash that names a fixed
confirmation (never echoing the request), and the base page's notice, skip link and menu."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from wwm.portal import look
from wwm.portal.app import make_app
from wwm.portal.store import PortalStore


@pytest.mark.parametrize(("status", "kind"), [
    ("running", "running"), ("starting", "running"), ("completed", "finished"), ("ended by world", "finished"),
    ("ended by its owner", "finished"), ("scored", "finished"), ("complete", "finished"),
    ("failed: mind lost", "failed"), ("mind lost", "failed"), ("could not start", "failed"),
    ("interrupted at step 4", "failed"), ("degraded: member X lost at step 7", "degraded"),
    ("suspended at step 3", "waiting"), ("queued", "waiting"), ("", "other"), (None, "other"), ("odd", "other"),
])
def test_a_status_has_the_badge_of_its_kind(status, kind):
    assert look.status_kind(status) == kind
    assert look.badge(status).startswith(f'<span class="badge {kind}">')


def test_the_home_page_reads_the_demo_where_the_demo_writes_it():
    from wwm.portal import app, command

    assert app.DEMO_SETTING == command.DEMO_SETTING


def test_a_badge_escapes_its_text():
    assert str(look.badge("<b>x</b>")) == '<span class="badge other">&lt;b&gt;x&lt;/b&gt;</span>'


def test_done_adds_the_code_before_the_fragment_and_refuses_an_unknown_one():
    assert look.done("/servers/3", "registered") == "/servers/3?done=registered"
    assert look.done("/challenge/2#entry-5", "entered") == "/challenge/2?done=entered#entry-5"
    assert look.done("/x?a=1", "saved") == "/x?a=1&done=saved"
    with pytest.raises(KeyError):
        look.done("/", "<script>")


def test_the_page_shows_a_known_confirmation_and_never_the_querys_text(tmp_path: Path):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    try:
        with TestClient(make_app(store, check_every=0)) as client:
            page = client.get("/servers?done=registered").text
            assert f'<p class="notice success" role="status">{look.DONE["registered"]}</p>' in page
            for odd in ("<script>alert(1)</script>", "anything", ""):
                page = client.get("/", params={"done": odd}).text
                assert 'class="notice' not in page and "alert(1)" not in page
            page = client.get("/servers?role=world").text
            assert '<a class="skip" href="#main">Skip to content</a>' in page and '<main id="main"' in page
            assert page.count('<a href="/servers?role=world" aria-current="page">Worlds</a>') == 2   # bar and menu
            assert '<details class="site-menu">' in page and "<summary>Menu</summary>" in page
    finally:
        store.close()
