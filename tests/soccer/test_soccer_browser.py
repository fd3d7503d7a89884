"""The soccer view in Debian's chromium (Playwright): the live page draws the field, players
and ball and changes as two node players play; the finished match plays back from its
recording. Saves a screenshot (WWM_UPDATE_SCREENSHOTS=1 also writes docs/soccer-view.png)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wwm.server.process import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_the_live_view_draws_the_match_and_the_recording_plays_back(tmp_path):
    from playwright.sync_api import sync_playwright

    command = [sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--udp-port", "0",
               "--arg", "players=1", "--arg", "half=100", "--arg", "cycle_ms=40"]
    with ServerProcess("soccer", command=command, port=0) as server:
        port = server.card()["bindings"]["udp"].rsplit(":", 1)[1]
        nodes = [subprocess.Popen(["node", str(ROOT / "examples/soccer/javascript/player.js"), "127.0.0.1", port,
                                   team, "chaser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for team in ("Yellow", "Red")]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1000, "height": 800})
                missing: list[str] = []
                page.on("response", lambda r: r.status >= 400 and missing.append(f"{r.status} {r.url}"))
                page.goto(server.url + "soccer")
                assert page.title() == "Soccer · wwm"
                page.wait_for_function("Number(document.getElementById('field').dataset.time) > 5", timeout=20000)
                first, t0 = page.evaluate("[document.getElementById('field').toDataURL(), "
                                          "Number(document.getElementById('field').dataset.time)]")
                frames = int(page.get_attribute("#field", "data-frames"))
                page.wait_for_function(f"Number(document.getElementById('field').dataset.time) > {t0 + 5}",
                                       timeout=20000)
                assert page.evaluate("document.getElementById('field').toDataURL()") != first  # it moves
                assert int(page.get_attribute("#field", "data-frames")) > frames  # frames keep coming
                assert page.get_attribute("#field", "data-players") == "2"
                assert "Yellow" in page.inner_text("#score") and "Red" in page.inner_text("#score")
                page.screenshot(path=str(tmp_path / "soccer-view.png"))
                if os.environ.get("WWM_UPDATE_SCREENSHOTS"):
                    shutil.copy(tmp_path / "soccer-view.png", ROOT / "docs" / "soccer-view.png")
                page.wait_for_function("document.getElementById('status').textContent === 'full time'",
                                       timeout=30000)
                final = page.get_attribute("#field", "data-score")
                page.goto(server.url + "soccer?replay=1")
                page.wait_for_function("document.getElementById('field').dataset.replay === '1'")
                page.wait_for_function("Number(document.getElementById('field').dataset.time) > 20", timeout=10000)
                assert "replay" in page.inner_text("#which")
                page.click("#play")  # pause, then seek to the end
                last = int(page.get_attribute("#seek", "max"))
                page.eval_on_selector("#seek", f"(e) => {{ e.value = {last}; e.dispatchEvent(new Event('input')); }}")
                assert page.get_attribute("#field", "data-time") == "200"
                assert page.get_attribute("#field", "data-score") == final
                assert page.locator("#matches option").count() == 2  # live and match 1
                browser.close()
                assert not missing, missing
        finally:
            for node in nodes:
                node.kill()
                node.wait(5)
