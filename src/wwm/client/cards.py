"""A server's card: the JSON description it publishes at its URL (role, query sets, formats,
arguments, bindings, credit trail), read by clients that need to know what a URL is.

The one place the client reads cards: :func:`fetch_card` (in an event loop),
:func:`fetch_card_sync` (without one), :func:`wait_for_card` (a server that may still be
starting), and :func:`card_url` (where a Mind or World URL of any binding is described). A
server hosted in this process (:mod:`.inprocess`) is read there, with no socket.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..protocol.errors import Refusal
from .backoff import Backoff
from .inprocess import hosted, request
from .statuses import MISSING, NothingThere, NotListening

__all__ = ["NotListening", "card_url", "fetch_card", "fetch_card_sync", "wait_for_card"]  # (NotListening: its old home)
from .transport import unreachable

DEFAULT_TIMEOUT = 10.0
_ACCEPT = {"Accept": "application/json"}
_HTTP_OF = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def card_url(url: str) -> str | None:
    """Where the server at this URL describes itself (HTTP GET): an http(s) URL as it is, a
    WebSocket one (``ws://host:port/ws``) without its /ws; None over TCP, whose binding
    carries queries only."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _HTTP_OF:
        return None
    if scheme in ("http", "https"):
        return url
    path = parts.path.rstrip("/").removesuffix("/ws")
    return f"{_HTTP_OF[scheme]}://{parts.netloc}{path}/"


def _with_format(url: str) -> str:
    """``url`` asking for JSON in its query too (``?format=json``), for servers that do not
    read Accept."""
    return url if urlsplit(url).query else url + "?format=json"


async def fetch_card(url: str, *, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """The JSON card a server publishes at its URL (GET, asking for JSON). ``Refusal``
    ("unreachable") when it cannot be read: :class:`NotListening` when nothing listens
    there, "nothing at that path" (naming the server's root when a World or Mind answers
    there) when the path is wrong."""
    try:
        return await _fetch_card(url, timeout)
    except NothingThere as nothing:
        raise await nothing.with_root(fetch_card) from None


async def _fetch_card(url: str, timeout: float) -> dict[str, Any]:
    app = hosted(url)
    if app is not None:
        try:
            reply = await request(app, "GET", query="format=json", headers=list(_ACCEPT.items()), timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise unreachable(url, exc) from None
        return _card(url, reply.status, reply.body)
    import aiohttp

    try:
        async with aiohttp.ClientSession() as session, session.get(
                _with_format(url), headers=_ACCEPT, timeout=aiohttp.ClientTimeout(total=timeout)) as answer:
            status, body = answer.status, await answer.read()
    except aiohttp.ClientConnectorError as exc:
        if _refused(exc.os_error):
            raise NotListening(url) from None
        raise unreachable(url, exc) from None
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise unreachable(url, exc) from None
    return _card(url, status, body)


def fetch_card_sync(url: str, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """The server's JSON card, read without an event loop (a hosted app's from the app)."""
    app = hosted(url)
    if app is not None:
        return _card(url, 200, json.dumps(app.card()).encode())
    try:
        with urllib.request.urlopen(urllib.request.Request(_with_format(url), headers=_ACCEPT),
                                    timeout=timeout) as reply:
            status, body = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, b""
    except OSError as exc:
        raise Refusal("unreachable", f"{url} could not be described: {exc}") from None
    return _card(url, status, body)


async def wait_for_card(url: str, *, wait: float, timeout: float = DEFAULT_TIMEOUT,
                        on_wait: Callable[[], None] | None = None) -> dict[str, Any]:
    """:func:`fetch_card`, waiting up to ``wait`` seconds for a server where nothing listens
    yet (started a moment ago), trying again after pauses that double (``on_wait`` is called
    before the first); :class:`NotListening` if it still does not listen."""
    deadline = asyncio.get_running_loop().time() + wait
    backoff = Backoff(0.05, 0.5)
    told = False
    while True:
        try:
            return await fetch_card(url, timeout=timeout)
        except NotListening:
            pause = backoff.next()
            if asyncio.get_running_loop().time() + pause > deadline:
                raise
            if not told and on_wait is not None:
                on_wait()
                told = True
            await asyncio.sleep(pause)


def _card(url: str, status: int, body: bytes) -> dict[str, Any]:
    if status in MISSING:
        raise NothingThere(url, status)
    if status != 200:
        raise Refusal("unreachable", f"{url} answered GET with HTTP {status}")
    try:
        card = json.loads(body)
    except ValueError:
        raise Refusal("unreachable", f"{url} could not be described: its card is not JSON") from None
    if not isinstance(card, dict):
        raise Refusal("unreachable", f"{url} could not be described: its card is not a JSON object")
    return card


def _refused(exc: OSError) -> bool:
    """Whether connecting failed because nothing listens there (for every address tried)."""
    import errno

    if exc.errno == errno.ECONNREFUSED:
        return True
    text = str(exc)  # several addresses tried (localhost: ::1 and 127.0.0.1), each refused
    refused = text.count(f"[Errno {errno.ECONNREFUSED}]")
    return text.startswith("Multiple exceptions") and text.count("[Errno") == refused
