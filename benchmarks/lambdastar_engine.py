"""Benchmark of the Λ* test, one command:  .venv/bin/python benchmarks/lambdastar_engine.py

The issue's workload: 1,000 episodes of 100 iterations on a 10x10 grid with one local-search
agent and one random agent (each sitting the same episodes, as the authors' code runs agent
types side by side). eps/s = episodes of the workload, both agent types, per second.

1. Engines: the plain engine (the baseline, measured in this run) against the vectorised
   engine on a battery built beforehand; both must give identical scores.
2. End to end, as ``wwm lambdastar --agents local,random`` runs once started: settings in,
   results out (patterns, their complexity K, start cells and draws, the agents, Υ and the
   per-K bands), nothing cached; the time by phase, against the plain engine's end to end
   and the authors' C++ code (about 6,000 episodes/s of this workload on this kind of
   machine, single-threaded: a reference figure, not measured here; target 5x that).
3. The command as a process (``wwm lambdastar ... --no-plots``, 1x and 10x the episodes),
   beside the floor every Python command pays: starting Python and importing numpy,
   measured in this run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from wwm.lambdastar import phases, sweep, vector
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.harness import Setting, play

CPP_REFERENCE = 6000.0  # episodes/s, authors' C++ code, same workload (issue 4)
TEAMS = (Setting("local", 1), Setting("random", 1))
PHASES = ("patterns", "complexity", "battery", "starts and draws", "agents", "scoring")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--grid", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=15, help="timed runs (the best is kept)")
    args = parser.parse_args()
    E = args.episodes
    print(f"workload: {E} episodes x {args.iterations} iterations, {args.grid}x{args.grid}, "
          f"one local-search agent + one random agent\n")
    for profile in ("original", "paper"):  # warm-up (imports, first numpy calls): not timed
        warm = build(BatterySpec(args.grid, args.iterations, 20, profile, seed=99))
        [vector.play(s, warm) for s in TEAMS]

    print("1. engines, battery built beforehand")
    print(f"{'profile':9} {'plain eps/s':>12} {'vector eps/s':>13} {'vector/plain':>13}  same scores")
    plain_rates = {}
    for profile in ("original", "paper"):
        episodes = build(BatterySpec(args.grid, args.iterations, E, profile, seed=1))
        episodes.starts(1), episodes.draws(0)
        t0 = time.perf_counter()
        plain = [play(s, episodes) for s in TEAMS]
        plain_rates[profile] = E / (time.perf_counter() - t0)
        best = min(_timed(lambda: [vector.play(s, episodes) for s in TEAMS])  # noqa: B023
                   for _ in range(args.repeat))
        fast = [vector.play(s, episodes) for s in TEAMS]
        same = all(np.array_equal(a.scores, b.scores) for a, b in zip(plain, fast, strict=True))
        print(f"{profile:9} {plain_rates[profile]:12,.0f} {E / best:13,.0f} "
              f"{E / best / plain_rates[profile]:12.0f}x  {same}")

    cpu_rates: dict[str, float] = {}
    print("\n2. end to end in process (settings -> results, battery included), best of "
          f"{args.repeat}; ms by phase")
    print(f"{'profile':9} " + " ".join(f"{p[:10]:>10}" for p in PHASES)
          + f" {'total ms':>9} {'eps/s':>8} {'x plain':>8} {'x C++':>6}")
    for profile in ("original", "paper"):
        jobs = sweep.jobs([s.agent for s in TEAMS], episodes=E, iterations=args.iterations,
                          grids=[args.grid], seeds=[1], profile=profile)
        runs = []
        for _ in range(args.repeat):
            sweep._battery.cache_clear()  # nothing kept from the last run
            cpu = time.process_time()
            with phases.collect() as spent:
                total = _timed(lambda: sweep.run(jobs))  # noqa: B023 (called at once)
            runs.append((total, time.process_time() - cpu, dict(spent)))
        total, _, spent = min(runs, key=lambda r: r[0])
        cpu = min(r[1] for r in runs)
        cpu_rates[profile] = E / cpu
        # the plain engine end to end: the same battery, then the plain engine
        plain_total = (spent.get("patterns", 0) + spent.get("complexity", 0)
                       + spent.get("starts and draws", 0) + E / plain_rates[profile])
        rate = E / total
        print(f"{profile:9} " + " ".join(f"{1e3 * spent.get(p, 0.0):10.2f}" for p in PHASES)
              + f" {1e3 * total:9.1f} {rate:8,.0f} {plain_total / total:7.0f}x {rate / CPP_REFERENCE:5.1f}x")
    print(f"C++ reference: {CPP_REFERENCE:,.0f} episodes/s; target 5x = {5 * CPP_REFERENCE:,.0f}")
    print("processor time of the same runs (what the work costs when other programs share the "
          "processor): " + ", ".join(f"{p} {r:,.0f} eps per CPU-second ({r / CPP_REFERENCE:.1f}x C++)"
                                     for p, r in cpu_rates.items()))
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} processors")

    print("\n3. the command as a process (bytecode cached, as after an install; best of 3)")
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
        # the modules' bytecode goes to a folder of its own (not into the source tree), so
        # the runs after the first do not compile them again
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        floor = min(_process([sys.executable, "-c", "import numpy"], env) for _ in range(4))
        print(f"python + numpy start-up (the floor of any such command): {floor:6.3f} s")
        for episodes in (E, 10 * E):
            wwm = [sys.executable, "-c", "from wwm.cli.main import main; raise SystemExit(main())",
                   "lambdastar", "--agents", "local,random", "--episodes", str(episodes),
                   "--iterations", str(args.iterations), "--grid", str(args.grid), "--no-plots",
                   "--out", out]
            command = min(_process(wwm, env) for _ in range(4))
            print(f"wwm lambdastar, {episodes:6} episodes: {command:6.3f} s = {episodes / command:7,.0f} "
                  f"eps/s, {episodes / command / CPP_REFERENCE:4.1f}x C++ (above the floor: "
                  f"{command - floor:.3f} s)")


def _timed(work) -> float:
    t0 = time.perf_counter()
    work()
    return time.perf_counter() - t0


def _process(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if done.returncode != 0:  # the process failed: its time measures nothing, so stop with its error
        raise SystemExit(f"{' '.join(argv[:4])} failed (exit status {done.returncode}):\n"
                         f"{done.stderr.decode(errors='replace')[-3000:]}")
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
