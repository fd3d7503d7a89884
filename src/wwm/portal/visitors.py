"""Who is visiting, and the forms they may send.

Every visitor carries one cookie, signed with the portal's secret key: a random nonce (to which
the visitor's CSRF token is tied) and, once they have one, their user ID (an anonymous identity
made on first need, or an account). A POST is accepted only with the form field ``csrf`` equal
to the token of the nonce in that visitor's cookie, so another site cannot send a form in the
visitor's name. :class:`VisitorMiddleware` reads and (re)writes the cookie, and puts the
security headers, the Content-Security-Policy first, on every response.
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

    def become(self, user_id: int | None) -> None:
        """Sign in as ``user_id`` (None: out), with a fresh nonce (so a token seen before the
        change, or a cookie planted before it, is worth nothing after)."""
        self.user_id, self.nonce, self.changed = user_id, secrets.token_urlsafe(16), True


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
        user = data.get("u")
        return Visitor(data["n"], user if isinstance(user, int) else None)

    def dump(self, visitor: Visitor) -> str:
        return str(self.serializer.dumps({"n": visitor.nonce, "u": visitor.user_id}))

    def csrf_token(self, visitor: Visitor) -> str:
        return hmac.new(self.key, b"csrf:" + visitor.nonce.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, visitor: Visitor, token: object) -> bool:
        return isinstance(token, str) and hmac.compare_digest(self.csrf_token(visitor), token)


def visitor_of(request: Request) -> Visitor:
    visitor: Visitor = request.scope["state"]["visitor"]
    return visitor


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
        visitor = self.signer.load(request.cookies.get(COOKIE))
        if visitor is None:
            visitor = Visitor(secrets.token_urlsafe(16), changed=True)
        scope.setdefault("state", {})["visitor"] = visitor

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if visitor.changed:
                    headers.append("set-cookie", self.cookie(visitor))
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def cookie(self, visitor: Visitor) -> str:
        parts: list[Any] = [f"{COOKIE}={self.signer.dump(visitor)}", "Path=/", f"Max-Age={COOKIE_SECONDS}",
                            "HttpOnly", "SameSite=Lax"]
        if self.secure_cookie:
            parts.append("Secure")
        return "; ".join(parts)
