"""A server's card as the portal reads it: the URL a visitor typed, checked and tidied; the
card fetched safely (:mod:`.fetching`) and checked to be a WWM server's card. The card stays
untrusted: every page shows its text escaped."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .fetching import FetchFailed, FetchRefused, Policy, fetch

ROLES = ("world", "mind")


class NotAServer(FetchFailed):
    """Something answers at the URL, but not a WWM server."""


@dataclass(frozen=True)
class Card:
    url: str
    card: dict[str, Any]
    latency_ms: float


def tidy_url(text: str) -> str:
    """The URL a visitor typed, trimmed, with ``/`` for an empty path; a clear refusal for one
    that is not an http(s) URL."""
    text = text.strip()
    if not text:
        raise FetchRefused("give the server's URL, e.g. http://example.org:8000/")
    if len(text) > 2000:
        raise FetchRefused("that URL is longer than 2000 characters")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise FetchRefused(f"{text!r} is not a well-formed URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchRefused(f"{text!r} is not a URL the portal can read: it starts with http:// or "
                           "https:// and names a host")
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


async def read_card(url: str, policy: Policy) -> Card:
    """The card of the server at ``url`` (a JSON object naming its role), or a clear error."""
    fetched = await fetch(url, policy, accept="application/json")
    not_wwm = f"{url} answers, but it is not a WWM server"
    if fetched.status != 200:
        raise NotAServer(f"{not_wwm}: it answered HTTP {fetched.status} where a server shows its card")
    try:
        card = json.loads(fetched.body)
    except (ValueError, UnicodeDecodeError):
        raise NotAServer(f"{not_wwm}: its answer is not a server's JSON card") from None
    if not isinstance(card, dict) or "wwm" not in card:
        raise NotAServer(f"{not_wwm}: its JSON does not describe a WWM server")
    if card.get("role") not in ROLES:
        raise NotAServer(f"{not_wwm}: its card names no role the portal knows (world or mind)")
    return Card(url, card, fetched.elapsed_ms)
