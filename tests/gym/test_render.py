"""A served Gymnasium environment's frames on its display page: ``wwm serve gym:CartPole-v1``
renders ``rgb_array`` frames, served as a PNG at the run's display URL plus ``.png`` (or with
``Accept: image/png``) and shown on the display page; a World that draws none says so."""

from __future__ import annotations

import asyncio
import io
import urllib.error
import urllib.request

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from wwm.client.remote import RemoteWorld
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow


def get(url: str, accept: str = "*/*") -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers["Content-Type"], refused.read()


async def started(url: str, steps: int) -> tuple[RemoteWorld, str]:
    world = RemoteWorld(url, run_args={"seed": 3})
    run = await world.new_run("http://me.example/")
    for _ in range(steps):
        await world.execute_action("1")
    assert run is not None and run.display_url
    return world, run.display_url


def test_the_display_url_serves_the_environment_s_frame_as_a_png():
    local = gym.make("CartPole-v1", render_mode="rgb_array")
    local.reset(seed=3)
    height, width, _ = local.render().shape
    with ServerProcess("gym:CartPole-v1") as cartpole:
        async def scene() -> tuple[list[bytes], bytes, tuple[int, str, bytes], tuple[int, str, bytes]]:
            world, display = await started(cartpole.url, 0)
            frames = []
            for _ in range(2):  # a frame, then another after three pushes to the right
                status, ctype, body = get(display + ".png")
                assert (status, ctype) == (200, "image/png")
                frames.append(body)
                for _ in range(3):
                    await world.execute_action("1")
            asked = get(display, accept="image/png")
            page = get(display, accept="text/html")
            await world.end_run()
            await world.aclose()
            return frames, asked[2], page, get(display + ".png")

        frames, asked, page, after = asyncio.run(scene())
    first = np.asarray(Image.open(io.BytesIO(frames[0])))
    assert frames[0].startswith(b"\x89PNG\r\n\x1a\n")
    assert first.shape[:2] == (height, width)
    colours = np.unique(first.reshape(-1, first.shape[2]), axis=0)
    assert len(colours) > 3  # the white ground, the cart, the pole, the axle: not a blank image
    assert (first < 200).any(axis=2).mean() > 0.01
    assert frames[1] != frames[0]  # the cart moved: a new frame, not a cached one
    assert asked.startswith(b"\x89PNG")  # the same frame by type, at the display URL itself
    status, ctype, html = page
    assert status == 200 and ctype.startswith("text/html")
    assert 'id="frame"' in html.decode() and '.png"' in html.decode()
    assert after[0] == 404  # the run ended: no frame


def test_a_world_that_draws_no_frame_says_so():
    with ServerProcess("grid") as grid:
        async def scene() -> tuple[tuple[int, str, bytes], str]:
            world, display = await started(grid.url, 0)
            answer, (status, _, html) = get(display + ".png"), get(display, accept="text/html")
            assert status == 200
            page = html.decode()
            await world.end_run()
            await world.aclose()
            return answer, page

        (status, ctype, body), page = asyncio.run(scene())
    assert (status, ctype) == (404, "application/json")
    assert b"offers no frame image" in body
    assert 'id="frame"' not in page and "a run in progress" in page
