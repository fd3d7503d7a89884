"""Benchmark of the Λ* engines, one command:  .venv/bin/python benchmarks/lambdastar_engine.py

The issue's workload: 1,000 episodes of 100 iterations on a 10x10 grid with one local-search
agent and one random agent (each sitting the same episodes, as the authors' code runs agent
types side by side). Prints episodes per second of the plain engine (the baseline, measured
in this run) and of the vectorised engine side by side, checks that both give identical
scores, and compares with the authors' C++ code (about 6,000 episodes per second of this
workload on this kind of machine, single-threaded: a reference figure, not measured here).
Battery generation (patterns, LZ complexity, start cells, draws) is timed separately; the
"with battery" column is the vectorised rate including it (eps/s = episodes of the workload,
both agent types, per second).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wwm.lambdastar import vector
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.harness import Setting, play

CPP_REFERENCE = 6000.0  # episodes/s, authors' C++ code, same workload (issue 4)
TEAMS = (Setting("local", 1), Setting("random", 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--grid", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="vectorised runs (best is kept)")
    args = parser.parse_args()
    print(f"workload: {args.episodes} episodes x {args.iterations} iterations, "
          f"{args.grid}x{args.grid}, one local-search agent + one random agent\n")
    print(f"{'profile':9} {'battery s':>10} {'plain eps/s':>12} {'vector eps/s':>13} "
          f"{'vector/plain':>13} {'vector/C++':>11} {'with battery':>13}  same scores")
    for profile in ("original", "paper"):  # warm-up (imports, first numpy calls): not timed
        warm = build(BatterySpec(args.grid, args.iterations, 20, profile, seed=99))
        [vector.play(s, warm) for s in TEAMS]
    for profile in ("original", "paper"):
        t0 = time.perf_counter()
        episodes = build(BatterySpec(args.grid, args.iterations, args.episodes, profile, seed=1))
        episodes.starts(1), episodes.draws(0)
        battery = time.perf_counter() - t0

        t0 = time.perf_counter()
        plain = [play(s, episodes) for s in TEAMS]
        plain_rate = args.episodes / (time.perf_counter() - t0)

        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fast = [vector.play(s, episodes) for s in TEAMS]
            best = min(best, time.perf_counter() - t0)
        vector_rate = args.episodes / best
        same = all(np.array_equal(a.scores, b.scores) for a, b in zip(plain, fast, strict=True))
        end_to_end = args.episodes / (battery + best)
        print(f"{profile:9} {battery:10.3f} {plain_rate:12,.0f} {vector_rate:13,.0f} "
              f"{vector_rate / plain_rate:12.1f}x {vector_rate / CPP_REFERENCE:10.1f}x "
              f"{end_to_end:13,.0f}  {same}")
        print(f"{'':9} Υ local {fast[0].upsilon:+.4f}, random {fast[1].upsilon:+.4f}")
    print(f"\nC++ reference: {CPP_REFERENCE:,.0f} episodes/s (target: vectorised >= 5x that = "
          f"{5 * CPP_REFERENCE:,.0f})")


if __name__ == "__main__":
    main()
