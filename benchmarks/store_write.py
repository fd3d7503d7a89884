"""How fast the run store records steps, and what recording costs a fast run loop.

One command: ``.venv/bin/python benchmarks/store_write.py`` (``--steps N``, ``--no-postgres``,
``--url URL`` for one more database). For an SQLite file and a throw-away PostgreSQL cluster,
side by side with baselines measured in the same run, it prints rows per second for
- appending StepRecords to a Python list (the floor: recording that costs nothing),
- ``record_step`` as the run loop sees it (buffered), and through to committed rows,
- one commit per step (what recording without a buffer would cost),
and client steps per second of the real run loop (in-process world and mind) without a
recorder and with the store recording every step, up to and including the final flush in
``finish_run`` (best of ``--repeat`` tries each, interleaved, since the machine is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from sqlalchemy import insert

from wwm import Mind, Outcome, Suggestion, World
from wwm.client.runner import Runner, RunSettings
from wwm.store import RunStore, StepRecord, StoreRecorder, schema
from wwm.store.writer import STEP_COLUMNS, step_row


def steps(n: int) -> list[StepRecord]:
    return [StepRecord(i, f"state {i} " + "x" * 40, f"action {i % 7}", f"state {i + 1} " + "x" * 40,
                       float(i % 3), 0.5, 1e-4, 2e-4, 3e-4, 1e-4) for i in range(n)]


def list_append(records: list[StepRecord]) -> float:
    out: list[StepRecord] = []
    t0 = time.perf_counter()
    for r in records:
        out.append(r)  # noqa: PERF402 - the loop is what is measured
    return len(records) / (time.perf_counter() - t0)


def buffered(url: str, records: list[StepRecord]) -> tuple[float, float]:
    """(rows/s as the caller sees record_step, rows/s until all are committed)."""
    with RunStore(url) as store:
        run_id = store.start_run(mind_url="bench", world_url="bench")
        t0 = time.perf_counter()
        for r in records:
            store.record_step(run_id, r)
        t1 = time.perf_counter()
        store.finish_run(run_id, "completed")
        t2 = time.perf_counter()
    return len(records) / (t1 - t0), len(records) / (t2 - t0)


def unbuffered(url: str, records: list[StepRecord]) -> float:
    """One INSERT and one COMMIT per step."""
    with RunStore(url) as store:
        run_id = store.start_run(mind_url="bench", world_url="bench")
        t0 = time.perf_counter()
        for r in records:
            with store.engine.begin() as conn:
                conn.execute(insert(schema.steps), [dict(zip(STEP_COLUMNS, step_row(run_id, r), strict=True))])
        seconds = time.perf_counter() - t0
        store.finish_run(run_id, "completed")
    return len(records) / seconds


class Line(World):
    def __init__(self) -> None:
        self.i = 0

    async def get_state(self) -> str:
        return f"state {self.i}"

    async def execute_action(self, action: str) -> Outcome:
        self.i += 1
        return Outcome(f"state {self.i}", 1.0)


class Constant(Mind):
    async def get_action(self, state: str) -> Suggestion:
        return Suggestion("go", q=1.0)


def run_loop(n: int, url: str | None) -> float:
    """Client steps per second of the real Runner, recording to ``url`` (or not at all)."""
    settings = RunSettings(steps=n, keepalive=None)

    async def go(recorder: StoreRecorder | None) -> float:
        t0 = time.perf_counter()
        result = await Runner(Constant(), Line(), settings, recorder=recorder).run()
        assert len(result.steps) == n
        return n / (time.perf_counter() - t0)

    if url is None:
        return asyncio.run(go(None))
    with RunStore(url) as store:
        return asyncio.run(go(StoreRecorder(store, mind_url="bench", world_url="bench", settings=settings)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="rows per measurement (default 50,000)")
    parser.add_argument("--loop-steps", type=int, default=20_000, help="run-loop steps (default 20,000)")
    parser.add_argument("--unbuffered-steps", type=int, default=1_000, help="rows for one-commit-per-step")
    parser.add_argument("--no-postgres", action="store_true", help="skip the throw-away PostgreSQL cluster")
    parser.add_argument("--url", action="append", default=[], help="another database URL to measure")
    parser.add_argument("--repeat", type=int, default=3, help="tries per run-loop figure (best is kept)")
    args = parser.parse_args()
    console = Console()
    records = steps(args.steps)

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="wwm-bench-")))
        backends = {"SQLite file": f"sqlite:///{folder / 'runs.db'}"}
        if not args.no_postgres:
            from wwm.store.pgtemp import TempPostgres

            with console.status("starting a throw-away PostgreSQL cluster"):
                backends["PostgreSQL"] = stack.enter_context(TempPostgres()).new_schema()
        for i, url in enumerate(args.url):
            backends[f"--url {i + 1}"] = url

        rows: dict[str, dict[str, str]] = {}
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("measuring", total=1 + len(backends) * (2 + 2 * args.repeat))
            floor = list_append(records)
            progress.advance(task)
            for name, url in backends.items():
                caller, through = buffered(url, records)
                progress.advance(task)
                naive = unbuffered(url, records[: args.unbuffered_steps])
                progress.advance(task)
                loops, bare = [], []
                for _ in range(args.repeat):  # interleaved, so both see the same machine
                    bare.append(run_loop(args.loop_steps, None))
                    progress.advance(task)
                    loops.append(run_loop(args.loop_steps, url))
                    progress.advance(task)
                rows[name] = {
                    "record_step, as the run loop sees it (rows/s)": f"{caller:,.0f}",
                    "buffered, through to committed rows (rows/s)": f"{through:,.0f}",
                    "one commit per step, no buffer (rows/s)": f"{naive:,.0f}",
                    "buffered vs one commit per step": f"{through / naive:,.0f}x",
                    "run loop without a recorder, same moments (steps/s)": f"{max(bare):,.0f}",
                    "run loop recording every step (steps/s)": f"{max(loops):,.0f}",
                    "run loop: share of speed kept when recording": f"{max(loops) / max(bare):.0%}",
                    "run loop: time added per recorded step (µs)":
                        f"{(1 / max(loops) - 1 / max(bare)) * 1e6:.1f}",
                }

    table = Table(title=f"Run store writes ({args.steps:,} rows of ~100 bytes of text; "
                        f"run loop {args.loop_steps:,} steps)")
    table.add_column("measure")
    table.add_column("baseline", justify="right")
    for name in rows:
        table.add_column(name, justify="right")
    baselines = {"record_step, as the run loop sees it (rows/s)": f"{floor:,.0f} (list.append)"}
    for measure in next(iter(rows.values())):
        table.add_row(measure, baselines.get(measure, ""), *(rows[name][measure] for name in rows))
    console.print(table)


if __name__ == "__main__":
    main()
