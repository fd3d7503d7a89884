"""``wwm meta``: be A inside Meta(HCH(A, n)) at the terminal, or run a scripted A, and look
at stored computations as trees.

``wwm meta`` alone is the original's ``examples.meta.act("test")``: you are A, each screen is
shown, each line you type is a command. ``act``/``hch``/``sort`` run one computation,
``list``/``tree`` show saved ones, ``forget`` removes a bad memo answer.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from ..commands import fail, interrupted

if TYPE_CHECKING:
    from rich.console import Console

    from .hch import HCH
    from .ledger import Call, Step
    from .session import Session

T = TypeVar("T")


def escape(text: str) -> str:
    """``text`` shown as it is by rich, never read as markup (a reply may well hold ``[/]``)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _computation_options(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """The options of a computation, on ``wwm meta`` itself (``top``) and on each subcommand.

    A subcommand's options default to "not given", so ``wwm meta --budget 5 hch Q`` keeps
    the 5 rather than having the subcommand's default overwrite it.
    """
    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    parser.add_argument("--amplify", "-a", default=default(None), metavar="A",
                        help="who A is: human, scripted, scripted-listener, lines:FILE, or a Mind server URL "
                             "(default: scripted for sort, human otherwise)")
    parser.add_argument("--budget", "-n", type=int, default=default(10 ** 8),
                        help="budget of each top-level question")
    parser.add_argument("--db", metavar="FILE", default=default(None),
                        help="SQLite file to save the computation and memo in")
    parser.add_argument("--no-memo", action="store_true", default=default(False),
                        help="never answer a screen from the memo")
    parser.add_argument("--rounded", action="store_true", default=default(False),
                        help="show budgets rounded down to a power of ten (helps the memo)")
    parser.add_argument("--split", choices=("tenth", "all"), default=default(None),
                        help="what an ask without $b hands over (default: all but one for sort, whose "
                             "recursion a tenth would starve after about 8 levels; a tenth otherwise, "
                             "as the original)")
    parser.add_argument("--tree", action="store_true", default=default(False),
                        help="print the computation as a tree at the end")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="meta_command", metavar="SUBCOMMAND")
    act = sub.add_parser("act", help="Meta(A) acts on one observation (default: you are A, on 'test')")
    act.add_argument("observation", nargs="?", default="test")
    _computation_options(act)
    hch = sub.add_parser("hch", help="ask HCH(A, n) one question and print its reply")
    hch.add_argument("question")
    _computation_options(hch)
    sort = sub.add_parser("sort", help="Meta(scripted A) sorts integers it sees only through pointers")
    sort.add_argument("numbers", nargs="+", type=int)
    _computation_options(sort)
    listing = sub.add_parser("list", help="list the computations saved in a file")
    listing.add_argument("--db", metavar="FILE", required=True)
    show = sub.add_parser("tree", help="show a saved computation as a tree")
    show.add_argument("id", nargs="?", type=int, help="computation number (default: the last)")
    show.add_argument("--db", metavar="FILE", required=True)
    show.add_argument("--steps", action="store_true", help="show every screen and the line typed")
    show.add_argument("--html", metavar="FILE", help="also write the tree as a web page")
    forget = sub.add_parser("forget", help="remove memo answers whose key starts with PREFIX")
    forget.add_argument("prefix")
    forget.add_argument("--db", metavar="FILE", required=True)
    # ``wwm meta`` alone: act on "test" with you as A
    _computation_options(parser, top=True)
    # -q and -v are on each subcommand (wwm.cli.main.add_common_options); ``wwm meta`` alone
    # still needs their values
    parser.set_defaults(observation="test", quiet=False, verbose=False)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from sqlalchemy.exc import DatabaseError

    from ..protocol.errors import Refusal
    from .agents import OutOfLines
    from .meta import DecodeError
    from .session import SettingsError

    console = Console(highlight=False)
    command = args.meta_command or "act"
    db: str | None = getattr(args, "db", None)
    saved: str = db or ""  # list, tree and forget require --db
    if command in ("list", "tree", "forget"):
        problem = _not_a_meta_database(saved)
        if problem:
            return fail(f"meta {command}", problem, 2)
    try:
        if command == "list":
            return _list(console, saved)
        if command == "tree":
            return _tree(console, saved, args.id, args.steps, args.html)
        if command == "forget":
            return _forget(saved, args.prefix)
        return _run_until_complete(_compute(console, args, command))
    except (SettingsError, KeyError, DatabaseError, EOFError, OutOfLines, DecodeError, Refusal) as exc:
        text, code = _explain(exc, db)
        return fail("meta", text, code)
    except KeyboardInterrupt:
        if sys.stdout.isatty():
            print()  # off the prompt's line
        human = command in ("act", "hch") and (args.amplify or "human") == "human"
        return interrupted("meta", f"the answers typed so far are kept in {db}; the same command resumes"
                           if human and db else "nothing saved")


def _run_until_complete(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on a new event loop that leaves Ctrl-C alone.

    ``asyncio.run`` turns the first Ctrl-C into a cancellation, which a person blocked in
    ``input()`` (or a computation that never yields) does not see until a second Ctrl-C;
    here the first one raises KeyboardInterrupt at once.
    """
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


def _explain(exc: Exception, db: str | None) -> tuple[str, int]:
    """What went wrong, for a person, and the exit status."""
    from sqlalchemy.exc import DatabaseError

    from ..protocol.errors import Refusal
    from .agents import OutOfLines
    from .meta import DecodeError

    if isinstance(exc, EOFError):
        return "input ended before the computation finished; nothing was returned", 1
    if isinstance(exc, DecodeError):
        return f"Meta(A) could not read the answer: {exc}", 1
    if isinstance(exc, Refusal):  # A is a Mind server that failed during the computation
        return f"A did not answer: {exc}", 1
    if isinstance(exc, DatabaseError):
        return f"{db} cannot be used as a meta-execution database ({exc.orig})", 2
    if isinstance(exc, KeyError):
        return str(exc.args[0]), 2
    return str(exc), 1 if isinstance(exc, OutOfLines) else 2  # a script ran out, or a bad setting


async def _compute(console: Console, args: argparse.Namespace, command: str) -> int:
    from .messages import Message
    from .session import Session, Settings

    amplify = args.amplify or ("scripted" if command == "sort" else "human")
    split = args.split or ("all" if command == "sort" else "tenth")
    settings = Settings(amplify, args.budget, not args.no_memo, args.db,
                        "rounded" if args.rounded else "exact", split)
    session = await Session.open(settings, out=sys.stdout)
    human = amplify == "human"
    session.store.memo.durable = human  # each answer saved as typed: a cut-short session resumes
    if human:
        def show_memo_answer(call: Call, step: Step) -> None:
            if step.cached:
                print(f"{step.observation}\n>>> {step.action}    (answered from the memo)", flush=True)

        session.hch.on_step = show_memo_answer
    with _progress(console, session.hch, shown=not human and not args.quiet):
        if command == "hch":
            answer = await session.hch.ask(Message((args.question,)))  # "[]" typed is text, not a slot
            console.print(f"\n[bold]HCH replied[/] {escape(answer.reply.expand())}")
            _report(console, args, session, f"hch {args.question!r}", [answer.call])
        elif command == "sort":
            value, calls = await session.meta.compute("what is the sorted version of the list []?", args.numbers,
                                                      returns=list[int])
            console.print(f"[bold]sorted:[/] {' '.join(map(str, value))}")
            console.print(f"the sort itself spent {calls[0].spent} of its budget of {calls[0].budget}")
            _report(console, args, session, f"sort {args.numbers}", calls)
        else:  # act, again and again while a person is A
            observation: str | None = args.observation
            while observation is not None:
                step = await session.meta.step(observation)
                session.meta = step.meta
                console.print(f"\n[bold]Meta(A) returned[/] {escape(repr(step.action))}")
                console.print(f"[bold]new state:[/] {escape(step.meta.state.expand())}")
                _report(console, args, session, f"act {observation!r}", step.calls)
                observation = _next_observation() if human else None
    return 0


@contextmanager
def _progress(console: Console, hch: HCH, shown: bool) -> Iterator[None]:
    """A live line counting calls to A while a program (not a person) is A: a network A that
    never replies spends its whole budget, one round trip per operation, and says nothing."""
    if not shown:
        yield
        return
    counts = {"a": 0, "memo": 0}
    with console.status("Meta(A) at work…") as status:
        def count(call: Call, done: Step) -> None:
            counts["memo" if done.cached else "a"] += 1
            if (counts["a"] + counts["memo"]) % 50 == 1:
                status.update(f"Meta(A) at work: {counts['a']:,} calls to A, {counts['memo']:,} answered "
                              f"from the memo, now {call.depth} asks deep (Ctrl-C stops)")
        hch.on_step = count
        try:
            yield
        finally:
            hch.on_step = None


def _report(console: Console, args: argparse.Namespace, session: Session, label: str,
            calls: list[Call]) -> None:
    """Totals, the accounts checked, the computation saved and drawn if asked."""
    from .tree import summary, tree

    for call in calls:
        call.check()
    totals = summary(calls)
    console.print(f"{totals['calls']} questions, {totals['ops']} operations, {totals['a_calls']} calls to A, "
                  f"{totals['cache_hits']} answered from the memo, {totals['loops']} loops refused")
    if args.db:
        number = session.store.record(label, calls)
        console.print(f"saved as computation {number} in {escape(args.db)}")
    if args.tree:
        console.print(tree(calls, label))


def _next_observation() -> str | None:
    """The next observation for Meta(A) from the person; None when they stop."""
    try:
        line = input("\nnext observation for Meta(A) (an empty line or the end of input stops)\n>>> ")
    except EOFError:
        return None
    if not sys.stdin.isatty():
        print(line)
    return line or None


def _not_a_meta_database(db: str) -> str | None:
    """Why ``db`` cannot be read as a saved meta-execution database, or None if it can.

    Checked read-only, so pointing ``list``/``tree``/``forget`` at another program's SQLite
    file says so instead of adding empty meta-execution tables to it.
    """
    import sqlite3
    from contextlib import closing
    from pathlib import Path

    path = Path(db)
    if not path.is_file():
        return f"no such file {db}"
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        return f"{db} cannot be used as a meta-execution database ({exc})"
    if not {"computations", "calls", "memo"} <= tables:
        return f"{db} is not a meta-execution database (it has no computations, calls and memo tables)"
    return None


def _list(console: Console, db: str) -> int:
    from .store import Store

    for number, label, created in Store(db).computations():
        console.print(f"{number:>4}  {created}  {escape(label)}")
    return 0


def _tree(console: Console, db: str, number: int | None, steps: bool, html: str | None) -> int:
    from .store import Store
    from .tree import summary, tree

    store = Store(db)
    saved = store.computations()
    if not saved:
        return fail("meta tree", f"{db} holds no computations", 2)
    number = number if number is not None else saved[-1][0]
    calls = store.load_calls(number)
    label = next((label for n, label, _ in saved if n == number), str(number))
    console.print(tree(calls, f"computation {number}: {label}", steps=steps))
    totals = summary(calls)
    console.print(f"budget {totals['budget']}, spent {totals['spent']}; {totals['calls']} questions, "
                  f"{totals['a_calls']} calls to A, {totals['cache_hits']} from the memo")
    if html:
        import io

        from rich.console import Console

        page = Console(record=True, width=160, file=io.StringIO())
        page.print(tree(calls, f"computation {number}: {label}", steps=steps))
        try:
            page.save_html(html, theme=None)
        except OSError as exc:
            return fail("meta tree", f"cannot write {html}: {exc.strerror or exc}", 2)
        console.print(f"wrote {escape(html)}")
    return 0


def _forget(db: str, prefix: str) -> int:
    from .store import Store

    try:
        gone = Store(db).memo.invalidate(prefix)
    except ValueError as exc:
        return fail("meta forget", exc, 2)
    print(f"forgot {gone} memo answer{'s' if gone != 1 else ''}")
    return 0 if gone else 1
