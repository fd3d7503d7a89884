"""``wwm run society.yaml`` or ``wwm run --mind URL --world URL``: run a mind in a world
with the client algorithm of section 8.2, showing progress, recording the run."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("society", nargs="?", help="a society document (YAML or JSON)")
    parser.add_argument("--mind", help="URL of the top-level Mind server (instead of a document)")
    parser.add_argument("--world", help="URL of the World server (instead of a document)")
    parser.add_argument("--mind-arg", action="append", default=[], metavar="K=V", help="New run argument for the mind")
    parser.add_argument("--world-arg", action="append", default=[], metavar="K=V", help="New run argument for the world")
    parser.add_argument("--steps", type=int, help="number of steps (default: the document's, else 100)")
    parser.add_argument("--timeout", type=float, help="seconds allowed per query")
    parser.add_argument("--policy", choices=["requery", "ignore-late"], help="what to do when the mind times out")
    parser.add_argument("--no-pipeline", dest="pipeline", action="store_false", default=None,
                        help="send Inform and the next Get action one round trip each (by default they go "
                             "back to back where the binding keeps their order)")
    parser.add_argument("--db", help="SQLAlchemy URL of the run records (default: $WWM_DATABASE_URL or a SQLite file)")
    parser.add_argument("--no-record", action="store_true", help="do not record the run")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def build_society(args: argparse.Namespace):
    from ..client.society import SocietyError, load, parse
    from .common import UsageError, parse_pairs

    if args.society:
        if args.mind or args.world:
            raise UsageError("give a society document or --mind and --world, not both")
        return load(args.society)
    if not (args.mind and args.world):
        raise UsageError("give a society document, or both --mind URL and --world URL")
    try:
        return parse({"name": "command line", "mind": {"url": args.mind, "args": parse_pairs(args.mind_arg)},
                      "world": {"url": args.world, "args": parse_pairs(args.world_arg)}})
    except SocietyError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from ..client.session import RoleError
    from ..client.society import SocietyError
    from ..protocol.errors import Refusal
    from ..store import StoreError
    from .common import UsageError, run_async

    try:
        society = build_society(args)
    except (UsageError, SocietyError) as exc:
        print(f"wwm run: {exc}", file=sys.stderr)
        return 2
    settings = society.settings(steps=args.steps, timeout=args.timeout, policy=args.policy,
                                pipeline=args.pipeline)
    try:
        result = run_async(execute(society, settings, db=args.db, record=not args.no_record, quiet=args.quiet))
    except Refusal as exc:
        print(f"wwm run: {exc.code}: {exc.text}", file=sys.stderr)
        return 1
    except RoleError as exc:  # a server of the wrong role, named as the user named it
        print(f"wwm run: {exc.text(f'--{exc.slot}' if args.mind else None)}", file=sys.stderr)
        return 2
    except SocietyError as exc:
        print(f"wwm run: {exc}", file=sys.stderr)
        return 2
    except StoreError as exc:
        print(f"wwm run: the run records cannot be used: {exc}", file=sys.stderr)
        return 2
    return 0 if result.status in ("completed", "ended by world") else 1


async def execute(society, settings, *, db: str | None = None, record: bool = True, quiet: bool = False,
                  console=None, summary: bool = True):
    """Run with a progress bar; print the outcome; return the RunResult."""
    import dataclasses

    from ..client.runner import default_client_url

    if settings.client_url is None:
        settings = dataclasses.replace(settings, client_url=default_client_url())
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..client.session import run_society
    from ..store import RunStore

    console = console or Console()
    store = RunStore(db) if record else None
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("score {task.fields[score]:.1f}"), TimeElapsedColumn(),
                        console=console, disable=quiet, transient=False)
    task = progress.add_task(society.name, total=settings.steps, score=0.0)

    def on_step(step, result) -> None:
        progress.update(task, advance=1, score=result.total_score)

    def say(text: str) -> None:  # above the progress bar, as it happens, never wrapped mid-word
        progress.console.print(escape(text), soft_wrap=True, highlight=False)

    shown = 0

    def on_event(event, result) -> None:  # the end is in the table; the first 20 others live
        nonlocal shown
        if event.kind != "run-ended" and shown <= 20:
            shown += 1
            say(f"step {event.step} {event.kind}: {event.text}" if shown <= 20 else
                "more events: see the table below and the run record")

    try:
        with progress:
            result = await run_society(society, settings=settings, store=store, on_step=on_step,
                                       on_event=on_event, notify=say)
    finally:
        if store is not None:
            store.close()
    if summary:
        print_result(console, society, result)
    return result


def print_result(console, society, result) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{society.name}: {result.status}", show_header=False)
    table.add_row("steps", str(len(result.steps)))
    table.add_row("total score (sum of step scores)", f"{result.total_score:g}")
    table.add_row("world's score at End run", "-" if result.world_score is None else f"{result.world_score:g}")
    table.add_row("mind's score at End run", "-" if result.mind_score is None else f"{result.mind_score:g}")
    table.add_row("seconds", f"{result.seconds:.2f}")
    if result.steps:
        table.add_row("steps per second", f"{len(result.steps) / max(result.seconds, 1e-9):,.0f}")
    ended = next((e.text for e in reversed(result.events) if e.kind == "run-ended"), None)
    if ended:
        table.add_row("why it ended", escape(ended))
    table.add_row("events", ", ".join(f"{e.kind}@{e.step}" for e in result.events[:8]) or "none")
    if result.world_display_url:
        table.add_row("world display", result.world_display_url)
    if result.record_id is not None:
        table.add_row("record", f"wwm runs show {result.record_id}")
    console.print(table)
