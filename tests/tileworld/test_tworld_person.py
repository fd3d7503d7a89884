"""A person in T-World, in Debian's chromium (Playwright), over a real ``wwm tworld serve``
process and its proxy: on the page a person takes a browser robot and drives it with the keys
beside an agent program in another language and a teammate from the editor; in the editor a
person writes a JavaScript agent that runs as a Web Worker beside the C example agent. What
they did is read back from the server. Saves screenshots (WWM_UPDATE_SCREENSHOTS=1 also writes
docs/tworld_keyboard.png and docs/tworld_editor.png)."""

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


def test_a_person_drives_a_robot_with_the_keys_beside_a_python_agent_and_a_javascript_teammate(tmp_path):
    from playwright.sync_api import sync_playwright

    with serve(tmp_path) as server:
        agent = subprocess.Popen([sys.executable, str(ROOT / "examples/tileworld/python/agent.py"), "127.0.0.1",
                                  str(proxy_port(server)), "py-k"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                # a teammate: the editor's skeleton agent, waiting to join a game as robot browser:js
                editor = browser.new_page()
                editor.goto(server.url + "editor")
                editor.fill("#name", "js")
                editor.uncheck("#new-game")
                editor.click("#run")
                editor.wait_for_function("document.getElementById('state').textContent.startsWith('waiting for')")
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.goto(server.url)
                page.fill("#agents", "browser:me\nbrowser:js\nproxy:py-k")
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
                editor.wait_for_function("document.getElementById('log').textContent"
                                         ".includes('a teammate says: hello from the keys')")  # its Message Event
                page.wait_for_timeout(300)
                save(page, tmp_path, "tworld_keyboard.png")
                view = get(server.url + "api/view")
                me, js, other = view["view"]["agents"]
                assert view["status"] == "running" and view["robots"] == ["browser:me", "browser:js", "proxy:py-k"]
                assert view["view"]["environment"]["agents"][0]["location"] != start   # the keys moved it
                assert me["total_score"] > 0 and me["filled_holes"] + me["filled_cells"] > 0   # and it scored
                assert me["good_moves"] >= 3 and js["good_moves"] >= 3 and other["good_moves"] >= 3   # all live
                said = [(m["from"], m["to"]) for m in view["view"]["messages"] if m["text"] == "hello from the keys"]
                assert sorted(said) == [(0, 1), (0, 2)]
                page.click("#stop")
                page.wait_for_function("document.getElementById('driving').textContent.includes('game is over')")
                editor.wait_for_function("document.getElementById('state').textContent.startsWith('the game is over')")
                browser.close()
            out, err = agent.communicate(timeout=20)
            assert agent.returncode == 0, err
        finally:
            if agent.poll() is None:
                agent.kill()


GLOBAL_SCOPE = """const MOVES = { north: [-1, 0], south: [1, 0], east: [0, 1], west: [0, -1] };
let steps = 0;
function free(grid, r, c) {
  return r >= 0 && r < grid.length && c >= 0 && c < grid[0].length && (grid[r][c] === " " || grid[r][c] === "C");
}
// distance and first move from the robot to every cell it can walk to
function walks(grid, from) {
  const seen = new Map([[`${from.row},${from.column}`, { d: 0, first: null }]]), queue = [[from.row, from.column]];
  while (queue.length) {
    const [r, c] = queue.shift(), here = seen.get(`${r},${c}`);
    for (const [name, [dr, dc]] of Object.entries(MOVES)) {
      const key = `${r + dr},${c + dc}`;
      if (!seen.has(key) && free(grid, r + dr, c + dc)) {
        seen.set(key, { d: here.d + 1, first: here.first || name });
        queue.push([r + dr, c + dc]);
      }
    }
  }
  return seen;
}"""
PUSHER = """// push the tile whose push brings it nearest a hole, from the cheapest side
const grid = percept.data.environment.grid, me = percept.data.agent.location;
const holes = [], tiles = [];
grid.forEach((row, r) => row.forEach((cell, c) => {
  if (cell === "T") tiles.push([r, c]);
  else if (typeof cell === "number") holes.push([r, c]);
}));
steps += 1;
if (!holes.length || !tiles.length) return "none";
const far = (r, c) => Math.min(...holes.map(([hr, hc]) => Math.abs(hr - r) + Math.abs(hc - c)));
const paths = walks(grid, me);
let best = null;
for (const [tr, tc] of tiles) for (const [name, [dr, dc]] of Object.entries(MOVES)) {
  const into = typeof grid[tr + dr]?.[tc + dc] === "number";   // this push fills a hole
  if (!into && !free(grid, tr + dr, tc + dc)) continue;
  const after = into ? 0 : far(tr + dr, tc + dc);
  const behind = paths.get(`${tr - dr},${tc - dc}`);   // the robot pushes from the other side
  if (after >= far(tr, tc) || !behind) continue;
  const move = behind.d === 0 ? name : behind.first;
  if (!best || behind.d + after < best.cost) best = { cost: behind.d + after, move };
}
return best ? best.move : "none";"""


def test_a_person_writes_a_javascript_agent_that_plays_beside_the_c_agent(tmp_path):
    from playwright.sync_api import sync_playwright

    c_agent = tmp_path / "agent"
    subprocess.run(["gcc", "-O2", "-o", str(c_agent), str(ROOT / "examples/tileworld/c/agent.c")], check=True)
    with serve(tmp_path) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        missing: list[str] = []
        page.on("response", lambda r: r.status >= 400 and missing.append(f"{r.status} {r.url}"))
        page.goto(server.url + "editor")
        assert page.title() == "T-World agent editor · wwm"
        headings = page.locator("main h2").all_inner_texts()
        assert headings[:4] == ["AGENT PROGRAM", "GLOBAL SCOPE", "START EVENT", "MESSAGE RECEIVED EVENT"]
        assert "return free.length" in page.input_value("#program")   # the skeleton, ready to run

        def errors_say(*words: str) -> None:
            script = " && ".join(f"document.getElementById('errors').textContent.includes({json.dumps(w)})"
                                 for w in words)
            page.wait_for_function(script, timeout=15000)

        # a syntax error: said with its section and line, and no game is started
        page.fill("#global", "const MOVES = { north: [-1, 0] };\nlet x = ;")
        page.click("#run")
        errors_say("Global Scope, line 2", "SyntaxError")
        assert "bad" in page.get_attribute("#global", "class")
        assert get(server.url + "api/view")["status"] == "idle"
        # the skeleton runs as it is: its Start Event logs, its random walk moves robot 0
        page.click("#reset")
        page.click("#run")
        page.wait_for_function("document.getElementById('log').textContent.includes('a 9×10 world, ends after 60 s')",
                               timeout=15000)
        page.wait_for_function("Number(document.getElementById('score').dataset.actions) > 3")
        assert get(server.url + "api/view")["view"]["agents"][0]["good_moves"] > 0
        assert page.text_content("#errors") == ""
        # a run-time error: said, and the robot waits its turns instead of stalling the game
        page.fill("#global", GLOBAL_SCOPE)
        page.fill("#program", "const me = percept.data.agent;\nreturn me.location.nosuch.row;")
        page.click("#run")
        errors_say("Agent Program, line 2: TypeError", "reading 'row'")
        page.wait_for_function("Number(document.getElementById('score').dataset.actions) > 2")
        view = get(server.url + "api/view")
        assert view["status"] == "running" and view["robots"] == ["browser:js-agent", "reactive"]
        # an endless loop: stopped and said, not a silent stall
        page.fill("#program", "while (true) {}")
        page.click("#run")
        errors_say("has not returned an action for 3 s")
        assert page.inner_text("#state").startswith("stopped")
        # a real agent, beside the C example agent through the proxy, in one game
        agent = subprocess.Popen([str(c_agent), "127.0.0.1", str(proxy_port(server)), "c-1"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            page.fill("#program", PUSHER)
            page.fill("#start", "log(`${percept.data.builtin_knowledge.grid_total_rows} rows; I am robot "
                                "${percept.data.agent.id}`);")
            page.fill("#others", "proxy:c-1")
            page.fill("#extra", '{"dynamism": [10, 20]}')
            page.click("#run")
            page.wait_for_function("document.getElementById('log').textContent.includes('9 rows; I am robot 0')",
                                   timeout=15000)
            for _ in range(600):
                view = get(server.url + "api/view")
                me, other = view["view"]["agents"]
                if me["total_score"] > 0 and other["good_moves"] > 0:
                    break
                page.wait_for_timeout(100)
            assert view["robots"] == ["browser:js-agent", "proxy:c-1"] and view["status"] == "running"
            assert me["good_moves"] > 3 and me["total_score"] > 0 and me["filled_cells"] > 0   # it acted, scored
            assert other["good_moves"] > 0   # beside the C agent, in the same game
            assert page.text_content("#errors") == "" and view["errors"] == []
            page.wait_for_function("Number(document.getElementById('score').dataset.score) > 0")  # the page sees it
            page.evaluate("document.querySelectorAll('textarea').forEach((t) => { t.scrollTop = 0; })")
            save(page, tmp_path, "tworld_editor.png")
            page.click("#stop")
            urllib.request.urlopen(urllib.request.Request(server.url + "api/stop", method="POST"), timeout=5)
            out, err = agent.communicate(timeout=20)
            assert agent.returncode == 0 and "END score=" in out, err
        finally:
            if agent.poll() is None:
                agent.kill()
        assert missing == []
        browser.close()
