"""``wwm runs``: list the recorded runs (a table, newest first), and ``wwm runs show ID``: one
run's servers, settings, scores and events, then its steps, with an optional PNG plot of the
score per step. Reads the same database ``wwm run`` writes (``--db`` or $WWM_DATABASE_URL).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..commands import whole_number

if TYPE_CHECKING:
    from rich.console import JustifyMethod

DB_HELP = "SQLAlchemy URL of the run records (default: $WWM_DATABASE_URL, else the SQLite file " \
          "~/.local/share/wwm/runs.db)"


def _steps_arg(text: str) -> int | None:
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of steps or 'all', not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of steps >= 0 or 'all', not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", metavar="URL", default=argparse.SUPPRESS, help=DB_HELP)
    listing = argparse.ArgumentParser(add_help=False)
    listing.add_argument("--limit", type=whole_number, default=argparse.SUPPRESS, metavar="N",
                         help="show the latest N runs (default 20)")
    listing.add_argument("--status", default=argparse.SUPPRESS,
                         help='only runs with this status ("completed", "interrupted", "running", ...)')
    listing.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print the list as JSON instead")
    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)
    parser.add_argument("--limit", type=whole_number, default=20, metavar="N",
                        help="show the latest N runs (default 20)")
    parser.add_argument("--status", default=None, help="only runs with this status")
    parser.add_argument("--json", action="store_true", help="print the list as JSON instead")
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", parents=[common, listing], help="list the latest runs (the default)",
                   description="List the latest recorded runs, newest first.")
    show = sub.add_parser("show", parents=[common], help="show one run: its record, events and steps",
                          description="Show one recorded run: servers, settings, scores, events, steps.")
    show.add_argument("run_id", type=int, metavar="ID", help="the run's ID (from wwm runs)")
    show.add_argument("--steps", type=_steps_arg, default=20, metavar="N",
                      help="show N steps (default 20; 0 for none; 'all')")
    show.add_argument("--from", dest="from_step", type=int, default=0, metavar="K",
                      help="start at step K (default 0)")
    show.add_argument("--plot", metavar="FILE.png", help="save a plot of the score per step as PNG")
    show.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                      help="print the record as JSON instead")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from ..commands import fail
    from ..store import NoStore, RunStore, StoreError

    console = Console()
    plot = getattr(args, "plot", None)
    if plot is not None and not plot.lower().endswith(".png"):
        return fail("runs", f"--plot wants a file name ending in .png, not {plot!r}", 2)
    try:
        with RunStore(args.db, create=False) as store:  # a reader makes no file or table
            if args.action == "show":
                return _show(console, store, args)
            return _list(console, store, args.limit, args.status, args.json)
    except NoStore as exc:  # nothing recorded there yet: an empty list, or no such run
        if args.action == "show":
            return fail("runs", f"there is no run {args.run_id}: {exc}", 1)
        if args.json:
            print("[]")
            return 0
        console.print(escape(f"No runs recorded yet ({exc})."))
        return 0
    except StoreError as exc:  # an unknown run, or a database that cannot be read
        return fail("runs", exc, 1)


# ---- list ----------------------------------------------------------------------------------
STATUS_STYLE = {"completed": "green", "ended by world": "green", "running": "bold cyan",
                "interrupted": "yellow"}


def _list(console: Any, store: Any, limit: int, status: str | None, as_json: bool) -> int:
    from rich.markup import escape
    from rich.table import Table

    runs = store.list_runs(limit=limit, status=status)
    if as_json:
        print("[" + ",\n ".join(_as_json(r, indent=None) for r in runs) + "]")
        return 0
    if not runs:
        which = f' with status "{status}"' if status else ""
        console.print(escape(f"No runs{which} recorded in {store!r} yet."))
        return 0
    wide = console.width >= 110  # the servers column only when there is room for it
    caption = escape(f"{store!r}, newest first; wwm runs show ID") + ("" if wide else " (wider terminal: servers)")
    table = Table(title="Recorded runs", caption=caption)
    table.add_column("ID", justify="right", no_wrap=True)
    table.add_column("name", overflow="fold")
    table.add_column("status", no_wrap=True)
    table.add_column("started UTC", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("s", justify="right", no_wrap=True)
    if wide:
        table.add_column("mind → world", overflow="fold")
    for r in runs:
        table.add_row(str(r.id), escape(r.name), _status(r.status),
                      f"{r.started_at:%m-%d %H:%M:%S}", str(r.step_count), _num(r.total_score),
                      "" if r.seconds is None else f"{r.seconds:.1f}",
                      *([escape(f"{_short(r.mind_url)} → {_short(r.world_url)}")] if wide else []))
    console.print(table)
    return 0


# ---- show ----------------------------------------------------------------------------------
def _show(console: Any, store: Any, args: argparse.Namespace) -> int:
    run = store.get_run(args.run_id, max_steps=args.steps, from_step=args.from_step)
    if args.json:
        print(_as_json(run))
    else:
        _print_run(console, run, args.from_step)
    if args.plot:
        from ..store.plot import plot_scores

        path = plot_scores(run, store.step_scores(run.id), args.plot)
        print(f"plot of the score per step saved to {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _print_run(console: Any, run: Any, from_step: int) -> None:
    import yaml
    from rich.markup import escape
    from rich.table import Table

    meta = Table(title=f"Run {run.id}: {escape(run.name or '(unnamed)')}", show_header=False)
    meta.add_column(style="bold")
    meta.add_column(overflow="fold")
    finished = "" if run.finished_at is None else f"{run.finished_at:%Y-%m-%d %H:%M:%S}"
    for key, value in [
        ("status", _status(run.status)),
        ("started (UTC)", f"{run.started_at:%Y-%m-%d %H:%M:%S}"),
        ("finished (UTC)", finished),
        ("seconds", "" if run.seconds is None else f"{run.seconds:.2f}"),
        ("steps", str(run.step_count)),
        ("total score", _num(run.total_score)),
        ("world's score at End run", _num(run.world_score)),
        ("mind's score at End run", _num(run.mind_score)),
        ("mind", escape(run.mind_url)),
        ("world", escape(run.world_url)),
        ("recorded by", escape(f"pid {run.pid} on {run.host}")),
        ("settings", escape(", ".join(f"{k}={v}" for k, v in sorted(run.settings.items())))),
        ("society", escape(yaml.safe_dump(run.society, sort_keys=False, allow_unicode=True,
                                          default_flow_style=False, width=60).rstrip())),
    ]:
        meta.add_row(key, value)
    console.print(meta)

    if run.events:
        events = Table(title=f"Events ({len(run.events)})")
        for name in ("step", "kind", "at (UTC)", "text"):
            events.add_column(name, overflow="fold")
        for e in run.events:
            events.add_row(str(e.step), e.kind, "" if e.at is None else f"{e.at:%H:%M:%S.%f}"[:-3], escape(e.text))
        console.print(events)

    if run.steps:
        last = run.steps[-1].index
        steps = Table(title=f"Steps {run.steps[0].index}-{last} of {run.step_count}",
                      caption=None if last + 1 >= run.step_count else
                      f"more: wwm runs show {run.id} --from {last + 1} --steps N")
        columns: list[tuple[str, JustifyMethod]] = [
            ("step", "right"), ("state x", "left"), ("action a", "left"), ("new state y", "left"),
            ("score", "right"), ("Q", "right"), ("ms", "right"), ("note", "left")]
        for name, justify in columns:
            steps.add_column(name, justify=justify, overflow="ellipsis", max_width=40)
        for s in run.steps:
            action = "[italic](cannot suggest)" if s.action is None else _cut(s.action)
            steps.add_row(str(s.index), _cut(s.state), action, _cut(s.new_state), _num(s.score),
                          _num(s.mind_q), f"{s.seconds * 1000:.1f}", _cut(s.note or ""))
        console.print(steps)
    elif run.step_count and from_step == 0:
        console.print(f"{run.step_count} steps (wwm runs show {run.id} --steps N to see them)")


def _status(status: str) -> str:
    from rich.markup import escape

    return f"[{STATUS_STYLE.get(status, 'red')}]{escape(status)}"


def _short(url: str) -> str:
    return url.removeprefix("http://").removeprefix("https://").rstrip("/")


def _cut(text: str, width: int = 60) -> str:
    from rich.markup import escape

    text = text.replace("\n", "⏎")
    return escape(text if len(text) <= width else text[: width - 1] + "…")


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _as_json(run: Any, indent: int | None = 2) -> str:
    import dataclasses
    import json
    from datetime import datetime

    def default(value: Any) -> Any:
        if isinstance(value, datetime):
            return value.isoformat()
        raise TypeError(f"not JSON: {type(value).__name__}")

    doc = dataclasses.asdict(run)
    doc["seconds"] = run.seconds
    return json.dumps(doc, default=default, indent=indent, ensure_ascii=False)
