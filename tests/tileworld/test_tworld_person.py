"""A person in T-World, in Debian's chromium (Playwright), over a real ``wwm tworld serve``
process and its proxy: on the page a person takes a browser robot and drives it with the keys
beside an agent program in another language, and in the editor a person writes a JavaScript
agent that runs as a Web Worker beside the C example agent; what they did is read back from the
server. Saves screenshots (WWM_UPDATE_SCREENSHOTS=1 also writes docs/tworld_keyboard.png and
docs/tworld_editor.png)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from wwm.server.process import ServerProcess
from wwm.tileworld.agents import make_agent

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
KEY = {"north": "ArrowUp", "south": "ArrowDown", "west": "ArrowLeft", "east": "ArrowRight", "none": " ",
       "restore": "r"}


def serve(tmp_path: Path) -> ServerProcess:
    command = [sys.executable, "-m", "wwm.cli.main", "tworld", "serve", "--port", "0", "--proxy-port", "0",
               "--recordings", str(tmp_path / "recordings")]
    return ServerProcess("tworld", port=0, command=command)


def get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def proxy_port(server: ServerProcess) -> int:
    return int(get(server.url + "api/defaults")["proxy"].rstrip("/").rsplit(":", 1)[1])


def save(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name))
    if os.environ.get("WWM_UPDATE_SCREENSHOTS"):
        shutil.copy(tmp_path / name, ROOT / "docs" / name)
    assert (tmp_path / name).stat().st_size > 10_000


def test_a_person_drives_a_robot_with_the_keys_beside_a_python_agent(tmp_path):
    from playwright.sync_api import sync_playwright

    with serve(tmp_path) as server:
        agent = subprocess.Popen([sys.executable, str(ROOT / "examples/tileworld/python/agent.py"), "127.0.0.1",
                                  str(proxy_port(server)), "py-k"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.goto(server.url)
                page.fill("#agents", "browser:me\nproxy:py-k")
                page.fill("#time", "120")
                page.fill("#speed", "2")
                page.check("#team")
                page.click("#start")
                page.click("button.take[data-seat='me']")
                page.wait_for_function("document.getElementById('driving').dataset.robot === '0'", timeout=15000)
                assert "you drive robot 0 (browser:me)" in page.inner_text("#driving")
                start = get(server.url + "api/view")["view"]["environment"]["agents"][0]["location"]
                # the person: looks at what robot 0 sees (read from the server) and presses the key a
                # reactive tile-pusher would, until the robot has filled a hole
                pusher, presses = make_agent("reactive", seed=5), 0
                while presses < 150:
                    snapshot = get(server.url + "api/view?agent=0")
                    if snapshot["view"]["agents"][0]["total_score"] > 0:
                        break
                    sent = int(page.get_attribute("#driving", "data-sent"))
                    page.keyboard.press(KEY[pusher.act(snapshot["seen"]["data"])])
                    presses += 1
                    page.wait_for_function(f"Number(document.getElementById('driving').dataset.sent) > {sent}"
                                           " && document.getElementById('driving').dataset.ready === 'true'",
                                           timeout=15000)
                page.fill("#say", "hello from the keys")
                page.click("#say-send")
                page.wait_for_function("document.getElementById('messages').textContent.includes('hello from')")
                page.wait_for_timeout(300)
                save(page, tmp_path, "tworld_keyboard.png")
                view = get(server.url + "api/view")
                me, other = view["view"]["agents"]
                assert view["status"] == "running" and view["robots"] == ["browser:me", "proxy:py-k"]
                assert view["view"]["environment"]["agents"][0]["location"] != start   # the keys moved it
                assert me["total_score"] > 0 and me["filled_holes"] + me["filled_cells"] > 0   # and it scored
                assert me["good_moves"] >= 3 and other["good_moves"] >= 3   # beside the Python agent, live
                assert {"from": 0, "to": 1, "text": "hello from the keys"}.items() <= \
                    view["view"]["messages"][-1].items()
                page.click("#stop")
                page.wait_for_function("document.getElementById('driving').textContent.includes('game is over')")
                browser.close()
            out, err = agent.communicate(timeout=20)
            assert agent.returncode == 0, err
        finally:
            if agent.poll() is None:
                agent.kill()
