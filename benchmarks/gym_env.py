"""Benchmark of the Gymnasium bridge, one command:  python benchmarks/gym_env.py

Serves CartPole-v1 with ``wwm serve gym:CartPole-v1 --tcp-port 0`` (another process) and
prints steps per second of ``WorldEnv.step`` over HTTP and over the TCP binding, beside the
same environment stepped in process (the baseline, measured in this run) and the served
World's own object stepped in process (what the network and the client add is the rest),
and a WorldEnv made inside a running event loop (a notebook: each call hops to a thread).
Reference: gym-http-api (openai, archived) serves about 770 steps/s on this kind of machine.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable

import gymnasium as gym
from rich.console import Console
from rich.progress import track
from rich.table import Table

from wwm.gym import WorldEnv
from wwm.gym.served import gym_world
from wwm.server.process import ServerProcess

ENV_ID = "CartPole-v1"


def rate(name: str, reset: Callable[[], object], step: Callable[[int], bool], seconds: float) -> float:
    """Steps per second of ``step`` (alternating actions; ``reset`` when it says the episode
    is over), measured for ``seconds``, with a progress bar."""
    reset()
    steps, action, start = 0, 0, time.perf_counter()
    for _ in track(range(100), description=f"{name:32}", transient=True):
        while time.perf_counter() - start < seconds * (_ + 1) / 100:
            if step(action):
                reset()
            action, steps = 1 - action, steps + 1
    return steps / (time.perf_counter() - start)


def env_rate(name: str, env: gym.Env, seconds: float) -> float:
    def step(action: int) -> bool:
        _, _, terminated, truncated, _ = env.step(action)
        return terminated or truncated
    return rate(name, lambda: env.reset(seed=0), step, seconds)


def world_rate(seconds: float) -> float:
    world = gym_world(ENV_ID)(seed=0)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(world.new_run())

    def step(action: int) -> bool:
        return loop.run_until_complete(world.execute_action(str(action))).finished
    try:
        return rate("the World object, in process", lambda: loop.run_until_complete(world.reset()), step, seconds)
    finally:
        loop.close()


async def made_in_a_loop(url: str, transport: str) -> WorldEnv:
    """A WorldEnv made where an event loop runs (a notebook cell): its own loop in a thread."""
    return WorldEnv(url, transport=transport)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    args = parser.parse_args()
    rows: list[tuple[str, float]] = [
        ("baseline: gymnasium env in process", env_rate("gymnasium env, in process", gym.make(ENV_ID), args.seconds)),
        ("served World object, in process", world_rate(args.seconds)),
    ]
    with ServerProcess(f"gym:{ENV_ID}", extra=["--tcp-port", "0"]) as server:
        for label, transport, in_a_loop in (("WorldEnv over HTTP", "http", False), ("WorldEnv over TCP", "tcp", False),
                                            ("WorldEnv over TCP, made in a notebook", "tcp", True)):
            env = asyncio.run(made_in_a_loop(server.url, transport)) if in_a_loop else WorldEnv(server.url,
                                                                                                 transport=transport)
            try:
                rows.append((label, env_rate(label, env, args.seconds)))
            finally:
                env.close()
    base = rows[0][1]
    table = Table(title=f"{ENV_ID}: steps per second (one client, loopback)")
    for column in ("measure", "steps/s", "vs baseline"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for name, value in rows:
        table.add_row(name, f"{value:,.0f}", f"{value / base:.4f}x")
    table.add_row("reference: gym-http-api (archived)", "~770", f"{770 / base:.4f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
