"""What a client says when no server answers: nothing listening at the address (every
command in the same words), or an HTTP status, not a World-Wide-Mind message, as the
answer: a wrong path (404) is "nothing at that path", with the server's own root suggested
when a World or Mind answers there; a proxy's or framework's error page is named by its status,
never reported as "an unreadable message"."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..protocol.errors import Refusal

PROBE_TIMEOUT = 3.0  # seconds for the root's card, asked only on the way to an error
MISSING = frozenset({404, 405, 410})  # statuses that say "nothing here" when no message comes with them


class NotListening(Refusal):
    """Nothing listens at the URL (the connection was refused, for every address tried); every
    command says so in these words. ``waited``: the seconds given it to start, if any."""

    def __init__(self, url: str, waited: float = 0.0) -> None:
        after = f", still after waiting {waited:g} s for it to start" if waited else ""
        super().__init__("unreachable", f"nothing is listening at {url} (connection refused{after}); "
                                        f"is the server started, and on that port?")


class NothingThere(Refusal):
    """Nothing answers queries at this path: the server said ``status`` with no message."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__("unreachable", f"{url}: nothing at that path ({status})")
        self.url = url
        self.status = status

    async def with_root(self, fetch_card: Callable[..., Awaitable[dict[str, Any]]]) -> Refusal:
        """This refusal, with the server's root named when a World or Mind answers there
        (its card read with ``fetch_card``: :func:`wwm.client.cards.fetch_card`, which
        imports this module)."""
        root = _root(self.url)
        if root is None:
            return self
        try:
            card = await fetch_card(root, timeout=PROBE_TIMEOUT)
        except Refusal:
            return self
        role = card.get("role")
        if role not in ("world", "mind"):
            return self
        name = card.get("name")
        called = f" ({name})" if isinstance(name, str) and name else ""
        return Refusal("unreachable", f"{self.text}; a {role.capitalize()} answers at {root}{called}: use that URL")


def refuse_status(url: str, query_name: str, status: int, body: bytes, readable: bool) -> None:
    """Raise the refusal for an HTTP error status whose body is no message (``readable`` says
    whether it is one: a refusal in XML or JSON is read as such instead)."""
    if status < 400 or readable:
        return
    if status in MISSING:
        raise NothingThere(url, status)
    page = body[:80].decode("utf-8", "replace").split("\n", 1)[0].strip()
    said = f": {page!r}" if page else ""
    raise Refusal("server-error", f"{url} answered {query_name!r} with HTTP {status} and no message{said}")


def _root(url: str) -> str | None:
    """The server's root URL, or None when ``url`` is the root already."""
    parts = urlsplit(url)
    if parts.path in ("", "/") and not parts.query:
        return None
    return urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
