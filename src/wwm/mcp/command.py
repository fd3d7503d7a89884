"""``wwm mcp URL``: serve a World or Mind server's queries as MCP tools over stdio, for an LLM
agent (an MCP client such as Claude Desktop, or any other) to act as its client."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the World or Mind server's URL")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed per query (default 30)")


def run(args: argparse.Namespace) -> int:
    from urllib.parse import urlsplit

    from ..commands import fail, run_async
    from ..protocol.errors import Refusal

    if urlsplit(args.url).scheme not in ("http", "https") or not urlsplit(args.url).netloc:
        return fail("mcp", f"expected the server's http:// or https:// URL, not {args.url!r}", 2)
    try:
        from .bridge import serve_stdio
    except ImportError as exc:
        return fail("mcp", f"the MCP SDK is not installed ({exc}): pip install 'world-wide-mind[mcp]'", 1)
    try:
        run_async(serve_stdio(args.url, timeout=args.timeout))
    except Refusal as refusal:
        return fail("mcp", refusal, 1)  # "unreachable: ...", as every command says it
    except ValueError as exc:
        return fail("mcp", exc, 1)
    except KeyboardInterrupt:
        return 130
    return 0
