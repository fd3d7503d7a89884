"""Automated search over societies (issue 15), one command:

    .venv/bin/python benchmarks/search.py [--seeds 12] [--budget 60] [--trials 24] [--plot FILE]

Two measurements, each beside its baseline from the same run:

1. **Samplers against random search** on the Signal World (``wwm.search.testbed``: two
   specialists that together know every signal, four saboteurs and two guessers; the best
   society answers every step, so the best score is known). For each sampler and seed, a
   search of ``--budget`` trials (30 steps on two world seeds per candidate), in process (the
   same classes the served test bed runs, so that many seeds take a minute): how many seeds
   reach 90% of the best, the median number of trials to get there, and the mean best-so-far
   score after a third, two thirds and all of the budget. Baseline: random search with the
   same budget and seeds. ``--plot`` saves both curves (mean best so far by trial).
2. **Trials per minute**, the test bed served as ten real processes: one evaluation run alone
   (the floor: what one trial costs), a search of ``--trials`` trials by one worker, and by
   three worker processes sharing one study in a throw-away PostgreSQL cluster (SQLite when
   PostgreSQL is not installed).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from wwm.search import SearchSettings, build, search
from wwm.search.candidates import society_of
from wwm.search.evaluation import evaluate
from wwm.search.report import best_so_far

BED = "wwm.search.testbed"
AS = "wwm.selection.mind_as:ActionSelectionMind"
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {
    "g1": ("GuesserMind", {}), "s1": ("SaboteurMind", {}), "ab": ("SpecialistMind", {"knows": "a,b"}),
    "s2": ("SaboteurMind", {"q": 3.0}), "g2": ("GuesserMind", {"seed": 2}), "s3": ("SaboteurMind", {"q": 1.5}),
    "cd": ("SpecialistMind", {"knows": "c,d"}), "s4": ("SaboteurMind", {"q": 4.0}),
}
STEPS, SEEDS, MARGIN = 30, [0, 1], 0.9
CHOOSE = {"methods": ["w=q", "static-w", "most-popular", "random"], "strengths": {"low": 0.1, "high": 10}}
console = Console()


def local_space() -> dict[str, Any]:
    return {"name": "signal", "world": {"class": f"{BED}:SignalWorld"},
            "mind": {"class": AS, "args": {"seed": 0}},
            "minds": {n: {"class": f"{BED}:{cls}", "args": args} for n, (cls, args) in CANDIDATES.items()},
            "choose": CHOOSE, "seeds": SEEDS, "run": {"steps": STEPS}}


def served_space(urls: dict[str, str]) -> dict[str, Any]:
    return {"name": "signal", "world": {"url": urls["world"]}, "mind": {"url": urls["as"], "args": {"seed": 0}},
            "minds": {n: {"url": urls[n]} for n in CANDIDATES}, "choose": CHOOSE, "seeds": SEEDS,
            "run": {"steps": STEPS, "timeout": 10.0}}


# ---- 1. samplers against random search ------------------------------------------------------

def samplers(seeds: int, budget: int, names: list[str], plot: str | None) -> None:
    space = build(local_space(), "benchmark")
    best = STEPS          # a candidate's score is its mean over the world seeds
    curves: dict[str, list[list[float]]] = {n: [] for n in names}
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("searching", total=seeds * len(names))
        for name in names:
            for seed in range(seeds):
                out = asyncio.run(search(space, SearchSettings(trials=budget, sampler=name, seed=seed, parallel=1,
                                                               prune=False)))
                curve = [b if math.isfinite(b) else float("nan") for b in best_so_far(out.study)]
                curves[name].append(curve)
                bar.update(task, advance=1, description=f"{name} seed {seed}")
    marks = [budget // 3, 2 * budget // 3, budget]
    table = Table(title=f"Signal World: {budget} trials per search, {seeds} seeds; best score {best:g}; "
                        f"found = at least {MARGIN:.0%} of it; baseline: random search, same budget and seeds")
    for col in ("sampler", "found", "median trials to find", *[f"best after {m}" for m in marks],
                "random's median / this"):
        table.add_column(col, justify="left" if col == "sampler" else "right")
    rows = []
    for name, cs in curves.items():
        found = [next((i + 1 for i, b in enumerate(c) if b >= MARGIN * best), None) for c in cs]
        median = statistics.median([f if f is not None else budget + 1 for f in found])
        means = [statistics.fmean(c[m - 1] for c in cs if not math.isnan(c[m - 1])) for m in marks]
        rows.append((name, sum(f is not None for f in found), median, means))
    base = next((median for name, _, median, _ in rows if name == "random"), None)
    for name, hits, median, means in rows:
        ratio = f"{base / median:.2f}×" if base and name != "random" else ""
        table.add_row(name, f"{hits}/{seeds}", f"{median:g}" if median <= budget else f"> {budget}",
                      *[f"{v:.1f}" for v in means], ratio)
    console.print(table)
    if plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4.5))
        for name, cs in curves.items():
            mean = [statistics.fmean(v for v in col if not math.isnan(v)) if any(not math.isnan(v) for v in col)
                    else float("nan") for col in zip(*cs, strict=True)]
            ax.plot(range(1, len(mean) + 1), mean, label=name)
        ax.axhline(MARGIN * best, color="#999999", lw=0.8, ls="--", label=f"{MARGIN:.0%} of the best")
        ax.set_xlabel("trial")
        ax.set_ylabel(f"best score so far (mean over {seeds} seeds)")
        ax.set_title("Searching the Signal World's societies: samplers against random search")
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(plot)
        console.print(f"curves saved to {plot}")


# ---- 2. trials per minute --------------------------------------------------------------------

def serve_bed() -> tuple[dict[str, str], list[Any]]:
    from wwm.server.process import ServerProcess

    servers = {"world": ServerProcess(f"{BED}:SignalWorld"), "as": ServerProcess(AS)}
    for name, (cls, args) in CANDIDATES.items():
        servers[name] = ServerProcess(f"{BED}:{cls}", args)
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(lambda s: s.start(), servers.values()))
    return {n: s.url for n, s in servers.items()}, list(servers.values())


def throughput(trials: int) -> None:
    urls, servers = serve_bed()
    rows: list[tuple[str, float, float]] = []
    try:
        doc = served_space(urls)
        space = build(doc, "benchmark")
        one = society_of(space, ["ab", "cd", "g1"], "w=q")
        times = []
        for _ in range(5):
            ev = asyncio.run(evaluate(one.document, space.seeds))
            times.append(ev.seconds)
        floor = statistics.median(times)
        rows.append(("one evaluation alone (floor)", floor, 60 / floor))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "space.yaml"
            path.write_text(yaml.safe_dump(doc))
            for workers in (1, 3):
                storage, cluster = storage_url(Path(tmp) / f"study{workers}.db")
                try:
                    started = time.perf_counter()
                    procs = [subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "search", str(path),
                                               "--trials", str(trials), "--parallel", "1", "--seed", "1",
                                               "--worker", str(k), "--storage", storage, "--study", "bench",
                                               "--no-prune", "-q"], stdout=subprocess.DEVNULL,
                                              stderr=subprocess.PIPE, start_new_session=True)
                             for k in range(workers)]
                    errors = [(p, p.communicate(timeout=600)[1]) for p in procs]
                    seconds = time.perf_counter() - started
                    # a worker that failed (a missing database driver, say) stops the benchmark
                    # with its error: its trials are not in the seconds measured
                    failed = [(p.returncode, err) for p, err in errors if p.returncode != 0]
                    if failed:
                        code, err = failed[0]
                        raise SystemExit(f"search.py: {len(failed)} of {workers} search worker(s) failed "
                                         f"(exit status {code}):\n{err.decode(errors='replace')[-3000:]}")
                finally:
                    if cluster is not None:
                        cluster.stop()
                rows.append((f"{workers} worker process{'es' * (workers > 1)}, {trials} trials", seconds,
                             trials * 60 / seconds))
    finally:
        for s in servers:
            s.stop()
    table = Table(title=f"Trials per minute, the test bed served as {len(servers)} processes "
                        f"({STEPS} steps × {len(SEEDS)} seeds per trial; ratios to one worker)")
    for col in ("what", "seconds", "trials/min", "vs 1 worker"):
        table.add_column(col, justify="left" if col == "what" else "right")
    one_worker = rows[1][2]
    for what, seconds, rate in rows:
        table.add_row(what, f"{seconds:.2f}", f"{rate:.0f}", f"{rate / one_worker:.2f}×")
    console.print(table)
    console.print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; a search process's own "
                  "start-up (Python, Optuna) is inside its seconds")


def storage_url(sqlite: Path) -> tuple[str, Any]:
    """A throw-away PostgreSQL database if PostgreSQL is installed, else an SQLite file."""
    try:
        from wwm.store.pgtemp import TempPostgres

        cluster = TempPostgres()
        cluster.start()
        return cluster.url(), cluster
    except Exception:
        return f"sqlite:///{sqlite}", None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=12, help="searches per sampler (default 12)")
    parser.add_argument("--budget", type=int, default=60, help="trials per search in part 1 (default 60)")
    parser.add_argument("--samplers", default="cmaes,tpe,nsga2,random", help="samplers of part 1")
    parser.add_argument("--trials", type=int, default=120, help="trials per search in part 2 (default 120)")
    parser.add_argument("--plot", help="save part 1's curves here (PNG)")
    parser.add_argument("--skip", choices=["samplers", "throughput"], help="leave one part out")
    args = parser.parse_args()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.skip != "samplers":
        samplers(args.seeds, args.budget, [s.strip() for s in args.samplers.split(",") if s.strip()], args.plot)
    if args.skip != "throughput":
        throughput(args.trials)


if __name__ == "__main__":
    main()
