"""The soccer world over real processes: a match between Python players (Mind servers driven
by ``wwm run``, one client run each) and JavaScript players (node, the soccer server's text
protocol over UDP) runs to the final whistle with the score in the run records; a player on
UDP joins and moves; mistakes are answered, not crashed on."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import wwm
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
NODE_PLAYER = ROOT / "examples" / "soccer" / "javascript" / "player.js"


def soccer_server(tmp_path: Path, **args) -> ServerProcess:
    command = [sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--udp-port", "0"]
    for key, value in args.items():
        command += ["--arg", f"{key}={value}"]
    return ServerProcess("soccer", command=command, port=0, log=tmp_path / "soccer.log")


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def udp_port(server: ServerProcess) -> int:
    return int(server.card()["bindings"]["udp"].rsplit(":", 1)[1])


def test_python_minds_and_node_players_play_a_match_to_the_final_whistle(tmp_path):
    if shutil.which("node") is None:
        raise RuntimeError("node is needed for the JavaScript players")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with soccer_server(tmp_path, players=2, half=150, synch="true", record=tmp_path / "matches") as server, \
            ServerProcess("wwm.soccer.mind:SoccerMind") as minds:
        card = server.card()
        assert card["sharing"] == "shared" and "(dash POWER" in card["action_format"]
        assert '"see"' in card["state_format"] and card["bindings"]["udp"].startswith("udp://127.0.0.1:")
        port = udp_port(server)
        runs = [subprocess.Popen(
            [sys.executable, "-m", "wwm.cli.main", "run", "--mind", minds.url, "--world", server.url,
             "--mind-arg", f"role={role}", "--world-arg", "team=Pythons", "--world-arg", f"goalie={role == 'goalie'}",
             "--steps", "100000", "--db", db, "--json", "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True) for role in ("goalie", "chaser")]
        nodes = [subprocess.Popen(["node", str(NODE_PLAYER), "127.0.0.1", str(port), "Nodes", role],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for role in ("goalie", "chaser")]
        outs = [p.communicate(timeout=180) for p in runs + nodes]
        for p, (_, err) in zip(runs + nodes, outs, strict=True):
            assert p.returncode == 0, err
        match = get_json(server.url + "soccer/recording/1.json")
    assert match["finished"] and match["events"][-1] == [300, "time_over"]
    assert sorted(match["teams"]) == ["Nodes", "Pythons"]
    assert [e[1] for e in match["events"]].count("half_time") == 1
    assert json.loads((tmp_path / "matches" / "match-1.json").read_text())["score"] == match["score"]
    last = match["frames"][-1]
    assert len(last["p"]) == 4 and last["t"] == 300
    moved = {(p[0], p[1]) for f in match["frames"] for p in f["p"] if p[2] not in (-50.0, 50.0, -12.0, 12.0)}
    assert {side for side, _ in moved} == {"l", "r"}  # players of both sides ran about (goalies may keep their place)
    kicks = sum(1 for a, b in zip(match["frames"], match["frames"][1:], strict=False) if b["b"] != a["b"])
    assert kicks > 100  # the ball was in play
    python_side = match["teams"].index("Pythons")
    difference = match["score"][python_side] - match["score"][1 - python_side]
    for out, _ in outs[:2]:
        result = json.loads(out)
        assert result["status"] == "ended by world" and result["steps"] >= 300
        assert result["total_score"] == result["world_score"] == difference
        shown = subprocess.run([sys.executable, "-m", "wwm.cli.main", "runs", "show", str(result["record_id"]),
                                "--db", db, "--json"], capture_output=True, text=True, check=True)
        record = json.loads(shown.stdout)
        assert record["status"] == "ended by world" and record["total_score"] == difference
    for out, _ in outs[2:]:
        line = re.search(r"over ([lr]) (\d) (\d+) (\d+) cycles=(\d+)", out)
        assert line and [int(line.group(3)), int(line.group(4))] == match["score"], out
        assert int(line.group(5)) >= 300


def test_a_player_speaking_the_text_protocol_over_udp_joins_and_moves(tmp_path):
    with soccer_server(tmp_path, players=1, cycle_ms=20) as server:
        port = udp_port(server)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as other:
            sock.settimeout(5)
            other.settimeout(5)

            def ask(s: socket.socket, text: str) -> str:
                s.sendto(text.encode() + b"\0", ("127.0.0.1", port))
                return s.recv(8192).rstrip(b"\0").decode()

            assert ask(sock, "(dash 100)") == "(error illegal_command_form)"  # no init first
            assert ask(sock, "(init Solo (version 15))") == "(init l 1 before_kick_off)"
            assert ask(other, "(init Solo (version 15))") == "(error no_more_team_or_player)"
            start = get_json(server.url + "soccer/now.json")["frame"]["p"][0]
            assert start[:4] == ["l", 1, -50.0, 0.0]
            seen, speeds = [], []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and len(speeds) < 15:
                message = sock.recv(8192).rstrip(b"\0").decode()
                if message.startswith("(see "):
                    seen.append(message)
                elif message.startswith("(sense_body "):
                    speeds.append(float(re.search(r"\(speed ([\d.]+)", message).group(1)))
                    sock.sendto(b"(dash 100)\0", ("127.0.0.1", port))
            assert len(speeds) == 15 and max(speeds) > 0.4
            assert any("((g r) " in s and "((b) " in s for s in seen)  # facing the field: its goal and the ball
            now = get_json(server.url + "soccer/now.json")["frame"]["p"][0]
            assert now[2] > -45  # it ran towards the centre
            sock.sendto(b"(fly away)\0", ("127.0.0.1", port))
            answers = [sock.recv(8192).rstrip(b"\0").decode() for _ in range(6)]
            assert "(error unknown_command)" in answers
            sock.sendto(b"(bye)\0", ("127.0.0.1", port))


async def test_wwm_clients_get_refusals_that_name_the_mistake(tmp_path):
    with soccer_server(tmp_path, players=1, cycle_ms=20) as server:
        body = wwm.connect(server.url, team="Alone")
        await body.new_run()
        state = json.loads(await body.get_state())
        assert (state["side"], state["unum"], state["playmode"]) == ("l", 1, "before_kick_off")
        with pytest.raises(Refusal) as info:
            await body.execute_action("(fly 3)")
        assert info.value.code == "bad-parameters" and "unknown command (fly" in str(info.value)
        outcome = await body.execute_action("(turn 90)")
        assert json.loads(outcome.state)["sense_body"]["turn"] == 1
        for args, words in (({"team": "Alone"}, "already has all its 1 players"),
                            ({"team": "two words"}, "team name is 1-15"),
                            ({"team": "B", "view": "huge"}, "narrow, normal or wide")):
            extra = wwm.connect(server.url, **args)
            with pytest.raises(Refusal, match=words):
                await extra.new_run()
        third = wwm.connect(server.url, team="B")
        await third.new_run()
        with pytest.raises(Refusal, match="between Alone and B"):
            await wwm.connect(server.url, team="C").new_run()
    bad = subprocess.run([sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--arg",
                          "players=12"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "players (a side) must be between 1 and 11" in bad.stderr
    assert "Traceback" not in bad.stderr
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        busy = subprocess.run([sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--udp-port",
                               str(taken.getsockname()[1]), "--arg", "config={oops"],
                              capture_output=True, text=True, timeout=60)
    assert busy.returncode == 2 and "config is not JSON" in busy.stderr  # the settings are checked first
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        busy = subprocess.run([sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--udp-port",
                               str(taken.getsockname()[1])], capture_output=True, text=True, timeout=60)
    assert busy.returncode == 1 and busy.stderr.startswith("wwm soccer serve: cannot take UDP port")
    assert busy.stderr.count("\n") == 1 and "serving" not in busy.stdout
