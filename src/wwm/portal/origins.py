"""Every state-changing request must come from the portal's own pages: its Origin (or, lacking
one, its Referer) is the portal's own origin, else it is refused (403) before any handler runs.

Why besides the CSRF token (:mod:`.visitors`): cookies are not separated by port, so a page on
another port of the same host can plant the portal's cookie, with a token that matches it, and
post a form in that identity's name; the browser still names the page's true origin in
``Origin``, which no page can forge. What "the portal's own origin" is:

- ``origin`` given (``wwm portal --origin https://portal.example.org``, a public portal): that,
  and only that;
- else the request's own scheme and ``Host`` (the scheme is https behind a proxy given by
  ``--proxy`` that sends ``X-Forwarded-Proto: https``; the proxy must pass ``Host`` on).

A request with neither ``Origin`` nor ``Referer`` is let through to the token check: every
browser sends ``Origin`` with a POST, so such a request comes from a program (a test's client,
``curl``), which no other site can drive. ``Origin: null`` (a sandboxed or privacy-stripped
page) is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}

Refuse = Callable[[Request, str], Response]


def canonical_origin(text: str) -> str | None:
    """``scheme://host[:port]`` in lower case, the default port left out; None if ``text``
    is not an http(s) origin or URL."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" if port in (None, DEFAULT_PORTS[scheme]) else f"{scheme}://{host}:{port}"


def own_origin(request: Request, configured: str | None) -> str | None:
    """The portal's origin as this request should name it."""
    if configured is not None:
        return configured
    host = request.headers.get("host")
    return canonical_origin(f"{request.url.scheme}://{host}") if host else None


def refusal(request: Request, configured: str | None) -> str | None:
    """Why ``request`` (a state-changing one) is refused, or None if its origin is the portal's."""
    given = request.headers.get("origin")
    named = "Origin"
    if given is None:
        given, named = request.headers.get("referer"), "Referer"
        if given is None:
            return None
    own = own_origin(request, configured)
    theirs = canonical_origin(given) if given != "null" else None
    if own is not None and theirs == own:
        return None
    shown = given if len(given) <= 100 and given.isprintable() else given[:100].encode("ascii", "replace").decode()
    return (f"This form was refused: it was sent from {shown!r} (its {named}), not from this portal's own "
            f"pages{f' ({own})' if own else ''}. Open the portal's page and send the form from there.")


class OriginCheck:
    """ASGI middleware: refuses, with ``refuse(request, why)``, every request of a method other
    than GET, HEAD or OPTIONS whose Origin or Referer is not the portal's own."""

    def __init__(self, app: ASGIApp, refuse: Refuse, origin: str | None = None) -> None:
        self.app, self.refuse, self.origin = app, refuse, origin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            request = Request(scope)
            why = refusal(request, self.origin)
            if why is not None:
                await self.refuse(request, why)(scope, receive, send)
                return
        await self.app(scope, receive, send)
