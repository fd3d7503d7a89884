"""The browser view in Debian's chromium (Playwright): the page loads, a configured world
with a built-in robot and a Python agent attached by magic string is drawn and changes as it
runs, and the recorded run plays back; the page asks for nothing the server lacks, and the
server has the icon a browser asks for. Saves a screenshot (WWM_UPDATE_SCREENSHOTS=1 also
writes docs/tworld.png)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from wwm.server.process import ServerProcess, free_port

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_the_page_draws_a_live_world_and_plays_it_back(tmp_path):
    from playwright.sync_api import sync_playwright

    port, proxy_port = free_port(), free_port()
    command = [sys.executable, "-m", "wwm.cli.main", "tworld", "serve", "--port", str(port),
               "--proxy-port", str(proxy_port), "--recordings", str(tmp_path / "recordings")]
    with ServerProcess("tworld", port=port, command=command) as server:
        agent = subprocess.Popen([sys.executable, str(ROOT / "examples/tileworld/python/agent.py"), "127.0.0.1",
                                  str(proxy_port), "py-1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 760})
                missing: list[str] = []   # what the page asks for and the server lacks
                page.on("response", lambda r: r.status >= 400 and "/api/" not in r.url
                        and missing.append(f"{r.status} {r.url}"))
                page.goto(server.url)
                assert page.title() == "T-World · wwm"
                with urllib.request.urlopen(server.url + "favicon.ico", timeout=5) as icon:
                    assert icon.headers["content-type"].startswith("image/svg+xml")
                page.fill("#agents", "builtin:reactive\nproxy:py-1")
                page.fill("#time", "16")
                page.fill("#speed", "4")
                page.check("#team")
                page.check("#battery")
                page.fill("#extra", '{"rows": 0}')
                page.click("#start")
                page.wait_for_function("document.getElementById('error').textContent.includes('rows and columns')")
                page.fill("#extra", '{"dynamism": [4, 8], "hostility": [3, 9], '
                                    '"teams": [{"name": "<i>us</i> & co", "members": [0, 1]}]}')
                page.click("#start")
                page.wait_for_function("Number(document.getElementById('grid').dataset.time) > 2", timeout=15000)
                first = page.evaluate("document.getElementById('grid').toDataURL()")
                frames = int(page.get_attribute("#grid", "data-frames"))
                page.wait_for_function("Number(document.getElementById('grid').dataset.time) > 6", timeout=15000)
                assert page.evaluate("document.getElementById('grid').toDataURL()") != first  # it changes
                assert int(page.get_attribute("#grid", "data-frames")) > frames
                view = page.evaluate("window.lastView")
                assert len(view["environment"]["agents"]) == 2 and view["totals"]["total_holes"] > 0
                assert view["battery"] and len(view["environment"]["battery_chargers"]) == 1
                assert "running" in page.inner_text("#status") and "proxy:py-1" in page.inner_text("#status")
                assert page.locator("#teams tr").count() == 2  # header + the one team
                assert "<i>us</i> & co" in page.inner_text("#teams")  # a name is text, not markup
                assert page.locator("#teams i").count() == 0
                page.wait_for_timeout(300)
                page.screenshot(path=str(tmp_path / "tworld.png"))
                if os.environ.get("WWM_UPDATE_SCREENSHOTS"):
                    shutil.copy(tmp_path / "tworld.png", ROOT / "docs" / "tworld.png")
                page.click("#pause")
                page.wait_for_function("document.getElementById('status').textContent.startsWith('paused')")
                paused_at = page.get_attribute("#grid", "data-time")
                page.wait_for_timeout(600)  # 2.4 world seconds if the clock ran
                assert page.get_attribute("#grid", "data-time") == paused_at
                page.click("#pause")
                page.wait_for_function("document.getElementById('status').textContent.startsWith('over')",
                                       timeout=20000)
                page.wait_for_selector("button.play", timeout=10000)
                final = page.evaluate("window.lastView")
                assert final["time"] == 16 and sum(a["good_moves"] for a in final["agents"]) > 10
                page.click("button.play")
                page.wait_for_function("document.getElementById('status').textContent.startsWith('playing back')")
                played = int(page.get_attribute("#grid", "data-frames"))
                page.wait_for_function(f"Number(document.getElementById('grid').dataset.frames) > {played + 20}")
                assert float(page.get_attribute("#grid", "data-time")) < 16  # the start of the run again
                assert missing == []
                browser.close()
            out, err = agent.communicate(timeout=20)
            assert agent.returncode == 0, err
            assert "END score=" in out
        finally:
            if agent.poll() is None:
                agent.kill()
    assert (tmp_path / "tworld.png").stat().st_size > 10_000


def test_the_page_draws_what_one_robot_sees_when_asked(tmp_path):
    from playwright.sync_api import sync_playwright

    command = [sys.executable, "-m", "wwm.cli.main", "tworld", "serve", "--port", "0", "--proxy-port", "0",
               "--recordings", str(tmp_path / "recordings")]
    with ServerProcess("tworld", port=0, command=command) as server:  # its port read from its ready line
        game = {"config": {"rows": 9, "columns": 10, "seed": 3, "agents": 2, "partial": True, "radius": 2,
                           "end": {"neutral": {"time": 40}}},
                "agents": [{"kind": "builtin", "name": "reactive"}, {"kind": "builtin", "name": "deliberative"}],
                "mode": "realtime", "speed": 2}
        start = urllib.request.Request(server.url + "api/start", data=json.dumps(game).encode(),
                                       headers={"content-type": "application/json"})
        with urllib.request.urlopen(start, timeout=10) as reply:
            assert reply.status == 200
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.goto(server.url + "?agent=1")
            page.wait_for_function("document.getElementById('grid').dataset.view === 'robot 1'", timeout=10000)
            assert page.get_attribute("#grid", "data-rows") == page.get_attribute("#grid", "data-columns") == "5"
            seen = page.evaluate("window.lastSeen")
            assert seen["agent"] == 1 and seen["data"]["agent"]["id"] == 1
            assert seen["data"]["agent"]["location"] == {"row": 2, "column": 2}  # the centre of its window
            assert "what robot 1 sees: 5×5 cells" in page.inner_text("#viewing")
            assert page.input_value("#viewof") == "1"
            frames = int(page.get_attribute("#grid", "data-frames"))
            page.wait_for_function(f"Number(document.getElementById('grid').dataset.frames) > {frames + 2}")
            assert page.get_attribute("#grid", "data-view") == "robot 1"  # it stays on the robot as the game runs
            robot_view = page.evaluate("document.getElementById('grid').toDataURL()")
            page.select_option("#viewof", "")  # the menu: back to the whole world
            page.wait_for_function("document.getElementById('grid').dataset.view === 'world'")
            assert page.get_attribute("#grid", "data-rows") == "9" and "agent=" not in page.url
            assert page.evaluate("document.getElementById('grid').toDataURL()") != robot_view
            page.select_option("#viewof", "0")
            page.wait_for_function("document.getElementById('grid').dataset.view === 'robot 0'")
            assert page.url.endswith("?agent=0") and page.evaluate("window.lastSeen")["data"]["agent"]["id"] == 0
            page.screenshot(path=str(tmp_path / "robot-view.png"))
            if os.environ.get("WWM_UPDATE_SCREENSHOTS"):
                shutil.copy(tmp_path / "robot-view.png", ROOT / "docs" / "tworld_robot_view.png")
            page.goto(server.url + "?agent=7")  # no such robot: said, and the whole world drawn
            page.wait_for_function("document.getElementById('error').textContent.includes('no robot 7')")
            page.wait_for_function("document.getElementById('grid').dataset.view === 'world'")
            browser.close()
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(server.url + "api/view?agent=x", timeout=5)
        assert bad.value.code == 400 and "agent must be a robot id" in bad.value.read().decode()
