"""A Feudal hierarchy against a flat learner: ``.venv/bin/python benchmarks/feudal.py``.

In the shuttle corridor (``wwm.selection.corridor``), a Feudal lord over one Feudal
Q-learning servant (both learning from nothing) and a flat Q-learner, the same steps, Boltzmann
temperatures and seeds, in one process (the same classes the servers serve). Prints each
seed's arrivals at the goal end and the ratio lord / flat (above 1: the hierarchy does
better). Nothing learnt is kept between seeds (a fresh knowledge directory).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile

from rich.console import Console
from rich.progress import track
from rich.table import Table

from wwm.client.runner import RunSettings, run
from wwm.selection.corridor import CorridorWorld
from wwm.selection.learning import FeudalLord, FeudalQMind, QLearningMind


async def one_seed(seed: int, length: int, steps: int, temperature: float) -> tuple[float, float]:
    settings = RunSettings(steps=steps, keepalive=None, client_url=f"http://seed{seed}.example/")
    servant = FeudalQMind(actions="left,right", q_temperature=temperature, run_length=steps, seed=seed)
    lord = FeudalLord([servant], orders=f"pos=0;pos={length // 2};pos={length - 1}", view="pos",
                      q_temperature=temperature, run_length=steps, seed=seed)
    flat = QLearningMind(actions="left,right", q_temperature=temperature, run_length=steps, seed=seed)
    hierarchy = await run(lord, CorridorWorld(length=length), settings)
    baseline = await run(flat, CorridorWorld(length=length), settings)
    return hierarchy.total_score, baseline.total_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--length", type=int, default=8, help="cells of the corridor")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--temperature", type=float, default=0.2, help="Q-temperature at the start")
    args = parser.parse_args()
    os.environ["WWM_KNOWLEDGE_DIR"] = tempfile.mkdtemp(prefix="wwm-feudal-bench-")  # nothing kept
    rows = [asyncio.run(one_seed(seed, args.length, args.steps, args.temperature))
            for seed in track(range(args.seeds), description="seeds")]
    table = Table(title=f"arrivals in {args.steps} steps, corridor of {args.length}")
    for name in ("seed", "lord + servant", "flat Q-learner"):
        table.add_column(name, justify="right")
    for seed, (lord, flat) in enumerate(rows):
        table.add_row(str(seed), f"{lord:g}", f"{flat:g}")
    lords, flats = [r[0] for r in rows], [r[1] for r in rows]
    table.add_row("mean", f"{statistics.mean(lords):.1f}", f"{statistics.mean(flats):.1f}")
    console = Console()
    console.print(table)
    ratio = statistics.mean(lords) / max(statistics.mean(flats), 1e-9)
    wins = sum(a > b for a, b in rows)
    ties = sum(a == b for a, b in rows)
    console.print(f"lord / flat = {ratio:.2f}  (lord ahead on {wins}, level on {ties}, "
                  f"behind on {len(rows) - wins - ties} of {len(rows)} seeds)")


if __name__ == "__main__":
    main()
