"""``wwm demo``: the World-Wide-Mind on one machine, end to end.

Starts real server processes on loopback -- a grid World, three Minds (a food seeker, a
hazard avoider, a random mind) and a Mind_M wrapper ("if a hazard is near (two cells) do what the
avoider does, else what the seeker does", section 2.3) that calls its minds over the
network -- then runs three societies through the client algorithm, records them, and
prints the scores side by side with the Mind_M server's credit trail.
"""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from ..client.runner import RunResult
    from ..server.process import ServerProcess


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steps", type=int, default=200, help="steps per run")
    parser.add_argument("--seed", type=int, default=1, help="the world's seed (same seed, same runs)")
    parser.add_argument("--db", help="SQLAlchemy URL for the run records (default: the SQLite file)")
    parser.add_argument("--keep", action="store_true", help="keep the servers running afterwards until Ctrl-C")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..commands import fail, interrupted, run_async
    from ..kit.demo import SERVERS
    from ..protocol.errors import Refusal
    from ..server.process import ServerProcess
    from ..store import StoreError

    console = Console()
    servers = {name: ServerProcess(target) for name, target in SERVERS.items()}
    done: list[RunResult] = []   # the societies run so far, for the line Ctrl-C prints
    seen: dict[str, Any] = {}     # the run under way (execute's seen)
    try:
        with nullcontext() if args.quiet else console.status("starting 5 server processes on loopback..."):
            for server in servers.values():
                server.start()
        if not args.quiet:
            for name, server in servers.items():
                pid = server.process.pid if server.process else "?"
                console.print(f"  [green]up[/] {name:8} {server.url}  (pid {pid})")
        code = run_async(_demo(console, servers, args, done, seen))
        if args.keep:
            console.print("Servers keep running; open their URLs in a browser. Ctrl-C ends them.")
            try:
                while True:
                    import time
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return code
    except KeyboardInterrupt:
        return interrupted("demo", _kept(done, seen.get("result")))
    except (RuntimeError, TimeoutError) as exc:
        return fail("demo", f"a server did not start: {exc}", 1)
    except Refusal as exc:
        return fail("demo", f"{exc.code}: {exc.text}", 1)
    except StoreError as exc:
        return fail("demo", f"the run records cannot be used: {exc}", 2)
    finally:
        for server in servers.values():
            server.stop()


def _kept(done: list[RunResult], current: RunResult | None) -> str:
    """What an interrupted demo left behind, in words."""
    records = [r.record_id for r in done if r.record_id is not None]
    cut = current is not None and all(current is not r for r in done)
    if cut and current is not None and current.record_id is not None:
        records.append(current.record_id)  # the run cut short is recorded as interrupted
    where = f"stopped during run {len(done) + 1} of 3" if cut or done else "stopped before the first run"
    if not records:
        return f"{where}; nothing recorded"
    if len(records) == 1:
        return f"{where}; recorded as run {records[0]} (wwm runs show {records[0]})"
    return f"{where}; recorded as runs {', '.join(map(str, records))} (wwm runs)"


async def _demo(console: Console, servers: dict[str, ServerProcess], args: argparse.Namespace,
                done: list[RunResult], seen: dict[str, Any]) -> int:
    from rich.table import Table

    from ..client.cards import fetch_card_sync
    from ..client.society import parse
    from ..kit import demo
    from .run import execute

    urls = {name: server.url for name, server in servers.items()}
    world = demo.world(urls, seed=args.seed, steps=args.steps)
    societies = demo.societies(urls, seed=args.seed)
    results = []
    for name, mind in societies:
        society = parse({"name": name, "mind": mind, "world": world,
                         "run": {"steps": args.steps, "timeout": 5.0}})
        seen.clear()
        result = await execute(society, society.settings(), db=args.db, console=console, summary=False,
                               quiet=args.quiet, seen=seen)
        results.append((name, result))
        done.append(result)
    table = Table(title=f"Scores in the grid world ({args.steps} steps, seed {args.seed})")
    for column in ("society", "status", "steps", "score", "steps/s", "record"):
        table.add_column(column)
    for name, r in results:
        table.add_row(name, r.status, str(len(r.steps)), f"{r.total_score:g}",
                      f"{len(r.steps) / max(r.seconds, 1e-9):,.0f}", str(r.record_id or "-"))
    console.print(table)
    trail = fetch_card_sync(servers["switch"].url)["credit_trail"]
    console.print("Credit trail of the Mind_M server (section 7.2):")
    console.print("  calls:     " + ", ".join(link["url"] for link in trail["calls"]))
    console.print("  called by: " + ", ".join(link["url"] for link in trail["called_by"]))
    console.print("Records: [bold]wwm runs[/]. The demo's servers stop with it; to see a server's "
                  "page, serve one ([bold]wwm serve grid[/]) and open its URL in a browser.")
    console.print("The same servers and societies in a browser, to run and watch live: "
                  "[bold]wwm portal --demo[/] (then open the URL it prints).")
    return 0 if all(r.status in ("completed", "ended by world") for _, r in results) else 1
