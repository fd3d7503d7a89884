"""Meta(A) on long observations: ``.venv/bin/python benchmarks/meta_length.py``.

The scripted listener (one ask per character, so the tree is as deep as the observation is
long) through a whole Meta step (act, state, decoding the answer character by character) at
growing lengths, in CPU seconds per character beside the 250-character row measured in the
same run (the most Python's stack allowed before): a ratio near 1 is linear cost. Then the
tree alone at 10,000 and 100,000 characters, and the price of journaling A's answers in
SQLite as they come (what lets a killed server resume) against the memo in memory.
CPU time, not wall-clock time, so a busy machine changes the figures less.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from wwm.meta.agents import Agent
from wwm.meta.hch import HCH, DictMemo
from wwm.meta.messages import Message
from wwm.meta.meta import encode
from wwm.meta.scripted import ScriptedPolicy
from wwm.meta.session import Session, Settings
from wwm.meta.store import Store

TEXT = "a patient who keeps talking, "
APPEND = "what is the list [] with a question mark added at the end?"


def observation(n: int) -> str:
    return (TEXT * (n // len(TEXT) + 1))[:n]


async def meta_step(n: int, store: Store | None = None) -> float:
    """CPU seconds of one Meta(scripted listener) step on an n-character observation."""
    gc.collect()
    settings = Settings(amplify="scripted-listener", budget=10 ** 9, split="all", budget_display="rounded")
    session = Session(settings, ScriptedPolicy("listener"), store or Store())
    if store is not None:
        store.memo.durable = True
    state = observation(n)
    start = time.process_time()
    step = await session.meta.step(state)
    seconds = time.process_time() - start
    assert step.action == state + "?", "the listener's answer came out wrong"
    return seconds


async def tree(n: int) -> float:
    """CPU seconds of the listener's tree alone, n asks deep."""
    gc.collect()
    hch = HCH(Agent(ScriptedPolicy("listener")), 10 ** 9, split="all", memo=DictMemo())
    listed = encode(observation(n)).args[0]
    start = time.process_time()
    answer = await hch.ask(Message.of(APPEND, listed))
    seconds = time.process_time() - start
    assert answer.call.totals()["calls"] == n + 1
    return seconds


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter observations, no 100,000-deep tree")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 100))
    lengths = [250, 1000] if args.quick else [250, 1000, 2000, 4000]
    deep = [10_000] if args.quick else [10_000, 100_000]

    steps = {n: await meta_step(n) for n in track(lengths, description="Meta steps", transient=True)}
    longest = lengths[-1]
    plain = journaled = float("inf")
    for _ in track(range(2), description="journaled or not", transient=True):  # best of two, alternating
        plain = min(plain, await meta_step(longest))
        with tempfile.TemporaryDirectory() as tmp:
            journaled = min(journaled, await meta_step(longest, Store(Path(tmp) / "journal.db")))
    base = steps[250] / 250
    table = Table(title="Meta(scripted listener): one step on an observation of n characters")
    for column in ("what", "n", "CPU s", "ms per character", "vs 250 characters"):
        table.add_column(column, justify="left" if column == "what" else "right")
    for n, seconds in steps.items():
        table.add_row("baseline: a whole Meta step" if n == 250 else "a whole Meta step", f"{n:,}",
                      f"{seconds:.2f}", f"{seconds / n * 1000:.2f}", f"{seconds / n / base:.2f}x")
    for n in track(deep, description="trees", transient=True):
        seconds = await tree(n)
        table.add_row("the tree alone (no decoding)", f"{n:,}", f"{seconds:.2f}", f"{seconds / n * 1000:.3f}",
                      f"{seconds / n / base:.2f}x")
    table.add_row("the same step, A's answers journaled in SQLite", f"{longest:,}", f"{journaled:.2f}",
                  f"{journaled / longest * 1000:.2f}", f"{journaled / longest / base:.2f}x")
    console.print(table)
    console.print(f"journaling as answers come costs {journaled / plain - 1:+.0%} CPU on the {longest:,}-character "
                  f"step (the scripted A answers most screens from the memo, so few answers are written)")


if __name__ == "__main__":
    asyncio.run(main())
