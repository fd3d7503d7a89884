"""Sequence numbers: what makes a query that changes a run happen once, however often it is
sent (issue 29, "exactly-once steps").

A client cannot tell a server that never got a query from one that acted on it and lost the
connection (or died) before its answer reached the client. Sent again, the query would act
twice (one "north" walked two squares); not sent again, the client's record misses a step the
world took. So a client numbers each query that changes a run (Execute action, Inform it about
state, Get action, Reset, ... : every query but New run, Get state, Get display URL, Get
current score and No operation) with the optional item ``sequence number``: a whole number,
one more than the last it gave in that run, and the *same* number when it sends a query again
because its answer was lost. The server keeps, for each run, the answers of its last
:data:`KEPT` numbered queries (in its run table, and in its ``--state`` snapshot in the same
row as the run's state, so a ``kill -9`` can never keep one without the other); a query whose
number is among them is answered with the kept answer plus the item ``repeated`` (true),
without being acted on again; any other number is acted on.

A server that keeps sequence numbers says so in its answer to New run (``sequence numbers``:
true); a client numbers its queries only then, so a server that does not know the item (an
older one, or one written from the seed) never sees it, and a client that does not number its
queries is answered as before.

The numbers need not start at 1: a client that carries on a run it did not start (re-attached
from a record, restored from a snapshot) does not know the last number the server kept, and
starts from a random one (:func:`fresh_start`), which meets a kept number with odds of about
one in 10^15.
"""

from __future__ import annotations

import secrets
from typing import Any

from .errors import Refusal

SEQUENCE = "sequence number"   # the query's item
REPEATED = "repeated"          # the answer's item: this is the answer kept from the first time
SEQUENCED = "sequence numbers"  # New run's answer item: this server keeps them
KEPT = 4  # answers kept per run: a pipelined pair sent again whole finds both
LARGEST = 2**53 - 1  # what every JSON reader holds exactly

# the queries that do not change a run (answered afresh each time; never numbered)
UNNUMBERED = frozenset({"new_run", "get_state", "get_display_url", "get_current_score", "no_operation"})


def numbered(method: str) -> bool:
    """Whether a query answered by ``method`` carries a sequence number."""
    return method not in UNNUMBERED


def fresh_start() -> int:
    """Where a client that does not know the run's last number starts counting."""
    return secrets.randbelow(2**52)


def read(value: Any, query: str) -> int:
    """The sequence number ``value`` (a JSON number or the text of one), or a refusal naming it."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        number = None
    if number is None or not 0 <= number <= LARGEST:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise Refusal("bad-parameters", f'{query}: "{SEQUENCE}" should be a whole number from 0 to '
                      f"2^53-1, got {shown}")
    return number
