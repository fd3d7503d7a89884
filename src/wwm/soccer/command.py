"""``wwm soccer``: serve a soccer world (WWM queries, the soccer server's UDP protocol and the
browser view on one server), and draw a recorded match.

    wwm soccer serve --port 8360 --udp-port 6000 --arg players=2 --arg half=300 --arg synch=true
    wwm soccer picture match-1.json --out docs/soccer.png --cycle 420
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..commands import parse_pairs, port_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="soccer_command", metavar="ACTION", required=True)
    serve = sub.add_parser("serve", help="serve a soccer world: WWM queries, UDP and the live view")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port_number, default=8360, help="HTTP port (0: any free port)")
    serve.add_argument("--udp-port", type=port_number, default=6000,
                       help="UDP port of the soccer server's text protocol (0: any free port)")
    serve.add_argument("--arg", action="append", metavar="K=V",
                       help="a setting of the world: players, half, seed, cycle_ms, synch, record, config")
    serve.add_argument("--log-level", default="warning")
    picture = sub.add_parser("picture", help="draw a recorded match's field as a PNG")
    picture.add_argument("recording", type=Path)
    picture.add_argument("--out", type=Path, required=True)
    picture.add_argument("--cycle", type=int, default=None, help="the cycle to draw (default: the last)")


def run(args: argparse.Namespace) -> int:
    from ..commands import UsageError, cannot_listen, fail, interrupted, ready_line

    if args.soccer_command == "picture":
        from .recording import RecordingError, load, picture

        try:
            out = picture(load(args.recording), args.out, args.cycle)
        except RecordingError as exc:
            return fail("soccer picture", exc, 2)
        print(out)
        return 0
    from ..protocol.errors import Refusal
    from .app import serve_soccer

    try:
        defaults = parse_pairs(args.arg)
        serve_soccer(defaults, host=args.host, port=args.port, udp_port=args.udp_port,
                     on_ready=lambda url: ready_line("a soccer world", url), log_level=args.log_level)
    except UsageError as exc:
        return fail("soccer serve", exc, 2)
    except (Refusal, ValueError) as exc:
        return fail("soccer serve", exc, 2)
    except OSError as exc:
        if "UDP" in str(exc):
            return fail("soccer serve", exc, 1)
        return cannot_listen("soccer serve", args.host, args.port, exc)
    except KeyboardInterrupt:
        return interrupted("soccer serve", "nothing: the match in progress is lost")
    return 0
