"""``wwm check URL``: is this World or Mind server, in whatever language, a conforming
World-Wide-Mind server? Every query of its role, the run lifecycle, and refusals of bad input."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the server's URL")
    parser.add_argument("--state", help="a state to give a mind (Get action, Inform); by default the example "
                                        "on its card, else 'x'")
    parser.add_argument("--world", metavar="URL",
                        help="check a mind with the states of a run in this World, its actions executed there")
    parser.add_argument("--action", help="an action to execute in a world (skipped if not given)")
    parser.add_argument("--encoding", choices=["json", "xml"], default="json")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds allowed per query")
    parser.add_argument("--json", action="store_true",
                        help="print the checks as JSON on stdout (name, passed, detail, seconds) instead of a table")


def run(args: argparse.Namespace) -> int:
    import json
    from urllib.parse import urlsplit

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from ..client.conformance import check_server
    from ..commands import fail, run_async

    if urlsplit(args.url).scheme not in ("http", "https") or not urlsplit(args.url).netloc:
        return fail("check", f"expected the server's http:// or https:// URL, not {args.url!r}", 2)
    if args.world is not None and urlsplit(args.world).scheme not in ("http", "https"):
        return fail("check", f"--world: expected a World's http:// or https:// URL, not {args.world!r}", 2)
    checks = run_async(check_server(args.url, state=args.state, action=args.action, world=args.world,
                                      encoding=args.encoding, timeout=args.timeout))
    unreachable = [c for c in checks if c.refusal is not None and c.refusal.code == "unreachable"]
    if len(unreachable) == len(checks):
        return fail("check", checks[0].detail, 1)  # in the words of every command
    failed = sum(not c.passed for c in checks)
    if args.json:
        print(json.dumps({"url": args.url, "encoding": args.encoding, "passed": len(checks) - failed,
                          "failed": failed,
                          "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail,
                                      "seconds": round(c.seconds, 6)} for c in checks]}, indent=2))
        return 1 if failed else 0
    table = Table(title=escape(f"wwm check {args.url} ({args.encoding})"))
    for column in ("check", "result", "detail", "ms"):  # in 80 columns a detail wraps, never cut
        table.add_column(column, overflow="fold", no_wrap=column in ("result", "ms"),
                         justify="right" if column == "ms" else "left")
    for c in checks:
        table.add_row(escape(c.name), "[green]pass[/]" if c.passed else "[red]FAIL[/]", escape(c.detail),
                      f"{c.seconds * 1000:.1f}")
    console = Console()
    console.print(table)
    console.print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0
