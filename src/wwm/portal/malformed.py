"""Numbers past any id, answered 4xx before they reach the database: a path or a query with a
number past 2^63 - 1 (the largest id a row can have), and the database's own refusal of one
that came in a form (a 400 saying so, never a 500).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from sqlalchemy.exc import DBAPIError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

MAX_ID = 2**63 - 1               # the largest id a database row can have


def _past_ids(text: str) -> bool:
    return text.isdigit() and text.isascii() and (len(text) > 19 or int(text) > MAX_ID)


def too_big_a_number(exc: BaseException) -> bool:
    """Whether ``exc`` is the database refusing an integer past 64 bits (SQLite's
    OverflowError, PostgreSQL's "out of range"), a number from a form met no check."""
    if isinstance(exc, OverflowError):
        return True
    return isinstance(exc, DBAPIError) and "out of range" in str(exc.orig)


class BigIds:
    """ASGI middleware: a path or a query with a number past the largest id a row can have
    (2^63 - 1) is answered 404 (400 for the query) saying so, before a route hands the number
    to the database."""

    def __init__(self, app: Any, refuse: Callable[[Request, str, int], Response]) -> None:
        self.app, self.refuse = app, refuse

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for part in scope["path"].split("/"):
                if _past_ids(part):
                    shown = part if len(part) <= 30 else part[:30] + "..."
                    await self.refuse(Request(scope), f"There is nothing numbered {shown} here: numbers in the "
                                                      f"portal's addresses are at most {MAX_ID}.", 404)(
                        scope, receive, send)
                    return
            query = scope.get("query_string", b"").decode("latin-1")
            for name, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
                if _past_ids(value):
                    await self.refuse(Request(scope), f"{name[:40]!r} is {value[:30]}{'...' if len(value) > 30 else ''}"
                                                      f", past any id here: numbers here are at most {MAX_ID}.", 400)(
                        scope, receive, send)
                    return
        await self.app(scope, receive, send)
