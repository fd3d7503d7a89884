"""Benchmark of the Tileworld discrete core, one command:  python benchmarks/tworld_engine.py

Prints world steps per second side by side, all measured in this run:
- baseline: the project's small grid world (``wwm.kit.grid.GridEngine``) stepping,
- the Tileworld engine stepping (T-World defaults: 9x10, dynamic, γ = 0.35) with random moves,
- the same plus the T-World percept JSON built for the agent every step (what a networked
  agent costs the world), and with the built-in reactive agent deciding every step,
- a 50x50 world (MASON's size) with random moves.
Reference: T-World itself runs in real time at about 2.9 moves per world second per robot.
"""

from __future__ import annotations

import argparse
import random

from timing import print_rates, rate

from wwm.kit.grid import GridEngine
from wwm.tileworld import percepts
from wwm.tileworld.agents import ReactiveAgent
from wwm.tileworld.config import Config, Range
from wwm.tileworld.engine import Engine

MOVES = ("north", "south", "east", "west")


def fresh(config: Config):
    state = {"engine": Engine(config)}

    def engine() -> Engine:
        if state["engine"].finished:
            state["engine"] = Engine(config)
        return state["engine"]
    return engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    args = parser.parse_args()
    rng = random.Random(0)
    grid = GridEngine(size=10, max_steps=10**9)
    cfg = Config(end={"neutral": {"time": 300}})
    rows: list[tuple[str, float]] = []
    rows.append(("baseline: grid world step", rate(lambda: grid.step(rng.choice(MOVES)), args.seconds)))
    tw = fresh(cfg)
    rows.append(("tileworld step, random moves", rate(lambda: tw().step({0: rng.choice(MOVES)}), args.seconds)))
    tw2 = fresh(cfg)

    def with_percept() -> None:
        e = tw2()
        percepts.percept(e, 0)
        e.step({0: rng.choice(MOVES)})
    rows.append(("tileworld step + percept JSON", rate(with_percept, args.seconds)))
    tw3, agent = fresh(cfg), ReactiveAgent()

    def with_agent() -> None:
        e = tw3()
        e.step({0: agent.act(percepts.full(e, 0))})
    rows.append(("tileworld step + reactive agent", rate(with_agent, args.seconds)))
    big = fresh(Config(rows=50, columns=50, num_holes=Range(10, 15), end={"neutral": {"time": 300}}))
    rows.append(("tileworld 50x50 step, random moves", rate(lambda: big().step({0: rng.choice(MOVES)}), args.seconds)))
    print_rates(rows, "steps/s")
    print("reference: T-World runs about 2.9 moves per world second per robot (350 ms a move)")


if __name__ == "__main__":
    main()
