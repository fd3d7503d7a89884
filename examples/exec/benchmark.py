"""How fast is each way of putting a program on the network? Get action round trips per
second for the example minds behind ``wwm serve-exec`` (one process per query vs one per
run), beside a Python mind served by ``wwm serve`` and the exec transports without HTTP,
all measured in the same run on loopback.

    .venv/bin/python examples/exec/benchmark.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wwm.client.remote import RemoteMind
from wwm.server.exec import PerQueryTransport, PersistentTransport
from wwm.server.process import ServerProcess, free_port

HERE = Path(__file__).resolve().parent
STATE = "size=8 step=0 x=4 y=4 fd=2 hd=6 food=4,6;1,1;7,2 hazard=0,0;7,7"


async def rate(mind: RemoteMind, seconds: float) -> tuple[float, int]:
    await mind.new_run()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        await mind.get_action(STATE)
        count += 1
    elapsed = time.perf_counter() - start
    await mind.end_run()
    await mind.aclose()
    return count / elapsed, count


def serve_exec(mode: str, *program: str) -> ServerProcess:
    port = free_port()
    return ServerProcess("serve-exec", port=port, command=[
        sys.executable, "-m", "wwm.cli.main", "serve-exec", "--mode", mode, "--port", str(port),
        "--", *program])


async def main(seconds: float) -> None:
    work = Path(tempfile.mkdtemp(prefix="wwm-bench-"))
    binary = work / "mind"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(HERE / "mind.c")], check=True)
    rows: list[tuple[str, str, float, int]] = []

    for label, transport in [
        ("C, per-query", PerQueryTransport([str(binary)], workdir=work)),
        ("C, persistent", PersistentTransport([str(binary)], workdir=work)),
    ]:
        rows.append((label, "transport only (no HTTP)", *await rate(RemoteMind(transport), seconds)))

    servers = [
        ("Python FoodSeeker (baseline)", "wwm serve, HTTP", ServerProcess("wwm.kit.grid_minds:FoodSeeker")),
        ("C, per-query", "serve-exec, HTTP", serve_exec("per-query", str(binary))),
        ("C, persistent", "serve-exec, HTTP", serve_exec("persistent", str(binary))),
        ("JavaScript, persistent", "serve-exec, HTTP", serve_exec("persistent", "node", str(HERE / "mind.js"))),
        ("shell, per-query", "serve-exec, HTTP", serve_exec("per-query", "sh", str(HERE / "mind.sh"))),
    ]
    for label, how, server in servers:
        with server:
            rows.append((label, how, *await rate(RemoteMind(server.url, encoding="xml"), seconds)))

    baseline = next(r[2] for r in rows if "baseline" in r[0])
    table = Table(title=f"Get action round trips, {seconds:g} s each, loopback")
    for column in ("mind", "path", "queries/s", "queries", "vs Python over HTTP"):
        table.add_column(column, justify="right" if column[0] in "qv" else "left")
    for label, how, per_second, count in rows:
        table.add_row(label, how, f"{per_second:,.0f}", str(count), f"{per_second / baseline:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    asyncio.run(main(parser.parse_args().seconds))
