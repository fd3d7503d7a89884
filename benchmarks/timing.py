"""What the engine benchmarks share: a rate measured for a fixed time, and the table of rates
beside the run's baseline (the first row)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable


def rate(body: Callable[[], object], seconds: float, batch: int = 50) -> float:
    """Calls of ``body`` per second, over ``seconds`` (checked every ``batch`` calls)."""
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(batch):
            body()
        calls += batch
    return calls / (time.perf_counter() - start)


async def arate(body: Callable[[], Awaitable[object]], seconds: float, batch: int = 20) -> float:
    """Awaits of ``body`` per second, over ``seconds``."""
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(batch):
            await body()
        calls += batch
    return calls / (time.perf_counter() - start)


def print_rates(rows: list[tuple[str, float]], unit: str, width: int = 40, digits: int = 2) -> None:
    """Each row's rate and its ratio to the first row's, measured in the same run."""
    base = rows[0][1]
    print(f"{'measure':{width}} {unit:>12} {'vs baseline':>12}")
    for name, value in rows:
        print(f"{name:{width}} {value:12,.0f} {value / base:11.{digits}f}x")
