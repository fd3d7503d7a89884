"""A person drives a robot of a served SharedTileworld, in Debian's chromium (Playwright plays
the person), beside a robot a program drives: the person's page shows the robot's percept as a
board and its moves as buttons; the person reads the board, steps onto empty cells and sends
a team message; the world's states show each move and the teammate hears the message.
``WWM_SCREENSHOTS=docs/img`` writes the page's picture where docs/tileworld.md shows it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import wwm
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess
from wwm.tileworld.actions import DIRECTIONS
from wwm.tileworld.forms import decode
from wwm.tileworld.person import TileworldPersonMind, board, read_percept
from wwm.tileworld.shared_world import SharedTileworld
from wwm.tileworld.wwm_world import TileworldMind

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MOVES = 4


def where(percept: dict) -> tuple[int, int]:
    location = percept["data"]["agent"]["location"]
    return location["row"], location["column"]


def step_onto_empty(shown: str) -> str:
    """What the person decides on reading the board: a step onto an empty cell ('.'), one no
    robot or tile is next to if there is one (nothing else can get there first)."""
    lines = shown.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("What it sees")) + 3
    rows = []
    for line in lines[top:]:
        if not line.strip():
            break
        rows.append(line.split()[1:])

    def at(r: int, c: int) -> str:
        return rows[r][c] if 0 <= r < len(rows) and 0 <= c < len(rows[r]) else "~"

    me = next((r, row.index("@")) for r, row in enumerate(rows) if "@" in row)
    empty = [(name, (me[0] + dr, me[1] + dc)) for name, (dr, dc) in DIRECTIONS.items()
             if at(me[0] + dr, me[1] + dc) == "."]
    quiet = [name for name, (r, c) in empty if not {at(r + dr, c + dc) for dr, dc in DIRECTIONS.values()} & {"A", "T"}]
    return (quiet or [name for name, _ in empty] or ["none"])[0]


@pytest.mark.slow
@pytest.mark.browser
async def test_a_person_in_chromium_drives_a_robot_of_a_served_shared_tileworld(tmp_path):
    from playwright.async_api import async_playwright

    failures: list[str] = []
    shared_args = {"robots": 2, "teams": "0,1", "time": 300, "seed": 3}
    with ServerProcess("wwm.tileworld.shared_world:SharedTileworld", args=shared_args) as shared, \
            ServerProcess("wwm.tileworld.person:TileworldPersonMind", args={"timeout": 30, "title": "Ann"}) as person:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page(viewport={"width": 960, "height": 900})
                page.set_default_timeout(15000)
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
                await page.goto(person.url + "pages/")
                driving = asyncio.ensure_future(run(RemoteMind(person.url), RemoteWorld(shared.url),
                                                    RunSettings(steps=MOVES + 1, timeout=40)))

                # the program-driven robot: a client of its own, the reactive agent deciding
                bot, agent, heard, last = wwm.connect(shared.url), TileworldMind("reactive"), [], {}
                await bot.new_run()
                done = asyncio.Event()

                async def program() -> int:
                    state, moves = await bot.get_state(), 0
                    while not done.is_set():
                        outcome = await bot.execute_action((await agent.get_action(state)).action)
                        state, moves = outcome.state, moves + 1
                        last.update(decode(state))
                        heard.extend(last["messages"])
                    return moves

                beside = asyncio.ensure_future(program())
                pressed, seen = [], []
                for step in range(MOVES + 1):
                    form = page.locator("section.seat:not(.ended) form.question:not(.sent)")
                    await form.wait_for()
                    number = await form.get_attribute("data-number")
                    shown = await form.locator("pre.shown").inner_text()
                    seen.append(shown)
                    if step == 2:
                        folder = Path(os.environ.get("WWM_SCREENSHOTS") or tmp_path)
                        await page.screenshot(path=str(folder / "tworld-person-mind.png"), full_page=True)
                    if step == 1:                                   # a team message, typed
                        action = "team_message:hello from Ann"
                        await form.locator("input[name=action]").fill(action)
                        await form.locator("input[name=action]").press("Enter")
                    else:                                           # a move, by its button
                        action = step_onto_empty(shown)
                        await form.locator(f"button.action[data-action='{action}']").click()
                    pressed.append(action)
                    await page.wait_for_function(
                        "n => !document.querySelector(`form.question[data-number='${n}']:not(.sent)`)", arg=number)
                result = await driving
                done.set()
                moved = await asyncio.wait_for(beside, 10)
                last = decode(await bot.get_state())               # the world now, as the other client sees it
                heard.extend(last["messages"])
            finally:
                await browser.close()
        assert result.status == "completed" and [s.action for s in result.steps] == pressed
        assert [board(read_percept(s.state)) for s in result.steps] == seen   # the page drew what it saw
        robot = read_percept(result.steps[0].state)["data"]["agent"]["id"]
        for step in result.steps:                                  # each move landed where the person sent it
            before, after = where(decode(step.state)), where(decode(step.new_state))
            dr, dc = DIRECTIONS.get(step.action or "", (0, 0))
            assert after == (before[0] + dr, before[1] + dc), (step.action, before, after)
        assert sum(a in DIRECTIONS for a in pressed) >= MOVES - 1
        # the person's robot is where the person left it
        final = where(decode(result.steps[-1].new_state))
        others = {a["id"]: a["location"] for a in last["data"]["environment"]["agents"]}
        assert (others[robot]["row"], others[robot]["column"]) == final
        assert moved > 0 and last["data"]["agent"]["id"] != robot   # the program drove the other robot
        once = {m.get("n", i): m for i, m in enumerate(heard)}.values()   # (a message rides until its robot acts)
        assert [(m["from"], m["team"], m["text"]) for m in once] == [(robot, True, "hello from Ann")]
        await bot.end_run()
    assert failures == []


async def test_the_board_shows_a_partial_view_and_bad_states_and_answers_are_refused_by_name():
    world = SharedTileworld(robots=1, seed=3, config='{"partial": true, "radius": 2, "rows": 5, "columns": 5}')
    body = await world.join(form="prolog")
    shown = board(read_percept(await body.get_state()))
    grid = [line.split()[1:] for line in shown.splitlines()[4:9]]
    assert len(grid) == 5 and grid[2][2] == "@"                        # the robot in the middle of its window
    assert any("~" in row for row in grid)                             # cells beyond the world's edge
    person = TileworldPersonMind(timeout=5)
    with pytest.raises(Refusal, match="not a T-World percept"):
        await person.get_action("hello")
    assert person.read({"action": " team_message:meet at 3 4"}) == "team_message:meet at 3 4"
    assert person.read({"action": "EAST"}) == "east"
    with pytest.raises(ValueError, match="'up' is not an allowed action: the allowed actions are north, south, "
                                         "east, west, none, restore, or a typed team_message:<text>"):
        person.read({"action": "up"})
    with pytest.raises(ValueError, match='invalid action "message:robot:hi"'):
        person.read({"action": "message:robot:hi"})
    await person.new_run()
    over = '{"header": "end", "data": {"environment": {"grid": []}, "agent": {"id": 0, "location": {}}}}'
    assert (await person.get_action(over)).reason == "the Tileworld run is over"   # no question for the person
    await person.end_run()
