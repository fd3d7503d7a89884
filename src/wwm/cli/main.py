"""The ``wwm`` command line: one subcommand per :class:`~wwm.commands.Command` in
:data:`wwm.commands.COMMANDS` (wwm's own, then other packages' entry points).

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int`` and keeps its
heavy imports inside ``run`` so that ``wwm --help`` stays fast.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import os
import signal
import sys
import threading
from typing import NoReturn

from ..commands import COMMANDS, interrupted
from ..registry import PluginError


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
    for name in COMMANDS:
        try:
            spec = COMMANDS.lookup(name)
        except PluginError as exc:  # another package's broken command: named, not fatal
            print(f"wwm: {exc}", file=sys.stderr)
            continue
        if only is not None and name != only:
            sub.add_parser(name, help=spec.help, add_help=False)
            continue
        module = importlib.import_module(spec.module)
        command = sub.add_parser(name, help=spec.help, description=spec.help, formatter_class=HelpFormatter)
        module.add_arguments(command)
        add_common_options(command)
        command.set_defaults(_module=module, _parser=command)
    return parser


def exit_with_parent() -> None:
    """Started by :class:`wwm.server.process.ServerProcess` (``WWM_EXIT_WITH_PARENT=1``), this
    process's stdin is a pipe its parent holds open: when the parent dies, even by SIGKILL, the
    pipe ends and this process stops as on SIGTERM, so a killed test run leaves no servers
    behind. (The variable is taken out of the environment: this process's own children are not
    watched this way.)"""
    if os.environ.pop("WWM_EXIT_WITH_PARENT", None) != "1":
        return

    def watch() -> None:
        try:  # the raw descriptor: a daemon thread in a buffered read aborts interpreter shutdown
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="exit with parent", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    exit_with_parent()
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
    except BrokenPipeError:  # the reader went (``wwm runs show 1 | head``): stop as quietly as it did
        devnull = os.open(os.devnull, os.O_WRONLY)  # (Python's advice: no second error at exit)
        os.dup2(devnull, sys.stdout.fileno())
        return 1  # (as Python's documentation and rich do)


if __name__ == "__main__":
    sys.exit(main())
