"""Benchmark of the proposal's test beds as Worlds, one command:  python benchmarks/testbeds.py

Steps per second of Tyrrell's world (``wwm.tyrrell``) beside the project's small grid World
(``wwm.kit.grid``), both measured in this run on this machine, printed with the ratio to the
grid World measured the same way:
- in process: the engine's step alone, then the World's Execute action (step plus the state
  text a mind would read),
- over the network: Execute action queries from one client to a ``wwm serve`` process, over
  HTTP and over the plain TCP binding.
Actions are random (uniform over each world's suite); a Tyrrell life that ends starts again.
Then where a Tyrrell step's time goes: CPU microseconds per step (``time.process_time``, so
the machine's load matters less) of the engine's step, the percept, and the state text.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable

from timing import arate, rate

from wwm.client import RemoteWorld
from wwm.kit.grid import ACTIONS as GRID_ACTIONS
from wwm.kit.grid import GridEngine, GridWorld
from wwm.server.process import ServerProcess
from wwm.tyrrell import TyrrellWorld
from wwm.tyrrell.engine import TyrrellEngine
from wwm.tyrrell.rules import ACTIONS as TYRRELL_ACTIONS
from wwm.tyrrell.rules import Rules
from wwm.tyrrell.state import format_state

# a long life, so few steps are spent starting again
TYRRELL_ARGS = {"seed": 0, "lifetime": 10**6}


def engine_rates(seconds: float) -> tuple[float, float]:
    rng = random.Random(0)
    grid = GridEngine(size=10)
    tyrrell = [TyrrellEngine(seed=0)]

    def tyrrell_step() -> None:
        if not tyrrell[0].alive:
            tyrrell[0] = TyrrellEngine(seed=rng.randrange(10**6))
        tyrrell[0].step(rng.randrange(len(TYRRELL_ACTIONS)))
    return rate(lambda: grid.step(rng.choice(GRID_ACTIONS)), seconds), rate(tyrrell_step, seconds)


async def world_rate(make: Callable[[], object], actions: tuple[str, ...], seconds: float) -> float:
    rng = random.Random(0)
    box = {"world": make()}

    async def step() -> None:
        world = box["world"]
        out = await world.execute_action(rng.choice(actions))  # type: ignore[attr-defined]
        if out.finished:
            box["world"] = make()
    return await arate(step, seconds)


async def remote_rate(url: str, transport: str, actions: tuple[str, ...], seconds: float) -> float:
    rng = random.Random(0)
    async with RemoteWorld(url, transport=transport) as world:
        await world.new_run()
        box = {"world": world}

        async def step() -> None:
            out = await box["world"].execute_action(rng.choice(actions))
            if out.finished:
                await box["world"].new_run()
        await arate(step, 0.3)   # warm up
        result = await arate(step, seconds)
        await world.end_run()
    return result


def phases(steps: int = 2000, repeats: int = 3) -> dict[str, float]:
    """CPU microseconds per step of each phase of a Tyrrell step, the least of ``repeats``."""
    best: dict[str, float] = {}
    for _ in range(repeats):
        rng = random.Random(0)
        e = TyrrellEngine(Rules(lifetime=10**6), seed=0)
        spent = {"engine step": 0.0, "percept": 0.0, "state text": 0.0}
        for _ in range(steps):
            if not e.alive:
                e = TyrrellEngine(Rules(lifetime=10**6), seed=rng.randrange(10**6))
            t0 = time.process_time()
            e.step(rng.randrange(len(TYRRELL_ACTIONS)))
            t1 = time.process_time()
            e.perceive()
            t2 = time.process_time()
            format_state(e)
            t3 = time.process_time()
            spent["engine step"] += t1 - t0
            spent["percept"] += t2 - t1
            spent["state text"] += t3 - t2
        for k, v in spent.items():
            best[k] = min(best.get(k, float("inf")), v / steps * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    args = parser.parse_args()
    s = args.seconds
    rows: list[tuple[str, float, float]] = []   # (measure, grid steps/s, tyrrell steps/s)
    grid_e, tyrrell_e = engine_rates(s)
    rows.append(("in process: engine step", grid_e, tyrrell_e))
    grid_w = asyncio.run(world_rate(GridWorld, GRID_ACTIONS, s))
    tyrrell_w = asyncio.run(world_rate(lambda: TyrrellWorld(**TYRRELL_ARGS), TYRRELL_ACTIONS, s))
    rows.append(("in process: Execute action (step + state)", grid_w, tyrrell_w))
    extra = ["--tcp-port", "0"]
    with ServerProcess("wwm.kit.grid:GridWorld", extra=extra) as grid, \
            ServerProcess("wwm.tyrrell:TyrrellWorld", args=TYRRELL_ARGS, extra=extra) as tyrrell:
        for transport in ("http", "tcp"):
            g = asyncio.run(remote_rate(grid.url, transport, GRID_ACTIONS, s))
            t = asyncio.run(remote_rate(tyrrell.url, transport, TYRRELL_ACTIONS, s))
            rows.append((f"network, {transport.upper()}: Execute action", g, t))
    print(f"{'measure':44} {'grid World/s':>13} {'Tyrrell/s':>11} {'Tyrrell/grid':>13}")
    for name, g, t in rows:
        print(f"{name:44} {g:13,.0f} {t:11,.0f} {t / g:12.2f}x")
    print("ratios below 1: Tyrrell's world is that much slower per step than the grid World")
    print("\nwhere a Tyrrell step's time goes (CPU µs per step):")
    for name, micros in phases().items():
        print(f"  {name:12} {micros:7.0f}")


if __name__ == "__main__":
    main()
