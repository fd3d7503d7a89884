"""``wwm acl``: agent conversations and their commitments.

``wwm acl show LOG`` prints a logged conversation with the commitments after each act;
``wwm acl replay LOG`` re-checks every message of a log and reports any difference;
``wwm acl protocols`` lists the protocols and checks each against the tracker;
``wwm acl demo`` runs Contract Net over contractor servers on loopback.
"""

from __future__ import annotations

import argparse

from ..commands import fail, interrupted, unreadable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="acl_command", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="print a logged conversation with the commitments after each act")
    show.add_argument("log", help="a conversation log (JSON lines, as agents write with log=FILE)")
    show.add_argument("--conversation", "-c", help="only this conversation-id")
    show.add_argument("--html", metavar="FILE", help="also write the conversation as a web page")
    replay = sub.add_parser("replay", help="re-check every message of a log; exit 1 if any verdict differs")
    replay.add_argument("log")
    replay.add_argument("--conversation", "-c")
    protocols = sub.add_parser("protocols", help="list the interaction protocols and check each against the tracker")
    protocols.add_argument("files", nargs="*", metavar="FILE", help="also check protocols written in YAML or JSON")
    demo = sub.add_parser("demo", help="Contract Net: one manager allocates a task among contractor servers")
    demo.add_argument("--contractors", type=int, default=6, help="how many contractor servers (at least 3)")
    demo.add_argument("--needed", type=int, default=2, help="how many contractors the task needs")
    demo.add_argument("--deadline", type=float, default=1.0, help="seconds to wait for proposals")
    demo.add_argument("--log", default=None, help="write the manager's conversation log here")
    demo.add_argument("--encoding", choices=("json", "xml"), default="xml",
                      help="how the manager's messages travel (contractors answer in JSON)")


def run(args: argparse.Namespace) -> int:
    from .message import AclError

    try:
        if args.acl_command in ("show", "replay"):
            return _show(args)
        if args.acl_command == "protocols":
            return _protocols(args.files)
        return _demo(args)
    except AclError as exc:
        return fail(f"acl {args.acl_command}", exc, 2)
    except OSError as exc:
        return fail(f"acl {args.acl_command}", unreadable(exc), 2)


def _show(args: argparse.Namespace) -> int:
    from . import log

    entries = log.read(args.log)
    if not entries:
        print(f"{args.log} holds no messages")
        return 0
    if args.conversation is not None:
        known = sorted({e.message.conversation_id or "" for e in entries})
        if args.conversation not in known:
            return fail(f"acl {args.acl_command}", f"{args.log} holds no message of conversation "
                                                   f"{args.conversation!r} (it has: {', '.join(known)})", 2)
    if args.acl_command == "show":
        print(log.show(entries, args.conversation))
        if args.html:
            with open(args.html, "w", encoding="utf-8") as page:
                page.write(log.html(entries, args.conversation, f"Conversation log {args.log}"))
            print(f"web page written to {args.html}")
        return 0
    steps = list(log.replay(entries, args.conversation))
    differ = [s for s in steps if not s.agrees]
    for n, step in enumerate(steps, 1):
        mark = "ok " if step.agrees else "DIFFERS"
        print(f"{n:3}. {mark} " + "; ".join(str(v) for v in step.verdicts))
    print(f"{len(steps)} message(s) replayed, {len(differ)} differ from the log")
    return 1 if differ else 0


def _protocols(files: list[str]) -> int:
    from .protocols import PROTOCOLS, check, load

    bad = 0
    for protocol in [*PROTOCOLS.values(), *(load(f) for f in files)]:
        findings = check(protocol)
        bad += len(findings)
        finals = ", ".join(sorted(protocol.final))
        print(f"{protocol.name}: {len(protocol.arcs)} arcs, opens with {', '.join(protocol.opening)}, "
              f"final states {finals}: " + ("checked, no problem" if not findings else f"{len(findings)} problem(s)"))
        for finding in findings:
            print(f"   {finding}")
    return 1 if bad else 0


def _demo(args: argparse.Namespace) -> int:
    import asyncio
    import math
    from concurrent.futures import ThreadPoolExecutor

    from rich.console import Console
    from rich.progress import Progress

    from ..server.process import ServerProcess
    from . import log as acl_log
    from .agent import Agent
    from .contractnet import Allocation, contract_net
    from .directory import Directory
    from .network import serve_agent

    if args.contractors < 3:
        return fail("acl demo", "--contractors must be at least 3 (one is silent, one reneges)", 2)
    if not 1 <= args.needed <= args.contractors - 2:
        return fail("acl demo", f"--needed must be between 1 and {args.contractors - 2}", 2)
    if not math.isfinite(args.deadline) or args.deadline <= 0:
        return fail("acl demo", f"--deadline must be a positive number of seconds, not {args.deadline:g}", 2)
    if args.log:
        open(args.log, "a", encoding="utf-8").close()   # an unwritable log fails before servers start
    console = Console()
    plan = [("mute", 1.0, "silent"), ("flake", 2.0, "renege")]
    plan += [(f"c{n}", 3.0 + 2 * n, "honest") for n in range(1, args.contractors - 1)]
    servers = [ServerProcess("wwm.acl.contractnet:Contractor",
                             args={"name": name, "price": price, "mode": mode, "services": "haulage"})
               for name, price, mode in plan]
    try:
        try:
            with Progress(console=console, transient=True, disable=args.quiet) as progress:
                bar = progress.add_task("starting contractor servers", total=len(servers))
                with ThreadPoolExecutor(len(servers)) as pool:
                    for _ in pool.map(lambda s: s.start(), servers):
                        progress.advance(bar)
        except (RuntimeError, TimeoutError) as exc:
            return fail("acl demo", f"a contractor server did not start: {exc}", 1)
        if not args.quiet:
            for (name, price, mode), server in zip(plan, servers, strict=True):
                console.print(f"  {name:6} {server.url}  price {price:g}  ({mode})")

        async def main() -> tuple[Agent, Allocation]:
            directory = Directory()
            for server in servers:
                await directory.register(server.url)
            boss = Agent("boss", log_path=args.log)
            async with serve_agent(boss, encoding=args.encoding) as url:
                if not args.quiet:
                    console.print(f"  boss   {url}  (manager, speaking {args.encoding.upper()})\n")
                result = await contract_net(boss, directory.find("haulage"), "(haul crates)",
                                            needed=args.needed, deadline=args.deadline)
            return boss, result

        boss, result = asyncio.run(main())
    except KeyboardInterrupt:
        return interrupted("acl demo", f"the conversation so far is logged in {args.log}" if args.log
                           else "nothing saved")
    finally:
        for server in servers:
            server.stop()
    for n, r in enumerate(result.rounds, 1):
        console.print(f"[bold]round {n}[/bold] ({r.conversation}): proposals {r.proposals}; refused {r.refused}; "
                      f"silent {r.silent}; accepted {r.accepted} (team {sorted(r.team)}); "
                      f"done {r.done}; dropped {r.dropped}")
    print()
    print(acl_log.show(boss.log.entries))
    print()
    owed = boss.tracker.obligations("boss", soft=True)
    console.print(f"task allocated to {result.contractors}" if result.complete
                  else f"[red]only {result.contractors} of {result.needed} places filled[/red]")
    console.print("every team formed was disbanded; nothing is owed" if not owed and all(
        not boss.tracker.team(r.conversation) for r in result.rounds) else f"[red]still owed: {owed}[/red]")
    if args.log:
        console.print(f"log written to {args.log}: see it again with  wwm acl show {args.log}")
    return 0 if result.complete and not owed else 1
