"""Sign-in that resists password guessing: failed sign-ins are counted per username and per
client address in the portal's database (so every process of the portal sees the same
counts), and past a few failures that key is refused for a while, longer with each further
failure, never longer than ``SigninLimits.longest``.

- A refused sign-in is answered at once, without checking the password (HTTP 429 with
  Retry-After): guessing is slowed to one try per refusal.
- A username that has no account is counted and refused exactly as one that has: the answers
  do not tell an attacker which names exist.
- A successful sign-in clears its username's count (not its address's: otherwise an attacker
  with an account of their own could clear their address's count between guesses).
- The owner is never locked out for ever: a refusal ends, and a count is forgotten a day
  after its last failure; the account's recovery link works whatever the count.
- Sign-up is no way around it: a sign-up refused because the username is taken (which tells
  that the name exists) counts as a failure of the address, and an address refused for
  sign-in is refused for sign-up too.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from .models import User
from .store import PortalError, PortalStore


@dataclass(frozen=True)
class SigninLimits:
    """How many failures are answered at once, and how long the refusals after them last."""

    name_free: int = 5            # failures of one username answered at once
    address_free: int = 20        # failures from one client address (a NAT may hide many people); 0: not counted
    first_refusal: float = 1.0    # seconds; doubles with each further failure
    longest: float = 15 * 60.0    # no refusal lasts longer
    forget: float = 24 * 3600.0   # a count starts again this long after its last failure

    def __post_init__(self) -> None:
        if self.name_free < 1:
            raise ValueError(f"name_free must be at least 1 (got {self.name_free})")
        if self.address_free < 0:
            raise ValueError(f"address_free must be at least 0, 0 for addresses not counted (got {self.address_free})")
        for name in ("first_refusal", "longest", "forget"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be more than 0 seconds (got {getattr(self, name)})")

    def refusal(self, failures: int, free: int) -> float:
        """Seconds the key is refused after its ``failures``-th failure."""
        if failures < free:
            return 0.0
        return min(self.longest, self.first_refusal * 2.0 ** min(failures - free, 60))


class TooManyFailures(PortalError):
    """Sign-in refused for ``retry_after`` seconds: too many failures for this name or address."""

    def __init__(self, text: str, retry_after: int) -> None:
        super().__init__(text)
        self.retry_after = retry_after


def _key(kind: str, value: str) -> str:
    if kind == "address":
        value = network_of(value)
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def network_of(address: str) -> str:
    """What one client's address is counted as: an IPv4 address, or an IPv6 address's /64
    (one host or household usually has a whole /64 to pick addresses from)."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class SigninGuard:
    """Signs visitors in through ``store``, counting failures as ``limits`` says; ``clock``
    gives the time in seconds since the epoch (a test's clock steps it)."""

    def __init__(self, store: PortalStore, limits: SigninLimits | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store, self.limits, self.clock = store, limits or SigninLimits(), clock

    def sign_in(self, username: str, password: str, address: str) -> User:
        """The user, or :class:`TooManyFailures` (the password unchecked) or the store's one
        message for a wrong username or password (counted)."""
        at, limits = self.clock(), self.limits
        name, place = _key("name", username), _key("address", address)
        refused = self.store.refusals([name, place] if limits.address_free else [name], at)
        if name in refused:
            raise TooManyFailures(f"too many failed sign-ins for {username}; try again in "
                                  f"{_seconds(refused[name] - at)} s", _seconds(refused[name] - at))
        if place in refused:
            raise self._address_refused(refused[place] - at)
        try:
            user = self.store.sign_in(username, password)
        except PortalError:
            self.store.add_signin_failure(name, at, limits.forget, lambda n: limits.refusal(n, limits.name_free))
            self.address_failed(address)
            raise
        self.store.clear_signin_failures(name)
        return user

    def check_address(self, address: str) -> None:
        """:class:`TooManyFailures` if ``address`` is refused now (sign-up asks this first)."""
        if not self.limits.address_free:
            return
        at = self.clock()
        refused = self.store.refusals([_key("address", address)], at)
        if refused:
            raise self._address_refused(next(iter(refused.values())) - at)

    def address_failed(self, address: str) -> None:
        """Count a failure of ``address`` (a failed sign-in, or a sign-up that found its
        username taken), unless addresses are not counted."""
        limits = self.limits
        if not limits.address_free:
            return
        self.store.add_signin_failure(_key("address", address), self.clock(), limits.forget,
                                      lambda n: limits.refusal(n, limits.address_free))

    def _address_refused(self, seconds: float) -> TooManyFailures:
        return TooManyFailures(f"too many failed sign-ins from your address; try again in {_seconds(seconds)} s",
                               _seconds(seconds))


def _seconds(seconds: float) -> int:
    """Whole seconds to wait (Retry-After's unit), at least 1."""
    return max(1, math.ceil(seconds))
