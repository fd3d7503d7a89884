"""T-World's interface: action strings, the percept schema, invalid actions answered without
stalling the agent, messages between teammates, and recorded runs replayed exactly."""

from __future__ import annotations

import asyncio
import json

import pytest

from wwm.tileworld import percepts
from wwm.tileworld.actions import ActionError, parse_action
from wwm.tileworld.agents import DeliberativeAgent, ReactiveAgent
from wwm.tileworld.config import Config, Team
from wwm.tileworld.engine import Engine
from wwm.tileworld.links import BuiltinLink, ProxyLink
from wwm.tileworld.live import Game
from wwm.tileworld.proxy import Proxy
from wwm.tileworld.recording import Recording, RecordingError, frames, replay


@pytest.mark.parametrize("text, kind, detail", [
    ("north", "move", "north"), ("SOUTH\n", "move", "south"), ("2", "move", "north"), ("3", "move", "south"),
    ("1", "move", "east"), ("0", "move", "west"), ("action(east)", "move", "east"),
    ("none", "none", None), ("null", "none", None), ("4", "none", None),
    ("restore", "restore", None), ("restore_battery", "restore", None), ("revive", "restore", None),
    ("5", "restore", None),
    ("message:3:go left", "message", (3, "go left")), ("p_msg:1:x:y", "message", (1, "x:y")),
    ("message(2,'hi there')", "message", (2, "hi there")),
    ("team_message:hole at 3 4", "team_message", "hole at 3 4"), ("tm_msg:ok", "team_message", "ok"),
    ("team_message('done')", "team_message", "done"), ("log:thinking", "console", None),
])
def test_every_action_form_is_understood(text, kind, detail):
    action = parse_action(text)
    assert action.kind == kind
    if kind == "move":
        assert action.direction == detail
    elif kind == "message":
        assert (action.to, action.text) == detail
    elif kind == "team_message":
        assert action.text == detail


@pytest.mark.parametrize("text", ["fly", "", "north east", "message:x:hi", "7", "{\"action\": 1}"])
def test_an_invalid_action_says_what_was_received(text):
    with pytest.raises(ActionError, match="invalid action") as info:
        parse_action(text)
    assert text.strip()[:20] in str(info.value)


def test_the_percept_has_t_worlds_schema():
    engine = Engine(Config(seed=2, battery=True))
    message = json.loads(percepts.percept(engine, 0, "start"))
    assert list(message) == ["header", "data"] and message["header"] == "start"
    data = message["data"]
    assert list(data) == ["environment", "agent", "builtin_knowledge"]
    env = data["environment"]
    assert {"grid", "time", "battery_chargers", "agents", "holes", "tiles", "obstacles", "stats"} <= set(env)
    assert len(env["grid"]) == 9 and len(env["grid"][0]) == 10
    hole = env["holes"][0]
    assert {"id", "cells", "size", "value", "time_elapsed", "lifetime_left"} <= set(hole)
    assert all(env["grid"][c["row"]][c["column"]] == hole["id"] for c in hole["cells"])
    assert env["stats"]["total_holes"] == len(env["holes"])
    agent = data["agent"]
    assert agent["battery"] == 1000 and set(agent["stats"]) >= {"good_moves", "bad_moves", "filled_cells",
                                                                 "filled_holes", "battery_used", "total_score"}
    assert env["grid"][agent["location"]["row"]][agent["location"]["column"]] == "A"
    bk = data["builtin_knowledge"]
    assert bk["grid_total_rows"] == 9 and bk["end"]["neutral"]["time"] == 300 and bk["end"]["success"]["score"] is None
    assert bk["costs"]["good_move"] == 350 and bk["costs"]["battery"]["slide_tile"] == 10
    assert bk["probability"]["dynamism"]["range"] == [6, 13]
    assert percepts.percept(engine, 0).endswith("\n") and "\n" not in percepts.percept(engine, 0)[:-1]


async def test_a_discrete_game_is_recorded_and_replays_every_percept_exactly(tmp_path):
    cfg = Config(agents=2, seed=5, end={"neutral": {"time": 30}}, teams=(Team("a", (0,)), Team("b", (1,))))
    game = Game(cfg, [BuiltinLink(ReactiveAgent()), BuiltinLink(DeliberativeAgent())])
    result = await game.run()
    assert result["totals"]["time"] == 30 and result["totals"]["filled_holes"] > 0
    rec = Recording.load(game.save(tmp_path / "run.json"))
    sent = rec.percepts_sent()
    assert [json.loads(line)["header"] for _, line in sent[:2]] == ["start", "start"]
    assert [json.loads(line)["header"] for _, line in sent[-2:]] == ["end", "end"]
    assert replay(rec) == len(sent)
    views = frames(rec)
    assert views[0]["time"] == 0 and views[-1]["time"] == 30 and len(views) > 50


async def test_a_realtime_game_replays_exactly_too():
    cfg = Config(seed=8, end={"neutral": {"time": 20}})
    game = Game(cfg, [BuiltinLink(ReactiveAgent())], mode="realtime", speed=20)
    result = await game.run()
    assert result["totals"]["time"] == pytest.approx(20)
    rec = Recording.from_dict(game.recording())
    assert replay(rec) == len(rec.percepts_sent()) > 20
    # a tampered recording is caught
    log = [list(e) for e in rec.log]
    i = next(k for k, e in enumerate(log) if e[0] == "act" and e[2] != "none")
    log[i][2] = {"north": "south", "south": "north", "east": "west", "west": "east"}[log[i][2]]
    with pytest.raises(RecordingError, match="replay differs"):
        replay(Recording(rec.config, log))


def test_bad_recordings_are_named(tmp_path):
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(RecordingError, match="not JSON"):
        Recording.load(tmp_path / "x.json")
    with pytest.raises(RecordingError, match="not a Tileworld recording"):
        Recording.from_dict({"format": "something else"})
    with pytest.raises(RecordingError, match="an older Tileworld engine"):
        Recording.from_dict({"format": "wwm-tileworld-recording/1", "config": {}, "log": []})
    with pytest.raises(RecordingError, match="is a folder"):
        Recording.load(tmp_path)
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordingError, match="not JSON"):
        Recording.load(tmp_path / "bin.json")
    cfg = Config(seed=1, end={"neutral": {"time": 5}})
    for entry, words in ((["advance"], "log entry 0 is not one of"), (["jump", 1], "log entry 0 is not one of"),
                         ([], "log entry 0 is not one of"), (["advance", "soon"], "cannot be replayed"),
                         (["act", 0, "fly"], "cannot be replayed"), (["act", 7, "north"], "cannot be replayed"),
                         (["sent", 0, "{not json"], "not a T-World message")):
        with pytest.raises(RecordingError, match=words):
            replay(Recording(cfg, [entry]))


async def test_an_agent_that_sends_garbage_gets_an_error_and_a_fresh_percept_through_the_proxy():
    proxy = await Proxy(port=0).start()
    cfg = Config(seed=3, agents=2, teams=(Team("t", (0, 1)),), end={"neutral": {"time": 3}}, gamma=1.0)
    game = Game(cfg, [ProxyLink(f"ws://127.0.0.1:{proxy.port}/", "raw"), BuiltinLink(ReactiveAgent())])
    task = asyncio.create_task(game.run())
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"CONNECT:raw\n")
    await writer.drain()
    headers = []

    async def expect(header: str) -> dict:
        line = json.loads(await asyncio.wait_for(reader.readline(), 10))
        headers.append(line["header"])
        assert line["header"] == header, headers
        return line

    await expect("start")
    writer.write(b"jump\n")
    await writer.drain()
    error = await expect("error")
    assert 'invalid action "jump"' in error["data"]
    await expect("percept")                      # not stalled: the step went on as "none"
    writer.write(b"team_message:hello mate\nnorth\n")
    await writer.drain()
    await expect("ready_for_next_action")
    writer.write(b"none\n")
    await writer.drain()
    await expect("end")
    await task
    assert game.links[1].inbox == ["hello mate"]  # the teammate got the message
    rec = Recording.from_dict(game.recording())
    assert replay(rec) > 0
    # the error and the message percepts are checked too, not copied from the recording
    for header, change in (("error", lambda d: d.replace("jump", "leap")), ("message", lambda d: d)):
        log = [list(e) for e in rec.log]
        k = next(k for k, e in enumerate(log) if e[0] == "sent" and json.loads(e[2])["header"] == header)
        sent = json.loads(log[k][2])
        log[k][1] = log[k][1] if header == "error" else 1 - log[k][1]  # the message to the wrong robot
        log[k][2] = percepts.message(header, change(sent["data"]))
        with pytest.raises(RecordingError, match="replay differs"):
            replay(Recording(rec.config, log))
    writer.close()
    await proxy.close()


async def test_a_silent_agent_counts_as_none_and_a_missing_one_is_reported():
    proxy = await Proxy(port=0).start()
    cfg = Config(seed=3, end={"neutral": {"time": 1}}, gamma=0.5)
    game = Game(cfg, [ProxyLink(f"ws://127.0.0.1:{proxy.port}/", "mute")], action_timeout=0.2)
    task = asyncio.create_task(game.run())
    _, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"CONNECT:mute\n")
    await writer.drain()
    result = await asyncio.wait_for(task, 10)
    assert result["agents"][0]["good_moves"] == 0 and game.engine.finished
    writer.close()
    link = ProxyLink(f"ws://127.0.0.1:{proxy.port}/", "nobody")
    with pytest.raises(ConnectionError, match="no agent connected with magic string 'nobody'"):
        await link.open(timeout=0.3)
    await proxy.close()


async def test_pause_stops_the_world_clock_and_tells_the_robots():
    game = Game(Config(seed=4, end={"neutral": {"time": 10}}), [BuiltinLink(ReactiveAgent())],
                mode="realtime", speed=10)
    task = asyncio.create_task(game.run())
    await asyncio.sleep(0.3)
    await game.pause(True)
    assert game.status == "paused"
    frozen, moves = game.engine.time, game.engine.agents[0].stats["good_moves"]
    await asyncio.sleep(0.5)  # 5 world seconds if the clock ran
    assert game.engine.time == frozen and game.engine.agents[0].stats["good_moves"] <= moves + 1
    await game.pause(False)
    result = await asyncio.wait_for(task, 10)
    assert result["totals"]["time"] == pytest.approx(10)
    rec = Recording.from_dict(game.recording())
    pauses = [json.loads(line)["data"] for _, line in rec.percepts_sent() if json.loads(line)["header"] == "pause"]
    assert pauses == ["on", "off"]
    assert replay(rec) == len(rec.percepts_sent())


async def test_a_noisy_partial_view_game_replays_exactly():
    cfg = Config(seed=6, partial=True, radius=3, noise=True, end={"neutral": {"time": 30}})
    game = Game(cfg, [BuiltinLink(ReactiveAgent())])
    result = await game.run()
    assert result["agents"][0]["good_moves"] > 20
    rec = Recording.from_dict(game.recording())
    first = json.loads(rec.percepts_sent()[0][1])["data"]
    assert len(first["environment"]["grid"]) == 7 and first["agent"]["location"] == {"row": 3, "column": 3}
    assert replay(rec) == len(rec.percepts_sent())


async def test_the_asynchronous_loop_sends_percepts_on_a_clock_and_acknowledges_moves():
    cfg = Config(seed=4, end={"neutral": {"time": 10}})
    game = Game(cfg, [BuiltinLink(ReactiveAgent())], mode="realtime", speed=10, interval=0.5)
    result = await game.run()
    assert result["agents"][0]["good_moves"] > 5
    rec = Recording.from_dict(game.recording())
    sent = [json.loads(line) for _, line in rec.percepts_sent()]
    assert sum(1 for m in sent if m["header"] == "percept") >= 10  # one each 0.5 world s: 20 in 10 s unloaded
    acks = [m for m in sent if m["header"] == "ready_for_next_action"]
    assert acks and all(m["data"] == "null" for m in acks)
    assert replay(rec) == len(sent)
    with pytest.raises(ValueError, match="real-time mode"):
        Game(cfg, [BuiltinLink(ReactiveAgent())], interval=0.5)


async def test_an_agent_that_dies_mid_game_is_reported_and_the_game_goes_on():
    proxy = await Proxy(port=0).start()
    cfg = Config(seed=3, agents=2, end={"neutral": {"time": 5}}, gamma=0.5)
    game = Game(cfg, [ProxyLink(f"ws://127.0.0.1:{proxy.port}/", "mortal"), BuiltinLink(ReactiveAgent())])
    task = asyncio.create_task(game.run())
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"CONNECT:mortal\n")
    await writer.drain()
    assert json.loads(await asyncio.wait_for(reader.readline(), 10))["header"] == "start"
    writer.transport.abort()  # the agent process dies
    result = await asyncio.wait_for(task, 20)
    assert result["totals"]["time"] == 5 and result["agents"][1]["good_moves"] > 0
    assert game.errors == ["agent 0: agent 'mortal' disconnected"]
    await proxy.close()


async def test_a_recording_the_page_cannot_save_is_reported_not_lost(tmp_path):
    from wwm.tileworld.app import Hub

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the recordings folder should be")
    hub = Hub(None, blocker)
    await hub.start({"config": {"seed": 1, "end": {"neutral": {"time": 2}}}, "mode": "discrete",
                     "agents": [{"kind": "builtin", "name": "reactive"}]})
    await asyncio.wait_for(hub.task, 10)
    snapshot = hub.snapshot()
    assert snapshot["status"] == "over" and snapshot["recording"] is None
    assert any(e.startswith("the recording was not saved") for e in snapshot["errors"])
