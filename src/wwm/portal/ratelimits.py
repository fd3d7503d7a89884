"""Per-address rate limits on the portal's costly or spammable forms (sign-up, sign-in,
register a server, compose/save, start a run, ...): past its allowance, an address is
answered 429 with Retry-After and a page saying how long to wait, before any work is done.

Each (action, address) has a token bucket: ``burst`` requests at once, then one more every
``per / burst`` seconds. An address is counted as :mod:`.signins` counts it (an IPv4 address,
or an IPv6 /64). The buckets are in this process's memory (a portal of several processes
allows each its share: the limits are to keep one process answering, not exact quotas), and
the clock is injectable (``clock``), so tests step time instead of waiting for it.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .signins import network_of


@dataclass(frozen=True)
class Limit:
    """``burst`` requests at once from one address, refilled at ``burst`` per ``per`` seconds."""

    burst: int
    per: float

    def __post_init__(self) -> None:
        if self.burst < 1 or not self.per > 0:
            raise ValueError(f"a limit is at least 1 request per more than 0 s (got {self.burst} per {self.per})")


# (method, path pattern) -> action; each action's words (for the 429 page) and default limit
ACTIONS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("POST", re.compile(r"/signup"), "signup"),
    ("POST", re.compile(r"/signin"), "signin"),
    ("POST", re.compile(r"/servers"), "register"),
    ("POST", re.compile(r"/compose"), "compose"),
    ("POST", re.compile(r"/combination/[^/]+/runs"), "run"),
    ("POST", re.compile(r"/combination/[^/]+/search"), "search"),
    ("POST", re.compile(r"/challenges"), "challenge"),
    ("POST", re.compile(r"/challenge/[^/]+/entries"), "entry"),
    ("POST", re.compile(r"/recover/[^/]+"), "recover"),
    ("POST", re.compile(r"/me/.*"), "identity"),
)
WORDS = {"signup": "sign up", "signin": "sign in", "register": "register a server", "compose": "compose",
         "run": "start a run", "search": "start a search", "challenge": "create a challenge",
         "entry": "enter a challenge", "recover": "use a recovery link", "identity": "change your identity"}
DEFAULTS: dict[str, Limit] = {
    "signup": Limit(5, 600.0),           # each costs a password hash
    "signin": Limit(10, 60.0),           # failures are slowed further by signins.py
    "register": Limit(20, 600.0),        # each fetches a card
    "compose": Limit(60, 600.0),         # every press of the compose form (add a member, save)
    "run": Limit(20, 600.0),
    "search": Limit(5, 600.0),
    "challenge": Limit(10, 600.0),
    "entry": Limit(20, 600.0),
    "recover": Limit(10, 600.0),
    "identity": Limit(20, 600.0),
}


def parse_limit(text: str) -> tuple[str, Limit]:
    """``ACTION=N/SECONDS`` (``run=100/600``: 100 runs at once, then 100 per 10 minutes), as
    ``wwm portal --rate-limit`` takes it; ValueError saying what is wrong."""
    action, _, rest = text.partition("=")
    count, _, per = rest.partition("/")
    if action.strip() not in DEFAULTS:
        raise ValueError(f"expected ACTION=N/SECONDS with ACTION one of {', '.join(DEFAULTS)}, not {text!r}")
    try:
        return action.strip(), Limit(int(count), float(per))
    except ValueError:
        raise ValueError(f"expected ACTION=N/SECONDS, N a whole number >= 1 and SECONDS more than 0, "
                         f"not {text!r}") from None


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class RateLimits:
    """The buckets; ``limits`` overrides :data:`DEFAULTS` per action, ``clock`` gives seconds."""

    limits: dict[str, Limit] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    max_keys: int = 100_000
    _buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)

    def limit_of(self, action: str) -> Limit:
        return self.limits.get(action) or DEFAULTS[action]

    def take(self, action: str, address: str) -> int | None:
        """Count one ``action`` from ``address``: None if allowed, else whole seconds to wait."""
        limit, now = self.limit_of(action), self.clock()
        key = (action, network_of(address))
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._forget(now)
            bucket = self._buckets[key] = _Bucket(float(limit.burst), now)
        rate = limit.burst / limit.per
        bucket.tokens = min(float(limit.burst), bucket.tokens + max(0.0, now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return max(1, math.ceil((1.0 - bucket.tokens) / rate))

    def _forget(self, now: float) -> None:
        """Drop the buckets full again (their addresses are as if never seen), then, if still
        too many, the oldest half."""
        for key, bucket in list(self._buckets.items()):
            limit = self.limit_of(key[0])
            if bucket.tokens + (now - bucket.at) * limit.burst / limit.per >= limit.burst:
                del self._buckets[key]
        if len(self._buckets) >= self.max_keys:
            for key in sorted(self._buckets, key=lambda k: self._buckets[k].at)[: self.max_keys // 2]:
                del self._buckets[key]


def action_of(method: str, path: str) -> str | None:
    for verb, pattern, action in ACTIONS:
        if method == verb and pattern.fullmatch(path):
            return action
    return None


Refuse = Callable[[Request, str, int], Response]


class RateLimitMiddleware:
    """ASGI middleware: a request of a limited action past its address's allowance is answered
    by ``refuse(request, action, seconds)`` (a 429 page with Retry-After), unread."""

    def __init__(self, app: ASGIApp, limits: RateLimits, refuse: Refuse,
                 address: Callable[[Request], str]) -> None:
        self.app, self.limits, self.refuse, self.address = app, limits, refuse, address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            action = action_of(scope["method"], scope["path"])
            if action is not None:
                request = Request(scope)
                wait = self.limits.take(action, self.address(request))
                if wait is not None:
                    response = self.refuse(request, action, wait)
                    response.headers["retry-after"] = str(wait)
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
