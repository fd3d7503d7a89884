"""A server's card: the JSON description it publishes at its URL (role, query sets, formats,
arguments, bindings, credit trail), read by clients that need to know what a URL is."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from ..protocol.errors import Refusal
from .transport import unreachable


async def fetch_card(url: str) -> dict[str, Any]:
    """The JSON card a server publishes at its URL (GET with Accept: application/json)."""
    import aiohttp

    try:
        async with aiohttp.ClientSession() as session, session.get(url, headers={"Accept": "application/json"},
                               timeout=aiohttp.ClientTimeout(total=10)) as reply:
            if reply.status != 200:
                raise Refusal("unreachable", f"{url} answered GET with HTTP {reply.status}")
            card = await reply.json(content_type=None)
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise unreachable(url, exc) from None
    return _card(url, card)


def fetch_card_sync(url: str, timeout: float = 10.0) -> dict[str, Any]:
    """The server's JSON card, fetched without an event loop."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            card = json.loads(reply.read())
    except (OSError, ValueError) as exc:
        raise Refusal("unreachable", f"{url} could not be described: {exc}") from None
    return _card(url, card)


def _card(url: str, card: object) -> dict[str, Any]:
    if not isinstance(card, dict):
        raise Refusal("unreachable", f"{url} could not be described: its card is not a JSON object")
    return card
