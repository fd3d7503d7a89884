"""What a server shows at its URL tells the truth: its page and its card show the arguments in
force (the ``--arg`` start-up defaults over the class's own), saying which was set where; a
grid run's display page draws the grid as SVG; and every server answers for its icon. (The grid
and the relay are hosted in this process: what a GET shows is the point, not the socket.)"""

from __future__ import annotations

import contextlib
import json
import re
import urllib.request
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from wwm.client import RemoteWorld
from wwm.client.inprocess import host, hosted, request
from wwm.protocol.arguments import Arguments
from wwm.server import make_app
from wwm.targets import load_target

GRID = "wwm.kit.grid:GridWorld"


@contextlib.asynccontextmanager
async def served(target: str, args: dict[str, Any]) -> AsyncIterator[str]:
    """``target`` served in this process with start-up defaults ``args``; yields its URL."""
    url = f"http://{target.rpartition(':')[2].lower()}.pages.inprocess.test/"
    async with host(make_app(load_target(target), url=url, defaults=args)):
        yield url


async def aget(url: str, accept: str = "text/html") -> tuple[int, str, str]:
    """:func:`get` of a server hosted in this process."""
    parts = urlsplit(url)
    app = hosted(f"{parts.scheme}://{parts.netloc}/")
    assert app is not None
    reply = await request(app, "GET", parts.path or "/", query=parts.query, headers=[("accept", accept)])
    return reply.status, reply.content_type or "", reply.body.decode()


def get(url: str, accept: str = "text/html") -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.headers.get("content-type", ""), reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read().decode()


def argument_row(page: str, name: str) -> str:
    """The description page's table row of one argument."""
    found = re.search(rf'<tr data-argument="{name}"[^>]*>.*?</tr>', page, re.S)
    assert found, f"no row for {name!r} in the arguments table"
    return found.group(0)


async def test_card_shows_the_arguments_in_force():
    async with served(GRID, {"size": 10}) as grid10:
        status, _, text = await aget(grid10 + "?format=json", "application/json")
        card = json.loads(text)
        assert status == 200
        force = card["arguments_in_force"]
        assert force["size"] == {"value": 10, "set": "start", "class_default": 8}
        assert force["food"] == {"value": 3, "set": "class"}
        assert force["chase"] == {"value": 0.5, "set": "class"}
        assert card["defaults"] == {"size": 10}                       # the start-up defaults alone
        # the schema a program reads says what a New run without the item gets here
        assert card["arguments"]["properties"]["size"]["default"] == 10
        assert card["arguments"]["properties"]["food"]["default"] == 3
        async with RemoteWorld(grid10) as world:                   # and that is what it gets
            await world.new_run()
            assert (await world.get_state()).startswith("size=10 ")
            await world.end_run()


async def test_page_shows_the_arguments_in_force_and_where_each_was_set():
    async with served(GRID, {"size": 10}) as grid10:
        status, _, page = await aget(grid10)
        assert status == 200
        size = argument_row(page, "size")
        assert 'data-set="start"' in size and "<code>10</code>" in size
        assert "--arg" in size and "8" in size                         # set at start; the class says 8
        food = argument_row(page, "food")
        assert 'data-set="class"' in food and "<code>3</code>" in food


def test_a_server_without_start_up_defaults_shows_the_class_defaults(probe_world):
    card = json.loads(get(probe_world.url, "application/json")[2])
    assert card["arguments_in_force"]["start"] == {"value": 0, "set": "class"}
    assert card["defaults"] == {}
    assert 'data-set="class"' in argument_row(get(probe_world.url)[2], "start")


async def test_a_required_argument_given_at_start_is_no_longer_required_of_a_run():
    async with served("probes:Relay", {"mind": "http://127.0.0.1:9/"}) as relay:
        card = json.loads((await aget(relay, "application/json"))[2])
        assert card["arguments_in_force"]["mind"] == {"value": "http://127.0.0.1:9/", "set": "start"}
        assert "mind" not in card["arguments"].get("required", [])
        assert card["arguments"]["properties"]["mind"]["default"] == "http://127.0.0.1:9/"


def test_arguments_in_force_cover_required_open_and_wire_items():
    class Open:
        def __init__(self, need: int, keep: str = "a", **more) -> None: ...

    class Wire:
        def __init__(self, name: str = "x", wire_items: dict | None = None) -> None: ...

    assert Arguments(Open).in_force({}) == {"need": {"set": "run"}, "keep": {"value": "a", "set": "class"}}
    assert Arguments(Open).in_force({"need": "4", "other": "z"}) == {
        "need": {"value": 4, "set": "start"}, "keep": {"value": "a", "set": "class"},
        "other": {"value": "z", "set": "start"}}
    assert Arguments(Wire).in_force({"Name": "y", "Some item": "1"}) == {
        "name": {"value": "y", "set": "start", "class_default": "x"},
        "Some item": {"value": "1", "set": "start"}}


async def test_the_grid_display_page_draws_the_grid():
    async with served(GRID, {"size": 10}) as grid10, RemoteWorld(grid10) as world:
        started = await world.new_run()
        await world.execute_action("east")
        state = await world.get_state()
        page = (await aget(started.display_url))[2]
        view = (await aget(started.display_url + ".json", "application/json"))[2]
        await world.end_run()
    items = dict(part.split("=", 1) for part in state.split())
    assert '<svg class="grid"' in page and 'data-columns="10"' in page and 'data-rows="10"' in page
    lines = re.search(r'<path class="lines" d="([^"]+)"', page).group(1)
    assert lines.count("V") == 9 and lines.count("H") == 9        # the lines between 10x10 cells
    assert re.search(rf'<[a-z]+ class="agent" data-x="{items["x"]}" data-y="{items["y"]}"', page)
    assert page.count('class="food"') == 3 and page.count('class="hazard"') == 2
    assert "step 1 ·" in page
    grid = json.loads(view)["grid"]                                # the same picture, for programs
    assert grid["columns"] == 10 and grid["marks"]["agent"] == [[int(items["x"]), int(items["y"])]]


def test_every_server_answers_for_its_icon_and_every_page_names_it(probe_world):
    status, kind, icon = get(probe_world.url + "favicon.ico", "image/*")
    assert status == 200 and kind.startswith("image/svg+xml") and icon.startswith("<svg")
    assert 'rel="icon"' in get(probe_world.url)[2]
    assert 'rel="icon"' in get(probe_world.url + "display/nothing-here")[2]  # the gone page too


def test_grid_pictures_put_y_up_or_down_and_name_any_kind():
    from wwm.server.drawing import grid_svg

    def top_of(svg: str, kind: str) -> float:
        pattern = rf'class="{kind}" data-x="\d+" data-y="\d+" fill="[^"]+" cx="[^"]+" cy="([^"]+)"'
        return float(re.search(pattern, svg).group(1))

    up = grid_svg({"columns": 4, "rows": 3, "y_up": True, "marks": {"agent": [[0, 0]]}})
    down = grid_svg({"columns": 4, "rows": 3, "marks": {"agent": [[0, 0]]}})
    assert top_of(up, "agent") > top_of(down, "agent")            # y=0 at the bottom, or at the top
    odd = grid_svg({"columns": 2, "rows": 2, "marks": {"<b>ghost</b>": [[1, 1]]}})
    assert "<b>" not in odd and "&lt;b&gt;ghost&lt;/b&gt;" in odd   # a kind is text, not markup
    with pytest.raises(ValueError):
        grid_svg({"columns": 0, "rows": 3})


def test_a_grid_gives_its_own_kinds_a_look_and_a_bad_look_is_named():
    from wwm.server.drawing import grid_figure, grid_svg

    marks = {"swamp": [[0, 0]], "ghost": [[1, 1]]}
    svg = grid_svg({"columns": 2, "rows": 2, "marks": marks, "looks": {"swamp": ["block", "#a8a29e"]}})
    assert re.search(r'<rect class="swamp"[^>]*fill="#a8a29e"', svg)      # its own look: a filled cell
    assert re.search(r'<circle class="ghost"[^>]*fill="#6b7280"', svg)    # no look given: a grey dot
    legend = grid_figure({"columns": 2, "rows": 2, "marks": marks, "looks": {"swamp": ["block", "#a8a29e"]}})
    assert "■" in legend and "#a8a29e" in legend
    with pytest.raises(ValueError, match="the look of 'swamp' must be"):
        grid_svg({"columns": 2, "rows": 2, "marks": marks, "looks": {"swamp": ["cloud", "red"]}})
