"""The ``wwm`` command line: one subcommand per module in :data:`COMMANDS`.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int`` and keeps its
heavy imports inside ``run`` so that ``wwm --help`` stays fast.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import sys
from typing import NoReturn

from .common import interrupted

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("wwm.cli.demo", "start a world, several minds and a Mind_M on loopback and run a society"),
    "serve": ("wwm.cli.serve", "serve a Python World or Mind class: wwm serve module:Class --port N"),
    "serve-exec": ("wwm.cli.serve_exec", "serve a program in any language that reads stdin and writes stdout"),
    "list": ("wwm.cli.listing", "what can be named: worlds and minds to serve, AS methods, protocols, agents"),
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


class HelpFormatter(argparse.HelpFormatter):
    """--help shows every option's default, unless its help already says it."""

    def add_argument(self, action: argparse.Action) -> None:
        if action.help is None and _has_default(action):  # an option with no help text
            action = copy.copy(action)
            action.help = "(default: %(default)s)"
        super().add_argument(action)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" not in text and _has_default(action):
            text += " (default: %(default)s)"
        return text


def _has_default(action: argparse.Action) -> bool:
    return (bool(action.option_strings) and action.nargs != 0
            and action.default not in (None, False, [], "", argparse.SUPPRESS))


class Parser(argparse.ArgumentParser):
    """Bad usage is one line, ``wwm COMMAND: what was wrong``, and exit status 2."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("wwm").strip() or "wwm"
        hint = f"wwm {command} --help" if command != "wwm" else "wwm --help"
        self.exit(2, f"wwm {command}: {message} (see {hint})\n" if command != "wwm"
                  else f"wwm: {message} (see {hint})\n")


def add_common_options(parser: argparse.ArgumentParser, inherited: bool = False) -> None:
    """-q and -v on every command (docs/cli.md), and on each action of a command that has them
    (``wwm runs show -q``: argparse reads options after the action's name). An action's own
    flags default to "not given", so ``wwm runs -q show 1`` keeps the command's ``-q``."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if actions:
        for child in dict.fromkeys(actions[0].choices.values()):
            child.formatter_class = HelpFormatter
            child.set_defaults(_parser=child)  # a mistake after the action names the action
            add_common_options(child, inherited=True)
    default = argparse.SUPPRESS if inherited else False
    parser.add_argument("-q", "--quiet", action="store_true", default=default,
                        help="no progress bars or chatter: results and errors only")
    parser.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="say more: every event, and the library's log")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = Parser(prog="wwm", description="The World-Wide-Mind in Python.", formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
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
        command = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormatter)
        module.add_arguments(command)
        add_common_options(command)
        command.set_defaults(_module=module, _parser=command)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(only=first if first in COMMANDS else None)
    args, extra = parser.parse_known_args(argv)
    if extra:
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "_module", None) is None:
        parser.print_help()
        return 0 if args.command is None else 2
    if args.verbose:
        import logging

        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        return interrupted(args.command, "stopped")


if __name__ == "__main__":
    sys.exit(main())
