"""The Mind URLs an AS server accepts (9.2.4): http(s):// (the HTTP binding), ws(s)://
(the WebSocket binding, ``ws://host:port/ws``) and ``tcp://host:port`` (the plain TCP binding
a server's card announces); the checks that keep an AS from being its own member; and the
check of a mind's trail of credit (7.2), whose failure refuses the mind (9.2.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..client.cards import card_url
from ..protocol.context import current_server
from ..protocol.errors import Refusal

SCHEMES = ("http", "https", "ws", "wss", "tcp")
_DEFAULT_PORT = {"http": 80, "https": 443}


def check_mind_url(url: str) -> str:
    """``url`` stripped, if it can name a Mind server; otherwise a refusal that names it."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme.lower() not in SCHEMES or not parts.hostname:
        raise Refusal("mind-url-invalid", f"{url!r} is not the URL of a Mind server "
                      "(http://..., https://..., ws://host:port/ws, wss://... or tcp://host:port)")
    if parts.scheme.lower() == "tcp" and (port is None or parts.path not in ("", "/")):
        raise Refusal("mind-url-invalid", f"{url!r}: a TCP binding URL looks like tcp://host:port")
    return url


def _server_key(url: str) -> tuple[str, str, int | None, str] | None:
    """One server's HTTP and WebSocket URLs reduced to the same key (None: not comparable)."""
    try:
        parts = urlsplit(card_url(url) or "")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORT.get(scheme), parts.path.rstrip("/")


def home_url() -> str | None:
    """The URL of the server answering the current query (None outside a server)."""
    trail = current_server.get()
    return trail.url if trail is not None else None


def same_server(url: str | None, other: str | None) -> bool:
    """Whether the two URLs name the same server over HTTP or WebSocket."""
    if not url or not other:
        return False
    key = _server_key(url)
    return key is not None and key == _server_key(other)


def refuse_self(url: str, home: str | None) -> None:
    """Refuse ``url`` as a member when it is the AS's own server (``home``): every New run
    would start a run on itself, which would start another, without end."""
    if same_server(url, home):
        raise Refusal("mind-url-invalid", f"{url} is this Action Selection server itself: "
                      "an AS cannot be its own member (it would call itself without end)")


def check_trail(url: str, card: Mapping[str, Any]) -> None:
    """Before a run: the mind at ``url`` publishes a trail of credit at its URL (7.2: it links
    to every server it calls and every server that calls it), as a mapping whose ``calls``
    and ``called_by`` are lists of links with a URL. A server that hides it cannot be followed:
    a ``credit-trail-failed`` refusal saying what is missing. (A server it calls that has since
    gone is a broken link the mind copes with, section 6, not a reason to refuse it.)"""
    trail = card.get("credit_trail")
    if not isinstance(trail, Mapping):
        raise Refusal("credit-trail-failed", f"{url} publishes no trail of credit at its URL (7.2): "
                      "it does not say which servers it calls and which call it")
    for side in ("calls", "called_by"):
        links = trail.get(side)
        if not isinstance(links, list) or not all(isinstance(link, Mapping) and isinstance(link.get("url"), str)
                                                  for link in links):
            raise Refusal("credit-trail-failed", f"{url}: its trail of credit has no list of links "
                          f"{side!r} (each with a 'url')")


def check_acknowledged(url: str, card: Mapping[str, Any], caller: str) -> None:
    """After New run: the mind's trail names ``caller`` among the servers that call it (7.2
    item 4), or the trail of credit through this society cannot be followed."""
    trail = card.get("credit_trail")
    links = trail.get("called_by") if isinstance(trail, Mapping) else None
    names = [link.get("url") for link in links or [] if isinstance(link, Mapping)]
    if not any(same_server(name, caller) for name in names if isinstance(name, str)):
        raise Refusal("credit-trail-failed", f"{url} started a run for {caller} but its trail of credit "
                      "does not list it among the servers that call it (7.2)")
