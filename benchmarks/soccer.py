"""Benchmark of the soccer world, one command:  python benchmarks/soccer.py

Prints cycles (steps) per second side by side, all measured in this run:
- baseline: the project's small grid world (``wwm.kit.grid.GridEngine``) stepping in process,
- the soccer match stepping in process, 2 and 11 a side, every player dashing or turning
  each cycle, with and without every player's ``see`` worked out (the server's whole cycle);
- over the network: the grid World served by ``wwm serve`` and one client stepping it, beside
  the soccer world served by ``wwm soccer serve --arg synch=true`` with 1 a side, its two
  players WWM clients (HTTP), then its two players UDP clients: a synchronous cycle ends when
  both players' commands are in, so this is how fast a match can run over each binding.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import sys
import time
from collections.abc import Callable

from timing import arate, print_rates, rate

import wwm
from wwm.kit.grid import GridEngine
from wwm.server.process import ServerProcess
from wwm.soccer.commands import parse
from wwm.soccer.match import Match
from wwm.soccer.params import Params
from wwm.soccer.sensing import see

MOVES = ("north", "south", "east", "west")
COMMANDS = [parse(t)[0] for t in ("(dash 80)", "(dash 100)", "(turn 30)", "(turn -30)", "(kick 100 0)")]


def match_cycle(players: int, sensing: bool) -> Callable[[], None]:
    rng = random.Random(0)
    state = {"m": None}

    def fresh() -> Match:
        m = Match(Params(players=players, half_cycles=10**6))
        for side in (0, 1):
            for unum in range(1, players + 1):
                m.add_player(side, unum)
        m.start()
        return m

    def cycle() -> None:
        m = state["m"] = state["m"] or fresh()
        for i in range(2 * players):
            m.command(i, rng.choice(COMMANDS))
        m.step()
        if sensing:
            for i in range(2 * players):
                see(m, i)
    return cycle


async def grid_over_http(url: str, seconds: float) -> float:
    world = wwm.connect(url, steps=10**9)
    await world.new_run()
    await arate(lambda: world.execute_action("north"), 0.3, batch=1)
    return await arate(lambda: world.execute_action(random.choice(MOVES)), seconds, batch=1)


async def soccer_over_http(url: str, seconds: float) -> float:
    bodies = [wwm.connect(url, team=team) for team in ("A", "B")]
    for body in bodies:
        await body.new_run()

    async def both() -> None:
        await asyncio.gather(*(b.execute_action("(dash 50)") for b in bodies))
    await arate(both, 0.3, batch=1)
    return await arate(both, seconds, batch=1)


def soccer_over_udp(port: int, seconds: float) -> float:
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    for s, team in zip(socks, ("A", "B"), strict=True):
        s.settimeout(5)
        s.sendto(f"(init {team})\0".encode(), ("127.0.0.1", port))
        s.recv(4096)
    cycles, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for s in socks:  # each answers its (sense_body ...) with a command
            while not s.recv(8192).startswith(b"(sense_body"):
                pass
            s.sendto(b"(dash 50)\0", ("127.0.0.1", port))
        cycles += 1
    for s in socks:
        s.sendto(b"(bye)\0", ("127.0.0.1", port))
        s.close()
    return cycles / (time.perf_counter() - start)


def soccer_server(synch: bool = True) -> ServerProcess:
    command = [sys.executable, "-m", "wwm.cli.main", "soccer", "serve", "--port", "0", "--udp-port", "0",
               "--arg", "players=1", "--arg", "half=1000000", "--arg", f"synch={str(synch).lower()}",
               "--arg", "cycle_ms=1000"]
    return ServerProcess("soccer", command=command, port=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    args = parser.parse_args()
    rng = random.Random(0)
    grid = GridEngine(size=10, max_steps=10**9)
    rows: list[tuple[str, float]] = [("baseline: grid world step, in process",
                                      rate(lambda: grid.step(rng.choice(MOVES)), args.seconds))]
    for players in (2, 11):
        rows.append((f"soccer cycle, {players} a side", rate(match_cycle(players, False), args.seconds)))
        rows.append((f"soccer cycle + every see, {players} a side", rate(match_cycle(players, True), args.seconds)))
    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        net_base = asyncio.run(grid_over_http(server.url, args.seconds))
    network = [("baseline: grid World over HTTP, 1 client", net_base)]
    with soccer_server() as server:
        network.append(("soccer over HTTP, 2 WWM clients, synch", asyncio.run(soccer_over_http(server.url,
                                                                                                  args.seconds))))
    with soccer_server() as server:
        port = int(server.card()["bindings"]["udp"].rsplit(":", 1)[1])
        network.append(("soccer over UDP, 2 text-protocol clients, synch", soccer_over_udp(port, args.seconds)))
    for title, table in (("in process", rows), ("over the network", network)):
        print(f"\n{title}")
        print_rates(table, "cycles/s", width=50, digits=3)
    print("\nreference: the soccer server runs 10 cycles a second (100 ms); synchronous mode as fast as its players")


if __name__ == "__main__":
    main()
