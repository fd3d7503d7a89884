"""The example agents in C, JavaScript, Java, Python and Prolog each play a whole game through the
real proxy, as real processes, in JSON and in a second percept form (XML or Prolog, chosen
by the magic string); two of them play as a team and exchange messages."""

from __future__ import annotations

import asyncio
import re

import pytest

from wwm.tileworld.config import Config, Team
from wwm.tileworld.links import ProxyLink
from wwm.tileworld.live import Game
from wwm.tileworld.proxy import Proxy
from wwm.tileworld.recording import Recording, replay

pytestmark = pytest.mark.slow
LANGUAGES = ["c", "javascript", "java", "python", "prolog"]
SECOND_FORM = {"c": "prolog", "javascript": "prolog", "java": "xml", "python": "xml", "prolog": "prolog"}


async def play(commands: list[list[str]], config: Config, mode: str = "discrete", speed: float = 1.0,
               forms: list[str] | None = None):
    proxy = await Proxy(port=0).start()
    magics = [f"agent-{i}" for i in range(len(commands))]
    asked = [m if not forms or forms[i] == "json" else f"{m}:{forms[i]}" for i, m in enumerate(magics)]
    procs = [await asyncio.create_subprocess_exec(*cmd, "127.0.0.1", str(proxy.port), magic,
                                                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
             for cmd, magic in zip(commands, asked, strict=True)]
    game = Game(config, [ProxyLink(f"ws://127.0.0.1:{proxy.port}/", m) for m in magics], mode=mode, speed=speed)
    try:
        result = await asyncio.wait_for(game.run(), 60)
        outputs = [await asyncio.wait_for(p.communicate(), 20) for p in procs]
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
        await proxy.close()
    return game, result, [(p.returncode, out.decode(), err.decode())
                          for p, (out, err) in zip(procs, outputs, strict=True)]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_each_language_plays_a_full_game_through_the_proxy(agent_commands, language):
    config = Config(seed=11, end={"neutral": {"time": 60}})
    game, result, [(code, out, err)] = await play([agent_commands[language]], config)
    assert code == 0, err
    final = int(re.search(r"END score=(\d+)", out).group(1))
    assert final == result["teams"][0]["score"] > 0
    assert result["agents"][0]["good_moves"] > 50 and result["totals"]["filled_holes"] >= 3
    assert game.errors == []
    recording = Recording.from_dict(game.recording())
    assert replay(recording) == len(recording.percepts_sent()) > 100


@pytest.mark.parametrize("language", LANGUAGES)
async def test_each_language_reads_its_second_percept_form(agent_commands, language):
    form = SECOND_FORM[language]
    config = Config(seed=5, battery=True, gamma=0.2, end={"neutral": {"time": 30}})
    game, result, [(code, out, err)] = await play([agent_commands[language]], config, forms=[form])
    assert code == 0, err
    assert f"form={form}" in out  # what the agent read last was in the form it asked for
    final = int(re.search(r"END score=(\d+)", out).group(1))
    assert final == result["teams"][0]["score"] > 0 and result["agents"][0]["good_moves"] > 50
    assert result["agents"][0]["battery_restore"] >= 1  # it read its battery in that form too
    assert game.errors == []


@pytest.mark.parametrize("forms", [["json", "json"], ["xml", "prolog"]], ids=["json", "xml+prolog"])
async def test_a_python_and_a_javascript_agent_play_as_a_team_and_talk(agent_commands, forms):
    config = Config(agents=2, seed=11, teams=(Team("mixed", (0, 1)),), end={"neutral": {"time": 40}})
    game, result, runs = await play([agent_commands["python"], agent_commands["javascript"]], config, forms=forms)
    assert [code for code, _, _ in runs] == [0, 0], [err for _, _, err in runs]
    assert [f"form={form}" in out for (_, out, _), form in zip(runs, forms, strict=True)] == [True, True]
    heard = [int(re.search(r"heard=(\d+)", out).group(1)) for _, out, _ in runs]
    assert min(heard) > 0
    senders = {m["from"] for m in game.engine.messages}
    assert senders == {0, 1} and all(m["text"].startswith("target ") for m in game.engine.messages)
    assert result["teams"][0]["filled_holes"] > 0
    assert replay(Recording.from_dict(game.recording())) > 0


async def test_the_c_agent_plays_in_real_time(agent_commands):
    config = Config(seed=2, end={"neutral": {"time": 30}})
    game, result, [(code, out, err)] = await play([agent_commands["c"]], config, mode="realtime", speed=10)
    assert code == 0, err
    assert result["agents"][0]["good_moves"] > 20 and "END score=" in out
    assert replay(Recording.from_dict(game.recording())) > 20


@pytest.mark.parametrize("language", LANGUAGES)
async def test_each_agent_says_in_one_line_that_the_proxy_is_not_there(agent_commands, language):
    from wwm.server.process import free_port

    port = free_port()  # nothing listens here
    proc = await asyncio.create_subprocess_exec(*agent_commands[language], "127.0.0.1", str(port), "lost",
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"cannot reach the proxy at 127.0.0.1:{port}: ") and "refused" in lines[0].lower()


@pytest.mark.parametrize("language", LANGUAGES)
async def test_each_agent_restores_an_empty_battery_and_plays_on(agent_commands, language):
    config = Config(seed=11, battery=True, gamma=0.1, end={"neutral": {"time": 30}})
    _, result, [(code, _, err)] = await play([agent_commands[language]], config)
    assert code == 0, err
    stats = result["agents"][0]
    assert stats["battery_restore"] >= 1 and stats["good_moves"] > 60  # a battery lasts at most 50 moves
