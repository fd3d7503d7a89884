"""Decision latency of an AS server over 100 mind servers' runs, some of which never answer.

Claim (section 8.3.1): because an AS asks all its minds in parallel and decides on whatever
came back within its time-out, a step costs about one time-out plus a small overhead however
many minds hang, not a multiple of it. Baseline, measured in the same run: asking the same
minds one after another, each with the same time-out.

    .venv/bin/python benchmarks/as_latency.py [--minds 100] [--timeout 0.5] [--steps 10]

Minds: runs of a quick Mind_i on four server processes, plus runs of a mind that never
answers on a fifth (one process per silent mind would only add start-up time).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from wwm import CompetingMind, Suggestion, Values


class QuickMind(CompetingMind):
    """Answers at once: action "a", Q = W = 1."""

    async def get_action(self, state: str, **step) -> Suggestion:
        return Suggestion("a", q=1.0)

    async def get_suggestion(self, state: str, **step) -> Suggestion:
        return Suggestion("a", q=1.0, w=1.0)

    async def inform_winner(self, state: str, obeyed=None, payment=None, winner_url=None,
                            action=None, score=None) -> Values:
        return Values(w=0.0)


class NeverMind(CompetingMind):
    """Never answers a suggestion (a hung server)."""

    async def get_action(self, state: str, **step) -> Suggestion:
        await asyncio.sleep(3600)
        return Suggestion.cannot()

    async def get_suggestion(self, state: str, **step) -> Suggestion:
        return await self.get_action(state)


async def parallel(urls: list[str], timeout: float, steps: int) -> list[float]:
    """The AS server's own decision: every step = Get action + Inform it about state."""
    from wwm.selection import ActionSelectionMind

    society = ActionSelectionMind(urls, method="w=q", timeout=timeout)
    await society.new_run("urn:wwm:benchmark")
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        s = await society.get_action("x")
        times.append(time.perf_counter() - t0)
        assert s.action == "a"
        await society.inform("x", 0.0)
    await society.end_run()
    return times


async def sequential(urls: list[str], timeout: float, steps: int) -> list[float]:
    """Baseline: the same Mind_i queries, one mind after another, each with the time-out."""
    from wwm.client.remote import connect_mind

    minds = [connect_mind(u, timeout=None) for u in urls]
    await asyncio.gather(*(m.new_run("urn:wwm:benchmark") for m in minds))
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        for m in minds:
            try:
                await asyncio.wait_for(m.get_suggestion("x"), timeout)
            except TimeoutError:
                pass
        times.append(time.perf_counter() - t0)
    for m in minds:
        await m.aclose()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minds", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=0.5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--silent", default="0,1,5", help="numbers of silent minds to try")
    args = parser.parse_args()
    try:
        silent = [int(v) for v in args.silent.split(",")]
    except ValueError:
        parser.error(f"--silent takes whole numbers separated by commas, not {args.silent!r}")
    if args.minds < 1 or args.timeout <= 0 or args.steps < 1:
        parser.error("--minds and --steps must be at least 1 and --timeout positive")
    if any(not 0 <= k <= args.minds for k in silent):
        parser.error(f"--silent: each number must be between 0 and --minds ({args.minds})")
    from rich.console import Console
    from rich.table import Table

    from wwm.server.process import ServerProcess

    here = Path(__file__).resolve()
    quick = [ServerProcess(f"{here}:QuickMind") for _ in range(4)]
    never = ServerProcess(f"{here}:NeverMind")
    console = Console()
    for p in quick + [never]:
        p.start()
    table = Table(title=f"AS decision latency over {args.minds} minds, time-out {args.timeout:g} s "
                        f"(median of {args.steps} steps)")
    for col in ("silent minds", "parallel AS (s)", "minus time-out (s)", "one by one (s)", "one by one / parallel"):
        table.add_column(col, justify="right")
    try:
        for k in silent:
            urls = [quick[i % 4].url for i in range(args.minds - k)] + [never.url] * k
            par = statistics.median(asyncio.run(parallel(urls, args.timeout, args.steps)))
            seq_steps = max(1, min(args.steps, 3))
            seq = statistics.median(asyncio.run(sequential(urls, args.timeout, seq_steps)))
            table.add_row(str(k), f"{par:.3f}", f"{par - (args.timeout if k else 0):.3f}",
                          f"{seq:.3f}", f"{seq / par:.1f}x")
    finally:
        for p in quick + [never]:
            p.stop()
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
