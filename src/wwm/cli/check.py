"""``wwm check URL``: is this World or Mind server, in whatever language, a conforming
World-Wide-Mind server? Every query of its role, the run lifecycle, and refusals of bad input."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the server's URL")
    parser.add_argument("--state", default="x", help="a state to give a mind (Get action, Inform)")
    parser.add_argument("--action", help="an action to execute in a world (skipped if not given)")
    parser.add_argument("--encoding", choices=["json", "xml"], default="json")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds allowed per query")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..client.conformance import check_server
    from .common import run_async

    checks = run_async(check_server(args.url, state=args.state, action=args.action,
                                      encoding=args.encoding, timeout=args.timeout))
    table = Table(title=f"wwm check {args.url} ({args.encoding})")
    for column in ("check", "result", "detail", "ms"):
        table.add_column(column)
    for c in checks:
        table.add_row(c.name, "[green]pass[/]" if c.passed else "[red]FAIL[/]", c.detail, f"{c.seconds * 1000:.1f}")
    console = Console()
    console.print(table)
    failed = sum(not c.passed for c in checks)
    console.print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0
