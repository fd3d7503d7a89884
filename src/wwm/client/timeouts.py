"""The client's time-out handed to the top-level mind (section 9.2, New run: "maximum allowable
timeout before mind must return an action"; 8.2.2: the client controls time).

A mind that declares a ``timeout`` argument in its card (an Action Selection server: seconds
per round of queries to its minds) is sent a share of the client's own in its New run, when
the time-out it would otherwise use is longer, so that it decides on whatever has come in
before the client gives up on it; as an AS hands a share of its own down to its minds
(9.2 note 1). A time-out written for the mind (its society document, ``--mind-arg``) stays.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..protocol.errors import Refusal
from .cards import card_url, fetch_card
from .remote import RemoteMind

log = logging.getLogger("wwm.client")

# The share of the client's time-out the mind may spend deciding; the rest is the network's
# and the mind's own work around its decision (the same share an AS hands down to its minds).
TIMEOUT_SHARE = 0.8


async def offer_timeout(mind: Any, timeout: float) -> float | None:
    """Add ``timeout`` = TIMEOUT_SHARE x ``timeout`` to the New run arguments of a remote
    ``mind`` whose card declares the argument with a longer value in force; the value offered,
    or None (not remote, declares none, has a shorter one, has one written for it, or its card
    cannot be read within ``timeout``: the run's own queries will meet that)."""
    if not isinstance(mind, RemoteMind):
        return None
    limit = round(timeout * TIMEOUT_SHARE, 6)
    if "timeout" in mind.args:
        if _number(mind.args["timeout"]) >= timeout:
            log.warning("%s: the time-out written for it (%s s) is not below the client's own (%g s): "
                        "the client may time it out before it decides", mind.url, mind.args["timeout"], timeout)
        return None
    described = card_url(mind.url)
    if described is None:
        return None
    try:
        card = await asyncio.wait_for(fetch_card(described), timeout)
    except (Refusal, TimeoutError):
        return None
    schema = card.get("arguments")
    declared = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if "timeout" not in declared:
        return None
    in_force = card.get("arguments_in_force", {}).get("timeout")
    current = _number(in_force.get("value")) if isinstance(in_force, dict) else float("inf")
    if current <= limit:
        return None
    mind.args["timeout"] = limit
    return limit


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")
