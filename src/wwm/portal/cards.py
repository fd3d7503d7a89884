"""A server's card as the portal reads it: the URL a visitor typed, checked and made canonical
(one server, one entry; no credentials); the
card fetched safely (:mod:`.fetching`) and checked to be a WWM server's card. The card stays
untrusted: every page shows its text escaped."""

from __future__ import annotations

import ipaddress
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .fetching import FetchFailed, FetchRefused, Policy, fetch

ROLES = ("world", "mind")
LOOPBACK = "127.0.0.1"          # how this machine is written in a canonical URL


class NotAServer(FetchFailed):
    """Something answers at the URL, but not a WWM server."""


@dataclass(frozen=True)
class Card:
    url: str
    card: dict[str, Any]
    latency_ms: float


def tidy_url(text: str) -> str:
    """The canonical form of the URL a visitor typed (one server, one entry; see
    :func:`canonical_url`), or a clear refusal: not an http(s) URL, or one carrying a user
    name or password (never stored, never shown)."""
    text = text.strip()
    if not text:
        raise FetchRefused("give the server's URL, e.g. http://example.org:8000/")
    if len(text) > 2000:
        raise FetchRefused("that URL is longer than 2000 characters")
    if not text.isprintable():
        raise FetchRefused("that URL has control characters in it")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise FetchRefused(f"{text[:200]!r} is not a well-formed URL") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FetchRefused(f"{text[:200]!r} is not a URL the portal can read: it starts with http:// or "
                           "https:// and names a host")
    if "@" in parts.netloc:
        raise FetchRefused("that URL carries a user name or password (user:secret@host): the portal never "
                           "stores or shows them; give the server's URL without them")
    return canonical_url(text)


def canonical_url(text: str) -> str:
    """One spelling per server: scheme and host in lower case; every name and spelling of this
    machine (``localhost``, ``0.0.0.0``, which reaches this host, ``127.0.0.1``, ``0x7f000001``,
    ``2130706433``, ``[::ffff:127.0.0.1]``) as ``127.0.0.1``; any other IPv4 address in dotted decimal (an
    IPv4-mapped IPv6 one too), an IPv6 address compressed in brackets, a name in its IDNA
    (ASCII) form without a final dot; the default port (80, 443) left out; an empty path as ``/``
    (another path as given: a server's path is its own to name); the query kept, the fragment
    dropped. ``text`` is a checked http(s) URL without user or password (:func:`tidy_url`)."""
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    host = _canonical_host(parts.hostname or "")
    port = parts.port
    netloc = host if port in (None, 443 if scheme == "https" else 80) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _canonical_host(host: str) -> str:
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return LOOPBACK
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = _legacy_ipv4(host)
    if address is None:
        try:
            return host.encode("idna").decode("ascii")
        except UnicodeError:
            raise FetchRefused(f"{host[:200]!r} is not a host name the portal can read") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address) and (address == ipaddress.IPv4Address(LOOPBACK)
                                                       or address.is_unspecified):
        return LOOPBACK
    return f"[{address.compressed}]" if address.version == 6 else str(address)


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """An IPv4 address in a form browsers and C libraries accept (``0x7f000001``,
    ``2130706433``, ``0177.0.0.1``, ``127.1``), or None for a name."""
    if not host or any(c not in "0123456789abcdefx." for c in host) or not host[0].isdigit():
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


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
