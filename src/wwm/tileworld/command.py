"""``wwm tworld``: serve the Tileworld page (with the proxy), run the proxy alone, run headless
batches over γ and dynamism (table and plot), and check a recording by replaying it.

    wwm tworld serve --port 8330 --proxy-port 3313
    wwm tworld proxy --port 3313
    wwm tworld batch --gammas 0.1,0.3,1,3 --dynamisms 6,12 --trials 5 --out results/tworld
    wwm tworld batch --sweep dynamism --agents reactive,deliberative --out results/tworld-dynamism
    wwm tworld replay ~/.local/share/wwm/tworld-recordings/some-run.json
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..commands import port_number
from ..paths import results

if TYPE_CHECKING:
    import socket

    from rich.table import Table

    from .batch import Point


def _floats(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not values or min(values) <= 0 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected positive numbers separated by commas, got {text!r}")
    return values


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _writable_folder(folder: Path) -> str | None:
    """None if ``folder`` exists or can be made, else why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create folder {str(folder)!r}: {exc.strerror or exc}"
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    return None


def _ints(text: str) -> list[int]:
    values = _floats(text)
    if any(v != int(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got {text!r}")
    return [int(v) for v in values]


GAMMAS = {"gamma": [0.1, 0.2, 0.35, 0.7, 1.5, 3.0], "dynamism": [0.35]}
DYNAMISMS = {"gamma": [6, 12], "dynamism": [2, 3, 4, 6, 8, 12, 16, 24, 32]}


def _csv(values: Sequence[float]) -> str:
    return ",".join(f"{v:g}" for v in values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tworld_command", metavar="ACTION", required=True)
    serve = sub.add_parser("serve", help="the browser page and its game server, with the proxy")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port_number, default=8330, help="the page's port (0: any free port)")
    serve.add_argument("--proxy-port", type=port_number, default=3313, help="run the proxy here (0: any free port)")
    serve.add_argument("--proxy-url", help="use a proxy already running (ws://host:port/) instead")
    serve.add_argument("--recordings", default=str(results("tworld-recordings")),
                       help="folder for recorded runs (default: tworld-recordings in wwm's data folder, "
                            "$XDG_DATA_HOME/wwm or ~/.local/share/wwm)")
    proxy = sub.add_parser("proxy", help="the proxy alone: TCP agents and WebSocket robots, paired by magic")
    proxy.add_argument("--host", default="127.0.0.1")
    proxy.add_argument("--port", type=port_number, default=3313, help="port for agents and robots (0: any free port)")
    proxy.add_argument("-n", "--no-forward", action="store_true", help="do not forward world messages to agents")
    batch = sub.add_parser("batch", help="headless runs of built-in agents; table and plot of ε against γ "
                                         "or against dynamism")
    batch.add_argument("--sweep", choices=("gamma", "dynamism"), default="gamma",
                       help="the plot's x axis: γ (one line per agent and dynamism) or dynamism (one line per "
                            "agent and γ; ε and score)")
    batch.add_argument("--agents", default="reactive,deliberative,cautious")
    batch.add_argument("--gammas", type=_floats, default=None,
                       help=f"values of γ (default {_csv(GAMMAS['gamma'])}; {_csv(GAMMAS['dynamism'])} with "
                            "--sweep dynamism)")
    batch.add_argument("--dynamisms", type=_ints, default=None,
                       help="T-World dynamism d..2d s: holes recur every d+2..2d+2 s and live as long (default "
                            f"{_csv(DYNAMISMS['gamma'])}; {_csv(DYNAMISMS['dynamism'])} with --sweep dynamism)")
    batch.add_argument("--trials", type=int, default=5)
    batch.add_argument("--time", type=_seconds, default=100.0, help="world seconds per run")
    batch.add_argument("--seed", type=int, default=0)
    batch.add_argument("--rows", type=int, default=9)
    batch.add_argument("--columns", type=int, default=10)
    batch.add_argument("--out", default="tworld-batch", help="writes OUT.csv and OUT.png")
    batch.add_argument("--record", metavar="DIR", help="save every game as a recording in DIR "
                                                       "(replay it, or play it back in the page)")
    replay = sub.add_parser("replay", help="replay a recording and check every percept")
    replay.add_argument("recording")


def run(args: argparse.Namespace) -> int:
    return {"serve": _serve, "proxy": _proxy, "batch": _batch, "replay": _replay}[args.tworld_command](args)


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    import uvicorn

    from wwm.tileworld.app import create_app
    from wwm.tileworld.proxy import Proxy

    from ..commands import fail, interrupted, ready_line

    if problem := _writable_folder(Path(args.recordings)):
        return fail("tworld serve", problem, 2)

    async def main() -> None:
        # bind the page's port first: a busy port is a one-line error before anything starts
        # (listen sets TCP_NODELAY, which accepted sockets inherit: without it, answers on a
        # kept-alive connection wait for delayed ACKs; 23 instead of ~2,900 page requests a second)
        sock = _bind(args.host, args.port, "--port")
        port = sock.getsockname()[1]
        proxy_url = args.proxy_url
        proxy = None
        if proxy_url is None:
            try:
                proxy = await Proxy(args.host, args.proxy_port).start()
            except OSError as exc:
                sock.close()
                raise _BindError(args.host, args.proxy_port, "--proxy-port", exc) from None
            proxy_url = f"ws://{args.host}:{proxy.port}/"
        app = create_app(proxy_url=proxy_url, recordings=args.recordings)
        server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=port, log_level="warning"))
        ready_line("the T-World page", f"http://{args.host}:{port}/")
        if proxy is not None:
            print(f"proxy: agents connect to {args.host}:{proxy.port} and send CONNECT:<magic string>", flush=True)
        try:
            await server.serve(sockets=[sock])
        finally:
            if proxy is not None:
                await proxy.close()

    try:
        asyncio.run(main())
    except (_BindError, OSError) as exc:
        return fail("tworld serve", exc, 1)
    except KeyboardInterrupt:
        return interrupted("tworld serve", f"stopped serving; the recorded games are in {args.recordings}")
    return 0


class _BindError(Exception):
    """A port that cannot be listened on, and the option that named it."""

    def __init__(self, host: str, port: int, option: str, exc: OSError) -> None:
        # both socket's and asyncio's name the address again: keep the reason alone
        reason = (exc.strerror or str(exc)).split(" (while attempting")[0].rsplit(": ", 1)[-1]
        super().__init__(f"cannot listen on {host}:{port} ({option}): {reason}")


def _bind(host: str, port: int, option: str) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port), or _BindError."""
    from wwm.server import listen

    try:
        return listen(host, port)
    except OSError as exc:
        raise _BindError(host, port, option, exc) from None


def _proxy(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from wwm.tileworld.proxy import Proxy

    from ..commands import fail, interrupted, ready_line

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")

    async def main() -> None:
        try:
            proxy = await Proxy(args.host, args.port, forward_to_agent=not args.no_forward).start()
        except OSError as exc:
            raise _BindError(args.host, args.port, "--port", exc) from None
        ready_line("the T-World proxy", f"ws://{args.host}:{proxy.port}/")
        print(f"agents connect to {args.host}:{proxy.port} and send CONNECT:<magic string>", flush=True)
        await proxy.serve_forever()

    try:
        asyncio.run(main())
    except (_BindError, OSError) as exc:
        return fail("tworld proxy", exc, 1)
    except KeyboardInterrupt:
        return interrupted("tworld proxy", "stopped serving; the proxy keeps nothing")
    return 0


def _batch(args: argparse.Namespace) -> int:
    import csv
    from dataclasses import asdict

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from wwm.tileworld.agents import BUILTIN
    from wwm.tileworld.batch import sweep
    from wwm.tileworld.config import Config, ConfigError

    from ..commands import fail, interrupted

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in agents if a not in BUILTIN]
    if unknown or not agents:
        return fail("tworld batch", f"unknown agent(s) {unknown}: choose from {', '.join(BUILTIN)}", 2)
    if args.trials < 1 or args.time <= 0:
        return fail("tworld batch", "--trials must be at least 1 and --time positive", 2)
    try:
        base = Config(rows=args.rows, columns=args.columns, seed=args.seed, end={"neutral": {"time": args.time}})
    except ConfigError as exc:
        return fail("tworld batch", exc, 2)
    out = Path(args.out)
    folders = [out.parent, *([Path(args.record)] if args.record else [])]
    made = [f for f in folders if not f.exists()]
    for folder in folders:
        if problem := _writable_folder(folder):
            return fail("tworld batch", problem, 2)
    from wwm.tileworld import figures

    gammas = args.gammas or GAMMAS[args.sweep]
    dynamisms = args.dynamisms or DYNAMISMS[args.sweep]
    total = len(agents) * len(gammas) * len(dynamisms) * args.trials
    console = Console()
    played = 0

    def on_game() -> None:
        nonlocal played
        played += 1
        progress.advance(task)

    try:
        with Progress(console=console, disable=args.quiet) as progress:
            task = progress.add_task("Tileworld games", total=total)
            points = sweep(base, agents, gammas, dynamisms, args.trials, on_game=on_game,
                           record=Path(args.record) if args.record else None)
    except KeyboardInterrupt:
        for folder in made:  # no empty folder left behind
            try:
                folder.rmdir()
            except OSError:
                pass
        kept = f"no table written to {out.with_suffix('.csv')}"
        if args.record and played:
            kept += f"; the games finished so far are recorded in {args.record}"
        return interrupted("tworld batch", f"stopped after {played} of {total} games; {kept}")
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(points[0])))
        writer.writeheader()
        writer.writerows(asdict(p) for p in points)
    title = f"Tileworld {args.rows}x{args.columns}, {args.trials} trials of {args.time:g} s"
    if args.sweep == "gamma":
        table = Table(title="Effectiveness ε against γ (world seconds per agent step)")
        for col in ("agent", "dynamism", "γ", "ε", "±", "holes filled", "score"):
            table.add_column(col, justify="right")
        for p in points:
            table.add_row(p.agent, str(p.dynamism), f"{p.gamma:g}", f"{p.effectiveness:.3f}",
                          f"{p.effectiveness_sd:.3f}", f"{p.holes_fraction:.3f}", f"{p.score:.1f}")
        console.print(table)
        figures.against_gamma(points, out.with_suffix(".png"), title)
    else:
        console.print(_dynamism_table(points, agents, gammas, dynamisms))
        figures.against_dynamism(points, out.with_suffix(".png"), f"{title}: ε and score as the world speeds up")
    console.print(f"wrote {out.with_suffix('.csv')} and {out.with_suffix('.png')}")
    return 0


def _dynamism_table(points: list[Point], agents: list[str], gammas: list[float], dynamisms: list[int]) -> Table:
    """One row per (γ, dynamism d), the agents side by side (ε ± sd and mean score), and which
    agent's ε is highest; slow worlds first, as the plot reads."""
    from rich import box
    from rich.table import Table  # noqa: F811 (imported for types only above)

    one_gamma = len(gammas) == 1
    table = Table(title="ε ± sd and mean score against dynamism d (holes recur every d+2..2d+2 s)"
                  + (f", γ = {gammas[0]:g}" if one_gamma else ""), box=box.SIMPLE_HEAD)
    if not one_gamma:
        table.add_column("γ", justify="right")
    table.add_column("d", justify="right")
    for agent in agents:
        table.add_column(f"{agent} ε", justify="right")
        table.add_column("score", justify="right")
    table.add_column("best ε")
    at = {(p.agent, p.gamma, p.dynamism): p for p in points}
    for gamma in gammas:
        for dyn in sorted(dynamisms, reverse=True):
            row = [at[(a, gamma, dyn)] for a in agents]
            cells = [c for p in row for c in (f"{p.effectiveness:.2f}±{p.effectiveness_sd:.2f}", f"{p.score:.0f}")]
            table.add_row(*([] if one_gamma else [f"{gamma:g}"]), str(dyn), *cells,
                          max(row, key=lambda p: p.effectiveness).agent)
    return table


def _replay(args: argparse.Namespace) -> int:
    from wwm.tileworld.config import ConfigError
    from wwm.tileworld.recording import Recording, RecordingError, replay

    from ..commands import fail

    try:
        recording = Recording.load(args.recording)
    except OSError as exc:
        return fail("tworld replay", f"cannot read {args.recording}: {exc.strerror or exc}", 2)
    except (RecordingError, ConfigError) as exc:  # not a recording that can be used
        return fail("tworld replay", exc, 2)
    try:
        checked = replay(recording)
    except (RecordingError, ConfigError) as exc:  # the replay differs from the recording
        return fail("tworld replay", exc, 1)
    print(f"{args.recording}: {checked} percepts reproduced exactly")
    return 0
