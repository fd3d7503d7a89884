"""The ``wwm`` command line: one subcommand per module in :data:`COMMANDS`.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int`` and keeps its
heavy imports inside ``run`` so that ``wwm --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("wwm.cli.demo", "start a world, several minds and a Mind_M on loopback and run a society"),
    "serve": ("wwm.cli.serve", "serve a Python World or Mind class: wwm serve module:Class --port N"),
    "serve-exec": ("wwm.cli.serve_exec", "serve a program in any language that reads stdin and writes stdout"),
    "check": ("wwm.cli.check", "check that a server at URL (in any language) answers the protocol correctly"),
    "run": ("wwm.cli.run", "run a mind in a world (a society file, or --mind URL --world URL)"),
    "runs": ("wwm.cli.runs", "list and show recorded runs"),
    "lambdastar": ("wwm.cli.lambdastar", "the Λ* dynamic intelligence test"),
    "compare": ("wwm.cli.compare", "compare Action Selection methods in one world"),
    "meta": ("wwm.cli.meta", "meta-execution: Meta(A) and HCH at the terminal"),
    "acl": ("wwm.cli.acl", "agent communication: conversations, commitments, Contract Net"),
    "tworld": ("wwm.cli.tworld", "T-World: the Tileworld, its proxy and its browser view"),
    "docs": ("wwm.cli.docs", "build and open the documentation site"),
    "portal": ("wwm.cli.portal", "the portal: browse servers, compose, link, run, watch"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wwm", description="The World-Wide-Mind in Python.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # a command not built yet
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(only=first if first in COMMANDS else None)
    args = parser.parse_args(argv)
    if getattr(args, "_module", None) is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
