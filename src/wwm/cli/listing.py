"""``wwm list [KIND]``: what can be named, built in or added by other installed packages:
worlds and minds to serve (``wwm serve NAME``), Action Selection methods, ACL protocols, Λ*
agents and Tileworld agents, each with where it comes from and what it is."""

from __future__ import annotations

import argparse
from typing import Any

KINDS = ("worlds", "minds", "methods", "protocols", "lambdastar-agents", "tileworld-agents")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", nargs="?", choices=KINDS, help="one kind only (default: all)")
    parser.add_argument("--json", action="store_true", help="print the lists as JSON on stdout")
    parser.add_argument("--long", "-l", action="store_true",
                        help="worlds and minds in full: seed section, state and action formats and spaces, "
                             "arguments with defaults")
    parser.add_argument("--markdown", action="store_true",
                        help="the catalogue of worlds and minds as Markdown (docs/catalogue.md)")


def registries() -> dict[str, Any]:
    """Each kind's registry, by the name ``wwm list`` gives it."""
    from ..acl.protocols import PROTOCOLS
    from ..lambdastar.agents import TEAMS
    from ..registry import MINDS, WORLDS
    from ..selection.methods import METHODS
    from ..tileworld.agents import BUILTIN

    return {"worlds": WORLDS, "minds": MINDS, "methods": METHODS, "protocols": PROTOCOLS,
            "lambdastar-agents": TEAMS, "tileworld-agents": BUILTIN}


def describe(registry: Any, name: str) -> dict[str, str]:
    """One registered thing: its name, what it is (a class's ``module:Class``), who added it,
    and the first line of its documentation; a plugin that cannot be loaded says why."""
    from ..registry import PluginError

    try:
        thing = registry.lookup(name)
    except PluginError as exc:
        return {"name": name, "target": "", "from": registry.origin(name), "about": f"cannot be loaded: {exc}"}
    target = (f"{thing.__module__}:{thing.__qualname__}" if isinstance(thing, type)
              else f"{type(thing).__module__}:{type(thing).__qualname__}")
    doc = getattr(thing, "doc", None) or getattr(thing, "description", None) or (thing.__doc__ or "")
    return {"name": name, "target": target, "from": registry.origin(name),
            "about": " ".join(str(doc).strip().split("\n\n")[0].split())}


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    if args.markdown or args.long:
        return _catalogue(args)
    chosen = [args.kind] if args.kind else list(KINDS)
    found = {kind: [describe(registry, name) for name in registry]
             for kind, registry in registries().items() if kind in chosen}
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    console = Console()
    for kind, rows in found.items():
        table = Table(title=kind, title_justify="left", show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column("name", no_wrap=True, style="bold")
        table.add_column("about", overflow="fold")
        for row in rows:
            origin = "" if row["from"] == "wwm" else f" [dim](from {escape(row['from'])})[/dim]"
            table.add_row(escape(row["name"]), escape(row["about"] or row["target"]) + origin)
        console.print(table)
        console.print()
    console.print("[dim]wwm serve NAME serves a world or a mind by its name; wwm list --json "
                  "gives each one's module:Class[/dim]", soft_wrap=True)
    return 0


def catalogued(kind: str) -> list[Any]:
    """The catalogue entries of the worlds or the minds (a plugin that cannot load is left out)."""
    from ..registry import PluginError
    from .catalogue import entry

    registry = registries()[kind]
    entries = []
    for name in registry:
        try:
            entries.append(entry(name, registry.lookup(name)))
        except PluginError:
            continue
    return entries


def _catalogue(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from rich.console import Console
    from rich.markup import escape
    from rich.padding import Padding
    from rich.table import Table

    from ..commands import fail
    from .catalogue import markdown

    kinds = [args.kind] if args.kind else ["worlds", "minds"]
    if any(k not in ("worlds", "minds") for k in kinds):
        return fail("list", "--long and --markdown describe worlds and minds only", 2)
    found = {kind: catalogued(kind) for kind in kinds}
    if args.markdown:
        print(markdown(found.get("worlds", []), found.get("minds", [])), end="")
        return 0
    if args.json:
        print(json.dumps({kind: [asdict(e) for e in entries] for kind, entries in found.items()}, indent=2))
        return 0
    console = Console()
    for kind, entries in found.items():
        console.print(f"[bold]{kind}[/bold]")
        for e in entries:
            grid = Table.grid(padding=(0, 1))
            grid.add_column(style="dim", no_wrap=True)
            grid.add_column(overflow="fold")
            grid.add_row("", escape(e.about))
            rows = [("seed", e.section or "-"), ("state", e.state_format), ("action", e.action_format),
                    ("state space", e.state_space), ("action space", e.action_space),
                    ("arguments", ", ".join(f"{k}={v}" for k, v in e.arguments.items()) or "none")]
            for label, text in rows:
                if text:
                    grid.add_row(label, escape(text))
            console.print(f"\n[bold]{escape(e.name)}[/bold]")
            console.print(Padding(grid, (0, 0, 0, 2)))
        console.print()
    return 0
