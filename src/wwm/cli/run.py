"""``wwm run society.yaml`` or ``wwm run --mind URL --world URL``: run a mind in a world
with the client algorithm of section 8.2, showing progress, recording the run."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .episodes import add_arguments as add_episode_arguments

if TYPE_CHECKING:
    from rich.console import Console

    from ..client.runner import Event, RunResult, RunSettings, Step
    from ..client.society import Society


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("society", nargs="?", help="a society document (YAML or JSON): a file, or the http(s) URL "
                        "of one, e.g. a portal combination's link")
    parser.add_argument("--mind", help="URL of the top-level Mind server (instead of a document)")
    parser.add_argument("--world", help="URL of the World server (instead of a document)")
    parser.add_argument("--mind-arg", action="append", default=[], metavar="K=V", help="New run argument for the mind")
    parser.add_argument("--world-arg", action="append", default=[], metavar="K=V",
                        help="New run argument for the world")
    parser.add_argument("--steps", type=int, help="number of steps (default: the document's, else 100)")
    parser.add_argument("--timeout", type=float, help="seconds allowed per query")
    parser.add_argument("--policy", choices=["requery", "ignore-late"], help="what to do when the mind times out")
    parser.add_argument("--no-pipeline", dest="pipeline", action="store_false", default=None,
                        help="send Inform and the next Get action one round trip each (by default they go "
                             "back to back where the binding keeps their order)")
    parser.add_argument("--token-file", metavar="FILE",
                        help="a file holding the access token of the mind and world servers given by URL "
                             "(their owner's secret: wwm serve --token-file); a document's own token-file wins")
    add_episode_arguments(parser)
    parser.add_argument("--db", help="SQLAlchemy URL of the run records (default: $WWM_DATABASE_URL or a SQLite file)")
    parser.add_argument("--no-record", action="store_true", help="do not record the run")
    parser.add_argument("--json", action="store_true",
                        help="print the outcome as JSON on stdout (progress goes to stderr)")


def build_society(args: argparse.Namespace) -> Society:
    from ..client.society import SocietyError, load, parse
    from ..commands import UsageError, parse_pairs

    if args.society:
        if args.mind or args.world:
            raise UsageError("give a society document or --mind and --world, not both")
        if args.society.startswith(("http://", "https://")):
            return parse(fetch_document(args.society), source=args.society)
        return load(args.society)
    if not (args.mind and args.world):
        raise UsageError("give a society document, or both --mind URL and --world URL")
    try:
        return parse({"name": "command line", "mind": {"url": args.mind, "args": parse_pairs(args.mind_arg)},
                      "world": {"url": args.world, "args": parse_pairs(args.world_arg)}})
    except SocietyError as exc:
        raise UsageError(str(exc)) from None


FETCH_TIMEOUT = 15.0
FETCH_CAP = 1024 * 1024


def fetch_document(url: str, *, timeout: float = FETCH_TIMEOUT, cap: int = FETCH_CAP) -> Any:
    """The society document at ``url`` (a portal combination's page or its ``society.yaml``,
    or any YAML or JSON document), read with a time-out and a size cap (section 12.2.2)."""
    import urllib.error
    import urllib.request

    import yaml

    from ..client.society import SocietyError

    request = urllib.request.Request(url, headers={
        "Accept": "application/yaml, text/yaml;q=0.9, application/json;q=0.8", "User-Agent": "wwm-run"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 - http(s) only, checked above
            body = reply.read(cap + 1)
            kind = reply.headers.get_content_type()
    except urllib.error.HTTPError as exc:
        raise SocietyError(f"cannot fetch {url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise SocietyError(f"cannot fetch {url}: {reason}") from None
    if len(body) > cap:
        raise SocietyError(f"{url} is larger than {cap // 1024} KB: not a society document")
    if kind == "text/html":
        raise SocietyError(f"{url} is a web page, not a society document (give a combination's link or "
                           "its society.yaml)")
    try:
        return yaml.safe_load(body.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SocietyError(f"{url} is not valid YAML or JSON: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from ..client.session import RoleError
    from ..client.society import SocietyError
    from ..commands import UsageError, fail, interrupted, run_async
    from ..protocol.errors import Refusal
    from ..store import StoreError

    try:
        society = build_society(args)
        if args.token_file:
            for spec in (society.mind, society.world):
                if spec.url is not None and spec.token_file is None:
                    spec.token_file = args.token_file
    except (UsageError, SocietyError) as exc:
        return fail("run", exc, 2)
    # the command line's settings written into the document, so its record says what was run
    given = {"steps": args.steps, "timeout": args.timeout, "policy": args.policy, "pipeline": args.pipeline}
    society.run = society.run.model_copy(update={k: v for k, v in given.items() if v is not None})
    settings = society.settings()
    seen: dict[str, Any] = {}  # the run as far as it went, for the line Ctrl-C prints
    if args.episodes is not None:
        if args.episodes < 1:
            return fail("run", f"--episodes must be at least 1, not {args.episodes}", 2)
        if args.json:
            return fail("run", "--json shows one run; --episodes writes a CSV (see its saved: line)", 2)
    elif args.seeds is not None or args.plot is not None:
        return fail("run", "--seeds and --plot go with --episodes N", 2)
    try:
        if args.episodes is not None:
            from .episodes import episodes

            curve = run_async(episodes(society, settings, args))
            return 0 if all(s in ("completed", "ended by world") for s in curve.statuses) else 1
        result = run_async(execute(society, settings, db=args.db, record=not args.no_record,
                                   quiet=args.quiet, as_json=args.json, seen=seen))
    except KeyboardInterrupt:
        return interrupted("run", _kept(seen.get("result")))
    except Refusal as exc:
        return fail("run", f"{exc.code}: {exc.text}", 1)
    except RoleError as exc:  # a server of the wrong role, named as the user named it
        return fail("run", exc.text(f"--{exc.slot}" if args.mind and exc.where is None else None), 2)
    except SocietyError as exc:
        return fail("run", exc, 2)
    except StoreError as exc:
        return fail("run", f"the run records cannot be used: {exc}", 2)
    return 0 if result.status in ("completed", "ended by world") else 1


def _kept(result: Any) -> str:
    """What an interrupted run left behind, in words."""
    if result is None:
        return "the run had not started; nothing recorded"
    steps = f"after {len(result.steps)} step{'s' * (len(result.steps) != 1)}"
    if result.record_id is None:
        return f"stopped {steps}; the run was not recorded"
    return f"stopped {steps}; recorded as run {result.record_id} (wwm runs show {result.record_id})"


async def execute(society: Society, settings: RunSettings, *, db: str | None = None, record: bool = True,
                  quiet: bool = False, console: Console | None = None, summary: bool = True,
                  as_json: bool = False, seen: dict[str, Any] | None = None) -> RunResult:
    """Run with a progress bar; print the outcome (as JSON with ``as_json``); return the
    RunResult. ``seen["result"]`` holds the run as far as it went, should it be interrupted."""
    import dataclasses

    from ..client.identity import default_client_url

    if settings.client_url is None:
        settings = dataclasses.replace(settings, client_url=default_client_url())
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Column

    from ..client.session import run_society
    from ..store import RunStore

    seen = {} if seen is None else seen
    console = console or Console(stderr=as_json)  # with --json, stdout is the JSON alone
    store = RunStore(db) if record else None
    # in 80 columns a long society name wraps; the figures beside it are never cut
    progress = Progress(TextColumn("[bold]{task.description}", table_column=Column(overflow="fold", ratio=1)),
                        BarColumn(bar_width=20), MofNCompleteColumn(),
                        TextColumn("score {task.fields[score]:.1f}", table_column=Column(no_wrap=True)),
                        TimeElapsedColumn(), console=console, disable=quiet, transient=False)
    task = progress.add_task(society.name, total=settings.steps, score=0.0)

    def on_step(step: Step, result: RunResult) -> None:
        seen["result"] = result
        progress.update(task, advance=1, score=result.total_score)

    def say(text: str) -> None:  # above the progress bar, as it happens, never wrapped mid-word
        progress.console.print(escape(text), soft_wrap=True, highlight=False)

    shown = 0

    def on_event(event: Event, result: RunResult) -> None:  # the end is in the summary; the first 20 others live
        nonlocal shown
        seen["result"] = result
        if event.kind != "run-ended" and shown <= 20 and not quiet:
            shown += 1
            say(f"step {event.step} {event.kind}: {event.text}" if shown <= 20 else
                "more events: see the summary below and the run record")

    try:
        with progress:
            result = await run_society(society, settings=settings, store=store, on_step=on_step,
                                       on_event=on_event, notify=None if quiet else say)
    finally:
        if store is not None:
            store.close()
    if as_json:
        import json

        print(json.dumps({"society": society.name, **summary_of(result)}, indent=2))
    elif summary:
        print_result(console, society, result)
    return result


def summary_of(result: RunResult) -> dict[str, Any]:
    """A run's outcome as plain data: what ``--json`` prints and the summary shows."""
    ended = next((e.text for e in reversed(result.events) if e.kind == "run-ended"), None)
    return {"status": result.status, "steps": len(result.steps), "total_score": result.total_score,
            "world_score": result.world_score, "mind_score": result.mind_score,
            "seconds": round(result.seconds, 3), "why_it_ended": ended,
            "events": [{"step": e.step, "kind": e.kind, "text": e.text} for e in result.events],
            "world_display_url": result.world_display_url, "mind_display_url": result.mind_display_url,
            "record_id": result.record_id}


def print_result(console: Console, society: Society, result: RunResult) -> None:
    """The outcome as one "name: value" line each, not a table: it stays readable in 80
    columns, and URLs and commands stay whole (to click or to copy)."""
    from rich.markup import escape

    data = summary_of(result)
    rows = [("steps", str(data["steps"])),
            ("total score", f"{result.total_score:g} (sum of step scores)"),
            ("world's score at End run", "-" if result.world_score is None else f"{result.world_score:g}"),
            ("mind's score at End run", "-" if result.mind_score is None else f"{result.mind_score:g}"),
            ("seconds", f"{result.seconds:.2f}")]
    if result.steps:
        rows.append(("steps per second", f"{len(result.steps) / max(result.seconds, 1e-9):,.0f}"))
    if data["why_it_ended"]:
        rows.append(("why it ended", data["why_it_ended"]))
    rows.append(("events", ", ".join(f"{e.kind}@{e.step}" for e in result.events[:8]) or "none"))
    if result.world_display_url:
        rows.append(("world display", result.world_display_url))
    if result.mind_display_url:
        rows.append(("mind display", result.mind_display_url))
    if result.record_id is not None:
        rows.append(("record", f"wwm runs show {result.record_id}"))
    console.print(f"[bold]{escape(society.name)}: {escape(result.status)}[/bold]", soft_wrap=True)
    for name, value in rows:
        console.print(f"  [dim]{name}:[/dim] {escape(value)}", soft_wrap=True, highlight=False)
