"""Benchmark of the network layer, one command:  python benchmarks/network.py [--seconds S]

Prints side by side, all measured in this run on this machine:
- the floor: a bare round trip of 100 bytes to an echo server in another process (what any
  protocol between two processes pays here; every 'vs echo' ratio divides by it), and the
  in-process loop (local objects, no network),
- one client over HTTP: single queries ("Execute action" on a world), and full client steps
  through the real run loop (Get action, Execute action, Inform), with Inform and the next Get
  action sent back to back (the default) and one query per round trip,
- one client over the persistent bindings (WebSocket, plain TCP frames), measured in short
  turns with the bare echo round trip, the least JSON request/response of
  ``json_floor_server.py`` (what any binding of the protocol costs at least) and HTTP queries,
  so a change in the machine's load during the run touches them alike; their "vs echo"
  divides by that echo (its own row), and a second table gives the CPU each side spent per
  round trip in those turns (the client's thread, the server's whole process): the part of a
  query's time that is the protocol's (``--only bindings`` measures these alone),
- 50 concurrent runs on one server process, driven by a separate load generator
  (``loadgen.py``), with p50/p99 latency: single queries over raw sockets, and full steps
  through the real run loop (a World and a Mind server, HTTP and TCP); the same server on
  Granian beside uvicorn,
- the same client rows with client and servers on one core (``--no-one-core`` skips them):
  an exchange that strictly alternates loses nothing by sharing a core, and no wake-up then
  crosses cores, so what is left is the protocol's own cost.
Reference figures from the issue (same kind of machine): gym-http-api ~770/s, dm_env_rpc
~1,600-2,300/s, Starlette+httpx ~2,000/s, websocket 5,000-11,000/s, bare echo ~15,000/s.
Targets are ratios to a baseline measured in the same run, never absolute rates (a quiet
machine meets an absolute rate a busy one misses with the same ratio): HTTP single queries at
least 0.33 of the bare echo, full steps 0.11 of it, 50 concurrent runs 0.5 of it (the old
5,000/s, 1,700/s and 8,000/s over the reference echo's ~15,000/s); each persistent binding
at least 0.8 of the least World binding (``json_floor_server.py --world``: the floor plus a
run, a method and an Outcome) measured taking turns with it (issue 18: 0.7 of the bare echo
is past what any binding that calls a Python World reaches).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

# bench_servers.py sits beside this script, and Python puts the script's folder first on sys.path
from bench_servers import ConstantMind, CounterWorld

from wwm.client import RemoteMind, RemoteWorld
from wwm.client.runner import Runner, RunSettings
from wwm.server.process import ServerProcess

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
# each target: a fraction of the row's baseline (the bare echo), measured in the same run
TARGETS = {"http_query": 0.33, "http_step": 0.11, "concurrent": 0.5}
BINDINGS_TARGET = 0.8  # each persistent binding, of the least World binding measured with it


class EchoProcess:
    """The bare echo server of ``echo_server.py`` in its own process (or another helper
    server that prints "ready PORT" the same way, such as ``json_floor_server.py``)."""

    def __init__(self, script: str = "echo_server.py", *args: str) -> None:
        self.script = script
        self.args = args

    def __enter__(self) -> EchoProcess:
        self.process = subprocess.Popen([sys.executable, str(HERE / self.script), "0", *self.args],
                                        stdout=subprocess.PIPE, text=True, env={**os.environ, **ENV})
        self.port = int(self.process.stdout.readline().split()[1])  # "ready PORT"
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(5)


async def echo_round_trips(port: int, seconds: float) -> float:
    """Round trips of 100 bytes to an echo server in another process: the floor any protocol
    between two processes pays on this machine."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        writer.write(b"x" * 100)
        await reader.read(4096)
        n += 1
    elapsed = time.perf_counter() - start
    writer.close()
    await writer.wait_closed()
    return n / elapsed


def process_cpu(pid: int) -> float:
    """CPU seconds a process has used (user and system, from /proc; 0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Turns:
    """One kind of round trip measured in turns: how many, in how long, with how much CPU."""
    count: int = 0
    seconds: float = 0.0
    client_cpu: float = 0.0   # this thread's CPU seconds
    server_cpu: float = 0.0   # the server process's CPU seconds

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def per_trip(self, cpu: float) -> float:
        """Microseconds of ``cpu`` per round trip."""
        return cpu / self.count * 1e6 if self.count else 0.0


async def taking_turns(echo: EchoProcess, servers: dict[str, ServerProcess], seconds: float,
                       turn: float = 0.2, floor: EchoProcess | None = None,
                       world_floor: EchoProcess | None = None) -> dict[str, Turns]:
    """Bare echo round trips and Execute action queries over each binding of ``servers`` (its
    name: the server process it queries, one per binding, as one client's server would be:
    a binding measured on a server process that also held another binding's connection was
    10-15% slower, whichever it was), in turns
    of ``turn`` seconds until each had ``seconds``: each measured only while the others wait,
    so all meet the same load of the machine, with the CPU each side spent (this thread's;
    the server's whole process). With ``floor`` (a ``json_floor_server.py``), its least JSON
    request/response takes turns too, as "floor"; with ``world_floor`` (the same, run with
    ``--world``), the least World binding, as "world floor"."""
    reader, writer = await asyncio.open_connection("127.0.0.1", echo.port)

    async def echo_trip() -> None:
        writer.write(b"x" * 100)
        await reader.read(4096)

    worlds = {name: RemoteWorld(server.url, transport=name) for name, server in servers.items()}
    trips: dict[str, tuple[Any, int]] = {"echo": (echo_trip, echo.process.pid)}
    if floor is not None:
        from json_floor_server import connect

        floor_client = await connect(floor.port)
        trips["floor"] = (partial(floor_client.execute_action, "go"), floor.process.pid)
    if world_floor is not None:
        from json_floor_server import connect

        world_floor_client = await connect(world_floor.port, world=True)
        trips["world floor"] = (partial(world_floor_client.execute_action, "go"), world_floor.process.pid)
    for name, world in worlds.items():
        await world.new_run()
        trips[name] = (partial(world.execute_action, "go"), servers[name].process.pid)
    for one, _ in trips.values():
        await timed(0.2, one)  # warm up
    out = {name: Turns() for name in trips}
    order, rounds = list(trips), 0
    while min(t.seconds for t in out.values()) < seconds:
        # each round in another order: a round trip measured right after another binding of
        # the same server process was measured 10-15% slower than one measured first
        for name in order[rounds % len(order):] + order[:rounds % len(order)]:
            one, pid = trips[name]
            n, server_cpu, client_cpu = 0, process_cpu(pid), time.thread_time()
            start = time.perf_counter()
            deadline = start + turn
            while time.perf_counter() < deadline:
                for _ in range(20):
                    await one()
                n += 20
            t = out[name]
            t.seconds += time.perf_counter() - start
            t.client_cpu += time.thread_time() - client_cpu
            t.server_cpu += process_cpu(pid) - server_cpu
            t.count += n
        rounds += 1
    for world in worlds.values():
        await world.end_run()
        await world.aclose()
    writer.close()
    await writer.wait_closed()
    return out


async def timed(seconds: float, one) -> float:
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            await one()
        n += 50
    return n / (time.perf_counter() - start)


async def in_process_steps(seconds: float) -> float:
    world, mind = CounterWorld(), ConstantMind()
    await world.new_run()
    await mind.new_run()

    async def step():
        s = await mind.get_action(await world.get_state())
        o = await world.execute_action(s.action)
        await mind.inform(o.state, o.score)
    return await timed(seconds, step)


async def single_queries(url: str, seconds: float, transport: str) -> float:
    async with RemoteWorld(url, transport=transport) as world:
        await world.new_run()
        await timed(0.3, lambda: world.execute_action("go"))  # warm up
        rate = await timed(seconds, lambda: world.execute_action("go"))
        await world.end_run()
    return rate


async def full_steps(world_url: str, mind_url: str, seconds: float, transport: str = "http",
                     pipeline: bool = True) -> float:
    """Client steps per second through the real run loop (Get action, Execute action, Inform)."""
    world = RemoteWorld(world_url, transport=transport)
    mind = RemoteMind(mind_url, transport=transport)
    done = []
    settings = RunSettings(steps=None, timeout=5.0, keepalive=None, pipeline=pipeline)
    runner = Runner(mind, world, settings, on_step=lambda s, r: done.append(time.perf_counter()))
    task = asyncio.ensure_future(runner.run())
    await asyncio.sleep(seconds)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    await world.aclose()
    await mind.aclose()
    if len(done) < 2:
        return 0.0
    return (len(done) - 1) / (done[-1] - done[0])


def concurrent(url: str, seconds: float, connections: int = 50) -> dict:
    """Single queries from 50 connections at once (``loadgen.py``, its own process)."""
    return loadgen(url, str(connections), str(seconds))


def concurrent_steps(world_url: str, mind_url: str, seconds: float, binding: str = "http", runs: int = 50) -> dict:
    """Full steps of 50 runs of the real run loop at once (``loadgen.py steps``, its own process)."""
    return loadgen("steps", world_url, mind_url, str(runs), str(seconds), binding)


def loadgen(*args: str) -> dict:
    out = subprocess.run([sys.executable, str(HERE / "loadgen.py"), *args],
                         capture_output=True, text=True, check=True, env={**os.environ, **ENV})
    result = json.loads(out.stdout)
    result["rate"] = result["requests"] / result["seconds"]
    return result


LABELS = {"echo": "bare echo", "floor": "least JSON request/response (floor)",
          "world floor": "least World binding (floor + run, method, Outcome)", "http": "HTTP query",
          "ws": "WebSocket query", "tcp": "TCP query"}


def cpu_table(turns: dict[str, Turns]) -> Any:
    from rich.table import Table

    cpu = Table(title="CPU per round trip (µs), from the turns above: where a query's time goes")
    for column in ("round trip", "client (its thread)", "server (its process)", "wall time per trip"):
        cpu.add_column(column, justify="right" if column != "round trip" else "left")
    for name, t in turns.items():
        cpu.add_row(LABELS[name], f"{t.per_trip(t.client_cpu):.1f}", f"{t.per_trip(t.server_cpu):.1f}",
                    f"{1e6 / t.rate:.1f}" if t.rate else "")
    return cpu


def bindings_only(console: Any, seconds: float) -> None:
    """``--only bindings``: the echo, the least JSON binding and Execute action queries over
    WebSocket and TCP, in turns; each one's rate against the echo's and its CPU per side."""
    from rich.table import Table

    with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--tcp-port", "0"]) as world, \
            ServerProcess("bench_servers:CounterWorld", env=ENV) as ws_world, \
            EchoProcess() as echo, EchoProcess("json_floor_server.py") as floor, \
            EchoProcess("json_floor_server.py", "--world") as world_floor, \
            console.status("echo, floors and bindings taking turns"):
        turns = asyncio.run(taking_turns(echo, {"ws": ws_world, "tcp": world}, seconds,
                                         floor=floor, world_floor=world_floor))
    table = Table(title="persistent bindings in turns with the echo (loopback, this run)")
    for column in ("round trip", "per second", "vs echo", "vs floor", "vs least World binding", "met"):
        table.add_column(column, justify="right" if column != "round trip" else "left")
    least = turns["world floor"].rate
    for name, t in turns.items():
        met = ("yes" if t.rate >= BINDINGS_TARGET * least else "no") if name in ("ws", "tcp") else ""
        table.add_row(LABELS[name], f"{t.rate:,.0f}", f"{t.rate / turns['echo'].rate:.2f}",
                      f"{t.rate / turns['floor'].rate:.2f}", f"{t.rate / least:.2f}", met)
    console.print(table)
    console.print(f"target: each persistent binding ≥ {BINDINGS_TARGET} × the least World binding, same run")
    console.print(cpu_table(turns))
    console.print(f"machine after: {machine_note()}")


# ---- wwm serve --workers N (issue 29, item 4) ----------------------------------------------

def worker_pids(pid: int) -> list[int]:
    """The worker processes a ``wwm serve --workers N`` supervisor forked (its children)."""
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def workers_rows(seconds: float, echo: float, clients: int = 50) -> list[tuple]:
    """50 clients' Execute action queries (``loadgen.py``) against one World served with
    ``--workers 1`` and ``--workers 2``, beside the bare echo measured in the same run: rows
    (name, rate, vs echo, vs --workers 1). Each measurement checks its own workers: the load
    generator's queries were answered (its count), and with ``--workers 2`` both workers
    spent CPU on them (else the row would measure one process under a second name)."""
    out: list[tuple] = []
    one = None
    for count in (1, 2):
        with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--workers", str(count)]) as world:
            pids = worker_pids(world.process.pid) if count > 1 else [world.process.pid]
            if len(pids) != count:
                raise SystemExit(f"--workers {count}: found {len(pids)} worker process(es), not {count}")
            before = [process_cpu(p) for p in pids]
            c = concurrent(world.url, seconds, clients)
            spent = [process_cpu(p) - b for p, b in zip(pids, before, strict=True)]
        if c["requests"] <= 0:
            raise SystemExit(f"--workers {count}: the load generator's queries were not answered")
        if min(spent) < 0.05 * seconds:
            raise SystemExit(f"--workers {count}: a worker spent {min(spent):.2f} s of CPU in {seconds:g} s: "
                             "the load did not reach every worker")
        one = one or c["rate"]
        cpu_us = sum(spent) / c["requests"] * 1e6
        out.append((f"--workers {count}, {clients} clients (p50 {c['p50_ms']:.1f} ms, p99 {c['p99_ms']:.1f} ms, "
                    f"{cpu_us:.0f} µs server CPU/query)", c["rate"], c["rate"] / echo, c["rate"] / one))
    return out


def workers_only(console: Any, seconds: float) -> None:
    """``--only workers``: the bare echo, then ``--workers 1`` and ``--workers 2`` under 50 clients."""
    from rich.table import Table

    with console.status("echo, then --workers 1 and 2 under 50 clients"):
        with EchoProcess() as floor:
            echo = asyncio.run(echo_round_trips(floor.port, seconds))
        rows = workers_rows(seconds, echo)
    table = Table(title="wwm serve --workers N, 50 clients (loopback, this run)")
    for column in ("measurement", "per second", "vs echo", "vs --workers 1"):
        table.add_column(column, justify="right" if column != "measurement" else "left")
    table.add_row("bare round trip between two processes (echo, one client)", f"{echo:,.0f}", "1.00", "")
    for name, rate, vs_echo, vs_one in rows:
        table.add_row(name, f"{rate:,.0f}", f"{vs_echo:.2f}", f"{vs_one:.2f}")
    console.print(table)
    console.print(f"machine after: {machine_note()} (the load generator is one process: on 2 cores it takes "
                  "one of them from the workers)")


def machine_note() -> str:
    """What decides a cross-process round trip here: on a KVM guest whose idle cores halt at
    once (guest halt polling off), every wake-up of the other process's core is a VM exit."""
    def read(path: str) -> str | None:
        try:
            return Path(path).read_text().strip()
        except OSError:
            return None
    parts = [f"{os.cpu_count()} cores", f"load average {os.getloadavg()[0]:.2f}"]
    driver = read("/sys/devices/system/cpu/cpuidle/current_driver")
    if driver:
        parts.append(f"cpuidle {driver}")
    poll = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
    if poll is not None:
        polling = "off: each cross-core wake-up is a VM exit" if poll == "0" else f"{poll} ns"
        parts.append("guest halt polling " + polling)
    return ", ".join(parts)


def main() -> None:
    try:  # the client side runs on uvloop too, as wwm's own commands do
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    parser.add_argument("--no-one-core", action="store_true", help="skip the rows measured on one core")
    parser.add_argument("--only", choices=["bindings", "workers"],
                        help="measure only the persistent bindings in turns with the echo and the JSON floor, "
                             "or only wwm serve --workers 1 and 2 under 50 clients beside the echo")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error("--seconds must be more than 0")
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"machine: {machine_note()}")
    if args.only == "bindings":
        bindings_only(console, args.seconds)
        return
    if args.only == "workers":
        workers_only(console, args.seconds)
        return
    sec = args.seconds
    rows: list[tuple] = []   # (group, name, rate, target, baseline); target: (fraction, of rate, of what)

    def measure(status, group: str, name: str, what, target=None, baseline=None) -> float:
        status.update(name)
        rate = asyncio.run(what) if asyncio.iscoroutine(what) else what()
        rows.append((group, name, rate, target, baseline))
        return rate

    with console.status("measuring...") as status:
        with EchoProcess() as floor:
            echo = measure(status, "floor", "bare round trip between two processes (echo)",
                           echo_round_trips(floor.port, sec))
        measure(status, "floor", "in-process loop, full steps (no network)", in_process_steps(sec), baseline=echo)
        with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--tcp-port", "0"]) as world, \
                ServerProcess("bench_servers:ConstantMind", env=ENV, extra=["--tcp-port", "0"]) as mind, \
                EchoProcess() as echo_process, EchoProcess("json_floor_server.py") as floor_process, \
                EchoProcess("json_floor_server.py", "--world") as world_floor_process:
            g = "one client, HTTP"
            measure(status, g, "Execute action queries", single_queries(world.url, sec, "http"),
                    (TARGETS["http_query"], echo, "echo"), echo)
            measure(status, g, "full steps (Inform + next Get action in one round trip)",
                    full_steps(world.url, mind.url, sec), (TARGETS["http_step"], echo, "echo"), echo)
            measure(status, g, "full steps, one query per round trip (--no-pipeline)",
                    full_steps(world.url, mind.url, sec, pipeline=False), None, echo)
            g = "one client, persistent binding (in turns with the echo)"
            status.update("echo round trips and queries over each binding, taking turns")
            with ServerProcess("bench_servers:CounterWorld", env=ENV) as http_world, \
                    ServerProcess("bench_servers:CounterWorld", env=ENV) as ws_world:
                turns = asyncio.run(taking_turns(echo_process, {"http": http_world, "ws": ws_world, "tcp": world},
                                                 sec, floor=floor_process, world_floor=world_floor_process))
            paired = turns["echo"].rate
            rows.append((g, "bare round trip (echo), taking turns with the rows below", paired, None, None))
            rows.append((g, "least JSON request/response (json_floor_server.py: the floor)", turns["floor"].rate,
                         None, paired))
            least = turns["world floor"].rate
            rows.append((g, LABELS["world floor"], least, None, paired))
            for label, binding in (("WebSocket", "ws"), ("TCP", "tcp")):
                rows.append((g, f"{label}: Execute action queries", turns[binding].rate,
                             (BINDINGS_TARGET, least, "least World binding"), paired))
            measure(status, g, "TCP: full steps", full_steps(world.url, mind.url, sec, "tcp"), None, echo)
            g = "50 concurrent runs, 1 server process"
            status.update("50 concurrent runs")
            c = concurrent(world.url, sec)
            rows.append((g, f"HTTP queries (p50 {c['p50_ms']:.1f} ms, p99 {c['p99_ms']:.1f} ms)", c["rate"],
                         (TARGETS["concurrent"], echo, "echo"), echo))
            for label, binding in (("HTTP", "http"), ("TCP", "tcp")):
                status.update(f"50 concurrent runs, full steps over {label}")
                f = concurrent_steps(world.url, mind.url, sec, binding)
                rows.append((g, f"{label} full steps, run loop (p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms)",
                             f["rate"], None, echo))
        with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--http", "granian"]) as other:
            g = "the same server on granian"
            measure(status, g, "1 client, Execute action queries", single_queries(other.url, sec, "http"),
                    None, echo)
            status.update("granian, 50 concurrent runs")
            u = concurrent(other.url, sec)
            rows.append((g, f"50 concurrent runs (p99 {u['p99_ms']:.1f} ms)", u["rate"], None, echo))
        status.update("wwm serve --workers 1 and 2, 50 concurrent runs")
        for name, rate, _, _ in workers_rows(sec, echo):
            rows.append(("wwm serve --workers N (see --only workers for the ratio to --workers 1)", name,
                         rate, None, echo))
        if not args.no_one_core and hasattr(os, "sched_setaffinity"):
            # Client and servers on one core: a strictly alternating exchange loses nothing by
            # sharing it, and no wake-up crosses cores, so what remains is the protocol's own cost.
            cores = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {min(cores)})  # the server processes inherit it
            try:
                g = "client and servers on one core"
                with EchoProcess() as floor:
                    echo1 = measure(status, g, "bare round trip between two processes (echo)",
                                    echo_round_trips(floor.port, sec))
                with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--tcp-port", "0"]) as world, \
                        ServerProcess("bench_servers:ConstantMind", env=ENV) as mind:
                    measure(status, g, "HTTP: Execute action queries", single_queries(world.url, sec, "http"),
                            None, echo1)
                    measure(status, g, "TCP: Execute action queries", single_queries(world.url, sec, "tcp"),
                            None, echo1)
                    measure(status, g, "HTTP: full steps", full_steps(world.url, mind.url, sec), None, echo1)
            finally:
                os.sched_setaffinity(0, cores)

    table = Table(title="wwm network benchmark (loopback, this machine, this run)")
    table.add_column("measurement")
    table.add_column("per second", justify="right")
    table.add_column("vs echo", justify="right")
    table.add_column("target", justify="right")
    table.add_column("met", justify="center")
    group = None
    for g, name, rate, target, baseline in rows:
        if g != group:
            table.add_row(f"[bold]{g}[/bold]", "", "", "", "")
            group = g
        if baseline:
            vs_echo = f"{rate / baseline:.2f}"
        else:
            vs_echo = "1.00" if "echo" in name else ""
        met = "" if target is None else ("yes" if rate >= target[0] * target[1] else "no")
        shown = "" if target is None else f"≥ {target[0]:.2f} × {target[2]}"
        table.add_row("  " + name, f"{rate:,.0f}", vs_echo, shown, met)
    console.print(table)
    console.print(cpu_table(turns))
    console.print(f"50-run p99 latency: {c['p99_ms']:.1f} ms, {c['p99_ms'] / c['p50_ms']:.1f} × its p50; "
                  f"machine after: {machine_note()}")
    console.print("'vs echo' divides by the bare round trip between two processes measured above (the "
                  "persistent bindings' queries by the echo taking turns with them; on one core, by the "
                  "one-core echo).")


if __name__ == "__main__":
    main()
