"""The sizes and counts a server accepts from a stranger, in one place (docs/protocol.md,
"Limits and quotas", lists them): a World or Mind server is meant to be put online for anyone,
so every value a client sends that the server keeps (a run, its display fields, the credit
trail) or echoes (a refusal's text) has a bound here, and the memory one client can make a
server hold is bounded with it.

A value past its limit is refused with a one-line text that quotes at most
:data:`QUOTED` characters of it (:func:`quote`) and names at most :data:`NAMED` items of a list
(:func:`some`); what the server keeps of a run's last state and action for its display page
is cut to :data:`KEPT_TEXT` characters (:func:`kept`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# ---- values in a query --------------------------------------------------------------------
CLIENT_URL = 2048    # characters of a "client URL" (what a browser's address bar takes); longer: refused
RUN_ID = 256         # characters of a run ID (a server's own are 22); longer: unknown-run at once
ITEM_NAME = 256      # characters of a data item's name; longer: refused
ITEMS = 1024         # data items in one query; more: refused
KEPT_TEXT = 16_384   # characters of a run's last state and action kept for its display page

# ---- what a refusal quotes -----------------------------------------------------------------
QUOTED = 60          # characters of a value sent that a refusal's text repeats
NAMED = 5            # items of a list a refusal's text names (then "and N more")

# ---- runs and connections (the server's defaults; ``wwm serve`` options change them) --------
RUNS = 10_000             # runs in progress on one server
RUNS_PER_CLIENT = 100     # runs in progress per client URL
RUNS_PER_ADDRESS = 1000   # runs in progress per network address (whatever client URLs they give)
CONNECTIONS_PER_ADDRESS = 256  # open connections from one network address
SILENT_SECONDS = 10.0     # a connection that sends no whole request head in this time is closed
HEAD_BYTES = 64 * 1024    # bytes of an HTTP request's line and headers
PIPELINED = 64            # HTTP requests read ahead of their answers on one connection
WAITING = 256             # persistent-binding messages read ahead of their answers
TURN = 32                 # persistent-binding messages answered before other connections' turn


def quote(value: Any, limit: int = QUOTED) -> str:
    """``repr(value)`` cut to at most ``limit`` characters (a refusal never echoes a megabyte),
    saying how long the whole was when it was cut."""
    text = repr(value) if not isinstance(value, str) or len(value) <= 4 * limit else repr(value[: 4 * limit])
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return text[: limit - 3] + "..." + size


def some(names: Iterable[Any], limit: int = NAMED) -> str:
    """At most ``limit`` of ``names``, each quoted, then how many more there are."""
    names = list(names)
    shown = ", ".join(quote(name) for name in names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def kept(text: str | None) -> str | None:
    """What a run keeps of a state or action text for its display page."""
    return text if text is None or len(text) <= KEPT_TEXT else text[:KEPT_TEXT]
