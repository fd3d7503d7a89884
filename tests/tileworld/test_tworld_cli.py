"""``wwm tworld`` as a user runs it: the headless batch (table, CSV, plot), the proxy as its own
process, replaying a saved recording, and the page server's API refusing bad input."""

from __future__ import annotations

import asyncio
import csv
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from wwm.server.process import ServerProcess, free_port
from wwm.tileworld.config import Config
from wwm.tileworld.links import ProxyLink
from wwm.tileworld.live import Game

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def wwm(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", "tworld", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_batch_writes_a_table_a_csv_and_a_plot(tmp_path):
    out = tmp_path / "sweep"
    result = wwm("batch", "--gammas", "0.2,2", "--dynamisms", "6", "--trials", "2", "--time", "40", "--out", str(out),
                 "--record", str(tmp_path / "games"))
    assert result.returncode == 0, result.stderr
    assert "Effectiveness ε against γ" in result.stdout and "deliberative" in result.stdout
    with open(out.with_suffix(".csv")) as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["agent"], float(r["gamma"])) for r in rows] == [
        (agent, gamma) for agent in ("reactive", "deliberative", "cautious") for gamma in (0.2, 2.0)]
    assert float(rows[0]["effectiveness"]) > float(rows[1]["effectiveness"])
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    games = sorted((tmp_path / "games").glob("*.json"))
    assert len(games) == 12 and games[0].name == "cautious-g0.2-d6-t0.json"
    checked = wwm("replay", str(games[0]))
    assert checked.returncode == 0 and "percepts reproduced exactly" in checked.stdout


def test_batch_compares_reactive_and_deliberative_agents_across_a_dynamism_sweep(tmp_path):
    out = tmp_path / "dynamism"
    result = wwm("batch", "--sweep", "dynamism", "--agents", "reactive,deliberative", "--dynamisms", "3,24",
                 "--trials", "2", "--time", "40", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "against dynamism d" in result.stdout and "γ = 0.35" in result.stdout and "best ε" in result.stdout
    with open(out.with_suffix(".csv")) as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["agent"], int(r["dynamism"]), float(r["gamma"])) for r in rows] == [
        (agent, d, 0.35) for agent in ("reactive", "deliberative") for d in (3, 24)]
    eff = {(r["agent"], int(r["dynamism"])): float(r["effectiveness"]) for r in rows}
    assert eff["reactive", 3] < eff["reactive", 24] and eff["deliberative", 3] < eff["deliberative", 24]
    assert eff["deliberative", 3] < eff["reactive", 3]  # in a fast world, deliberating costs the most
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, words", [
    (["batch", "--agents", "psychic"], "unknown agent(s) ['psychic']"),
    (["batch", "--sweep", "speed"], "invalid choice: 'speed'"),
    (["batch", "--gammas", "fast"], "expected numbers separated by commas"),
    (["batch", "--trials", "0"], "--trials must be at least 1"),
    (["batch", "--rows", "0"], "rows and columns"),
    (["replay", "/no/such/file.json"], "No such file"),
    (["batch", "--time", "nan"], "expected a positive number of seconds"),
    (["batch", "--gammas", "1,inf"], "expected positive numbers"),
    (["batch", "--out", "/proc/no/such/out"], "cannot create folder '/proc/no/such'"),
    (["batch", "--record", "/proc/no-such-dir"], "cannot create folder '/proc/no-such-dir'"),
    (["proxy", "--port", "70000"], "a port is between 0 and 65535 (0: any free port), not 70000"),
    (["serve", "--port", "-5"], "a port is between 0 and 65535 (0: any free port), not -5"),
    (["serve", "--recordings", "/proc/no-such-dir"], "cannot create folder '/proc/no-such-dir'"),
])
def test_bad_arguments_are_named(args, words):
    result = wwm(*args)
    assert result.returncode != 0 and words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_busy_port_is_a_one_line_error_before_anything_starts(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port, rec = str(busy.getsockname()[1]), str(tmp_path)
        for args in (["serve", "--port", port, "--proxy-port", "0", "--recordings", rec],
                     ["serve", "--port", "0", "--proxy-port", port, "--recordings", rec], ["proxy", "--port", port]):
            result = wwm(*args, timeout=30)
            assert result.returncode == 1 and "address already in use" in result.stderr.lower(), args
            assert "Traceback" not in result.stderr and "serving" not in result.stdout


def test_the_proxy_command_pairs_an_agent_program_with_a_game_and_replay_checks_the_recording(tmp_path):
    port = free_port()
    proxy = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "tworld", "proxy", "--port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proxy.stdout.readline() == f"serving the T-World proxy at ws://127.0.0.1:{port}/ (Ctrl-C stops it)\n"
        agent = subprocess.Popen([sys.executable, str(ROOT / "examples/tileworld/python/agent.py"), "127.0.0.1",
                                  str(port), "cli-agent"], stdout=subprocess.PIPE, text=True)
        game = Game(Config(seed=6, end={"neutral": {"time": 30}}), [ProxyLink(f"ws://127.0.0.1:{port}/", "cli-agent")])
        result = asyncio.run(game.run())
        assert agent.wait(20) == 0 and result["agents"][0]["good_moves"] > 20
        busy = wwm("proxy", "--port", str(port), timeout=20)  # the port is taken
        assert busy.returncode == 1 and "address already in use" in busy.stderr.lower()
    finally:
        proxy.terminate()
        proxy.wait(5)
    saved = game.save(tmp_path / "run.json")
    checked = wwm("replay", str(saved))
    sent = len([e for e in game.engine.log if e[0] == "sent"])
    assert checked.returncode == 0 and f"{sent} percepts reproduced exactly" in checked.stdout
    bad = json.loads(saved.read_text())
    step = next(e for e in bad["log"] if e[0] == "act" and e[2] in ("north", "south", "east", "west"))
    step[2] = "none"
    saved.write_text(json.dumps(bad))
    tampered = wwm("replay", str(saved))
    assert tampered.returncode == 1 and "replay differs" in tampered.stderr


def post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_page_server_refuses_bad_games_clearly(tmp_path):
    command = [sys.executable, "-m", "wwm.cli.main", "tworld", "serve", "--port", "0", "--proxy-port", "0",
               "--recordings", str(tmp_path)]
    with ServerProcess("tworld", port=0, command=command) as server:  # its port read from its ready line
        start = server.url + "api/start"
        cases = [
            (b"{not json", "not JSON"),
            (b"[1]", "JSON object"),
            (json.dumps({"config": {"rows": -3}, "agents": []}).encode(), "rows and columns"),
            (json.dumps({"config": {}, "agents": []}).encode(), "1 expected"),
            (json.dumps({"config": {}, "agents": [{"kind": "robot"}]}).encode(), "kind must be"),
            (json.dumps({"config": {}, "agents": [{"kind": "builtin", "name": "genius"}]}).encode(),
             "no built-in agent"),
            (json.dumps({"config": {}, "agents": [{"kind": "proxy", "magic": " "}]}).encode(), "needs a magic string"),
            (json.dumps({"config": {}, "agents": [{"kind": "builtin", "name": "reactive"}], "mode": "warp"}).encode(),
             "mode must be"),
        ]
        robot = [{"kind": "builtin", "name": "reactive"}]
        for extra, words in (({"speed": "fast"}, "speed must be a number, got 'fast'"),
                             ({"speed": float("nan")}, "speed must be a positive number"),
                             ({"interval": "often"}, "interval must be a number"),
                             ({"action_timeout": -1}, "action_timeout must be a positive number")):
            cases.append((json.dumps({"config": {}, "agents": robot, **extra}).encode(), words))
        status, reply = post(start, json.dumps({"config": {"end": {"neutral": {"time": 100}}}, "agents": robot,
                                                "speed": 0.5}).encode())
        assert status == 200 and reply["status"] in ("waiting for agents", "running")
        for body, words in cases:
            status, reply = post(start, body)
            assert status == 400 and words in reply["error"], (body, reply)
        with urllib.request.urlopen(server.url + "api/view", timeout=5) as reply:
            assert json.loads(reply.read())["status"] == "running"  # bad requests left the game alone
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + "api/recordings/..%2Fsecrets.json", timeout=5)
        assert info.value.code == 404
        status, reply = post(start, json.dumps({"config": {"end": {"neutral": {"time": 5}}, "seed": 2},
                                                "agents": [{"kind": "builtin", "name": "deliberative"}],
                                                "mode": "discrete"}).encode())
        assert status == 200
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with urllib.request.urlopen(server.url + "api/view", timeout=5) as reply:
                view = json.loads(reply.read())
            if view["status"] == "over" and view["recording"]:
                break
            time.sleep(0.1)
        assert view["view"]["time"] == 5
        with urllib.request.urlopen(server.url + "api/recordings/" + view["recording"], timeout=10) as reply:
            frames = json.loads(reply.read())["frames"]
        assert frames[0]["time"] == 0 and frames[-1]["time"] == 5


def test_the_page_server_stops_on_sigterm_with_a_watcher_connected(tmp_path):
    from websockets.sync.client import connect

    command = [sys.executable, "-m", "wwm.cli.main", "tworld", "serve", "--port", "0", "--proxy-port", "0",
               "--recordings", str(tmp_path)]
    with ServerProcess("tworld", port=0, command=command) as server:  # its port read from its ready line
        with connect(f"ws://127.0.0.1:{server.port}/api/live") as watcher:
            assert json.loads(watcher.recv(timeout=5))["status"] == "idle"  # an idle page: nothing more to send
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(timeout=10)  # it hung here: the idle watcher's loop never ended
        assert server.process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
