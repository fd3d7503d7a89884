"""Who is visiting, and the forms they may send.

Every visitor carries one cookie, signed with the portal's secret key: a random nonce, and,
once they have one, their user ID (an anonymous identity made on first need, or an account),
whether it is an account, and (until a page has shown it) the recovery token of an identity
made implicitly. A POST is accepted only with the form field ``csrf`` equal to the token of
that visitor's session: an HMAC of the nonce *and* the user ID, so a token is worth nothing
with another identity's cookie; :mod:`.origins` checks the Origin besides (a page on another
port of the same host can plant a cookie, not forge an Origin).

Over HTTPS (a request whose scheme is https, as uvicorn reports it: directly, or from
X-Forwarded-Proto of a proxy given by ``--proxy``) or with ``secure_cookie`` (``--public``),
the cookie is ``__Host-wwm_portal`` with ``Secure``: a browser accepts that name only from a
secure origin, with ``Path=/`` and no ``Domain``, so no plain-HTTP neighbour on the host can
plant it. Otherwise it is ``wwm_portal``. :class:`VisitorMiddleware` reads and (re)writes the
cookie, and puts the security headers, the Content-Security-Policy first, on every response.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "wwm_portal"
SECURE_COOKIE = "__Host-wwm_portal"       # over HTTPS: only a secure origin can set it
COOKIE_SECONDS = 400 * 24 * 3600          # browsers keep a cookie at most 400 days
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",      # secret URLs (recovery, end run) never leave the site
    "x-frame-options": "DENY",
}


@dataclass
class Visitor:
    nonce: str
    user_id: int | None = None
    changed: bool = False                  # write the cookie on the way out
    account: bool = False                  # the user has a username and password
    recovery: str | None = None            # an implicit identity's recovery token, until shown

    def become(self, user_id: int | None, *, account: bool = False, recovery: str | None = None) -> None:
        """Sign in as ``user_id`` (None: out), with a fresh nonce (so a token seen before the
        change, or a cookie planted before it, is worth nothing after). ``recovery``: the
        token of an identity just made implicitly, for the next page to show once."""
        self.user_id, self.nonce, self.changed = user_id, secrets.token_urlsafe(16), True
        self.account, self.recovery = account, recovery

    def take_recovery(self) -> str | None:
        """The recovery token waiting to be shown, forgotten from now on (shown once)."""
        token, self.recovery = self.recovery, None
        if token is not None:
            self.changed = True
        return token


class Signer:
    def __init__(self, secret_key: str) -> None:
        self.key = secret_key.encode()
        self.serializer = URLSafeSerializer(secret_key, salt="wwm-portal-visitor")

    def load(self, cookie: str | None) -> Visitor | None:
        if not cookie:
            return None
        try:
            data = self.serializer.loads(cookie)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("n"), str):
            return None
        user, recovery = data.get("u"), data.get("r")
        return Visitor(data["n"], user if isinstance(user, int) else None, account=data.get("a") is True,
                       recovery=recovery if isinstance(recovery, str) else None)

    def dump(self, visitor: Visitor) -> str:
        data: dict[str, Any] = {"n": visitor.nonce, "u": visitor.user_id}
        if visitor.account:
            data["a"] = True
        if visitor.recovery is not None:
            data["r"] = visitor.recovery
        return str(self.serializer.dumps(data))

    def csrf_token(self, visitor: Visitor) -> str:
        """The session's token: bound to the nonce and to the identity (a token taken with one
        identity's cookie does not pass with another's)."""
        bound = f"csrf:{visitor.nonce}:{visitor.user_id if visitor.user_id is not None else '-'}"
        return hmac.new(self.key, bound.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, visitor: Visitor, token: object) -> bool:
        """Whether ``token`` (a form field: any text, of any length) is this session's."""
        if not isinstance(token, str) or len(token) != 64 or not token.isascii():
            return False
        return hmac.compare_digest(self.csrf_token(visitor).encode(), token.encode())


def visitor_of(request: Request) -> Visitor:
    visitor: Visitor = request.scope["state"]["visitor"]
    return visitor


def is_secure(scope: Scope, secure_cookie: bool) -> bool:
    """Whether this request's cookie is the ``__Host-`` one, with ``Secure``: over HTTPS (the
    scheme uvicorn gives, trusting X-Forwarded-Proto only from ``--proxy``), or always with
    ``secure_cookie``."""
    return secure_cookie or scope.get("scheme") in ("https", "wss")


class VisitorMiddleware:
    """Gives each HTTP request its :class:`Visitor` (a new one, with a new cookie, on a first
    visit or a cookie that does not verify) and each response the security headers."""

    def __init__(self, app: ASGIApp, signer: Signer, *, secure_cookie: bool = False) -> None:
        self.app, self.signer, self.secure_cookie = app, signer, secure_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        secure = is_secure(scope, self.secure_cookie)
        visitor = self.signer.load(request.cookies.get(SECURE_COOKIE if secure else COOKIE))
        if visitor is None:
            visitor = Visitor(secrets.token_urlsafe(16), changed=True)
        scope.setdefault("state", {})["visitor"] = visitor

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if visitor.changed:
                    headers.append("set-cookie", self.cookie(visitor, secure))
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def cookie(self, visitor: Visitor, secure: bool) -> str:
        parts: list[Any] = [f"{SECURE_COOKIE if secure else COOKIE}={self.signer.dump(visitor)}", "Path=/",
                            f"Max-Age={COOKIE_SECONDS}", "HttpOnly", "SameSite=Lax"]
        if secure:
            parts.append("Secure")
        return "; ".join(parts)
