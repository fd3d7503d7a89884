"""``wwm check`` checks a Mind with real states (issue 28, item 2): with ``--world URL`` the
mind is sent the states of a run in that World and its actions are executed there; without
it, the example state on the mind's card; a state no one gave that the mind cannot read fails
with the way to give one. The README's own mind passes, in process."""

from __future__ import annotations

import contextlib
from pathlib import Path

from wwm.client.conformance import WORLD_STEPS, check_server
from wwm.client.inprocess import host
from wwm.kit.grid_minds import GRID_EXAMPLE
from wwm.server import make_app
from wwm.targets import load_target

ROOT = Path(__file__).resolve().parents[2]
README_MIND = f"{ROOT / 'examples/getting-started/nearest_food.py'}:NearestFood"


@contextlib.asynccontextmanager
async def hosted(**targets: str):
    async with contextlib.AsyncExitStack() as stack:
        urls = {}
        for name, target in targets.items():
            urls[name] = f"http://check-{name}.test/"
            await stack.enter_async_context(host(make_app(load_target(target), url=urls[name])))
        yield urls


def failures(checks) -> list[tuple[str, str]]:
    return [(c.name, c.detail) for c in checks if not c.passed]


async def test_the_readme_mind_passes_with_a_worlds_states_and_its_actions_executed_there():
    async with hosted(mind=README_MIND, grid="wwm.kit.grid:GridWorld") as urls:
        checks = await check_server(urls["mind"], world=urls["grid"])
    assert not failures(checks)
    (walked,) = [c for c in checks if c.name.startswith("Get action and Inform with states of")]
    moves = walked.detail.split(": ", 1)[1].split(", ")
    assert walked.detail.startswith(f"{WORLD_STEPS} steps") and len(moves) == WORLD_STEPS
    assert set(moves) <= {"north", "south", "east", "west", "stay"}


async def test_without_a_state_a_mind_that_cannot_read_x_fails_saying_how_to_give_one():
    async with hosted(mind=README_MIND) as urls:
        checks = await check_server(urls["mind"])
    ((name, detail),) = failures(checks)
    assert name == "Get action for x = x" and "ValueError" in detail
    assert "give one it reads with --state, or a World to ask for states with --world URL" in detail


async def test_a_minds_card_example_is_the_state_sent_by_default():
    async with hosted(mind="wwm.kit.grid_minds:FoodSeeker") as urls:
        checks = await check_server(urls["mind"])
    assert not failures(checks)
    (asked,) = [c for c in checks if c.name.startswith("Get action for x = ")]
    assert GRID_EXAMPLE.startswith(asked.name.removeprefix("Get action for x = ").rstrip("…"))
    assert asked.detail == "a = east, Q = -1.0"  # toward the food at 6,4 from 4,4


async def test_a_world_that_cannot_start_a_run_is_named():
    async with hosted(mind=README_MIND) as urls:
        checks = await check_server(urls["mind"], world="http://127.0.0.1:1/")
    (failed,) = [c for c in checks if not c.passed]
    assert failed.name == "New run in the World at http://127.0.0.1:1/"
    assert "nothing is listening at http://127.0.0.1:1/" in failed.detail
