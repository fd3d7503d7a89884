"""Fetching the URLs visitors give the portal (a server's card), safely.

Every fetch has a time-out (the whole chain of redirects included) and a size cap. In public
mode a URL is refused unless it is http(s) and its host's every address is a public one: not
loopback, private, link-local, multicast, reserved or unspecified. The check is made after the
name is resolved and again on every redirect (followed here, one hop at a time), and the
connection goes to the very addresses that were checked (a resolver that answers only with
them), so a name that resolves to a public address for the check and to a private one for the
connection (DNS rebinding) gains nothing. Local mode (development, ``wwm portal`` without
``--public``) allows every address; the scheme is checked in both.

**Every connection, not only card reads.** A name registered while it pointed at a public
address may be re-pointed at a private one later. So the same check is made again, with a
fresh resolution, whenever the portal connects to a registered URL: before a run connects to
its World and Mind and before a resumed run re-attaches (:func:`society_guard`, given to the
run service: every URL of the society, the members a Mind_AS server is asked to call
included), when a challenge's entry is judged (through the run service), and when a search is
started (every URL of its combination). The run's own client resolves the name again when it
connects: a rebinding within that moment is not closed there (card reads are pinned).

``Policy.resolve`` is the name resolver (None: the system's); a test gives one it controls,
to re-point a name between registration and run.

Errors are :class:`FetchRefused` (the portal will not fetch that) and :class:`FetchFailed`
(it tried, and it did not work), each with one sentence a visitor can read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[tuple[int, str]]]]   # (host, port) -> [(family, address)]
REDIRECTS = (301, 302, 303, 307, 308)


class FetchError(Exception):
    """A fetch that did not give an answer; the text says why in one sentence."""


class FetchRefused(FetchError):
    """The portal will not fetch that URL (its scheme or its address)."""


class FetchFailed(FetchError):
    """The portal tried, and there was no usable answer."""


@dataclass(frozen=True)
class Policy:
    """What may be fetched, and how long and how much. ``allow``: networks trusted even in
    public mode (an operator's own, or a test's)."""

    public: bool = False
    timeout: float = 10.0
    max_bytes: int = 1_000_000
    max_redirects: int = 5
    allow: tuple[IPNetwork, ...] = field(default_factory=tuple)
    resolve: Resolver | None = None

    def refusal(self, ip: IPAddress) -> str | None:
        """Why ``ip`` may not be fetched from (the kind of address), or None if it may."""
        if not self.public or any(ip in network for network in self.allow):
            return None
        return address_kind(ip)


def address_kind(ip: IPAddress) -> str | None:
    """The kind of a non-public address ("loopback", "private", ...), None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return address_kind(ip.ipv4_mapped)
    for kind, flag in (("unspecified", ip.is_unspecified), ("loopback", ip.is_loopback),
                       ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
                       ("reserved", ip.is_reserved), ("private", ip.is_private)):
        if flag:
            return kind
    if not ip.is_global:
        return "non-public"
    return None


@dataclass(frozen=True)
class Fetched:
    url: str                 # where the answer came from, after redirects
    status: int
    content_type: str
    body: bytes
    elapsed_ms: float


class _Pinned(AbstractResolver):
    """A resolver that knows one host, and answers with the addresses already checked."""

    def __init__(self, host: str, addresses: Iterable[tuple[int, str]]) -> None:
        self.host, self.addresses = host, list(addresses)

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        if host != self.host:
            raise OSError(f"{host} was not checked before connecting")
        return [ResolveResult(hostname=host, host=address, port=port, family=fam, proto=0,
                              flags=socket.AI_NUMERICHOST)
                for fam, address in self.addresses if family in (0, socket.AF_UNSPEC, fam)]

    async def close(self) -> None:
        pass


async def checked_addresses(url: str, policy: Policy) -> tuple[str, list[tuple[int, str]]]:
    """The host of ``url`` and the addresses to connect to, each allowed by ``policy``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise FetchRefused(f"{url!r} is not a well-formed URL") from None
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"{url!r} is not an http:// or https:// URL")
    host = parts.hostname
    if not host:
        raise FetchRefused(f"{url!r} names no host")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        found: list[tuple[int, str]] = [(socket.AF_INET6 if literal.version == 6 else socket.AF_INET,
                                         str(literal))]
    else:
        try:
            found = await (policy.resolve or _system_resolve)(host, port)
        except (OSError, UnicodeError):
            raise FetchFailed(f"nothing answers at {url}: the name {host} does not resolve") from None
        if not found:
            raise FetchFailed(f"nothing answers at {url}: the name {host} does not resolve")
    for _family, address in found:
        kind = policy.refusal(ipaddress.ip_address(address))
        if kind is not None:
            where = host if literal is not None else f"{host} ({address})"
            article = "an" if kind[0] in "aeiou" else "a"
            raise FetchRefused(f"the portal does not fetch {url}: {where} is {article} {kind} address, "
                               "and this portal is public")
    return host, found


async def _system_resolve(host: str, port: int) -> list[tuple[int, str]]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys((int(info[0]), str(info[4][0]).split("%")[0]) for info in infos))


async def check_url(url: str, policy: Policy) -> None:
    """Raise :class:`FetchRefused` if ``policy`` forbids connecting to ``url`` now (resolved
    afresh); a name that does not resolve is left to the connection to report."""
    if not policy.public:
        return
    try:
        await checked_addresses(url, policy)
    except FetchFailed:
        pass


def society_guard(policy: Policy) -> Callable[[Any], Awaitable[None]]:
    """The check a run service makes before a run connects (and before a resumed run
    re-attaches): every remote server of the society (a :class:`wwm.client.society.Society`)
    allowed by ``policy``, else :class:`FetchRefused` naming the first that is not."""

    async def guard(society: Any) -> None:
        if not policy.public:
            return
        for _where, url, _role in society.roles():
            await check_url(url, policy)

    return guard


async def fetch(url: str, policy: Policy, *, accept: str = "application/json") -> Fetched:
    """GET ``url`` under ``policy``: redirects followed by hand, each hop checked first."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(policy.timeout):
            for _hop in range(policy.max_redirects + 1):
                host, addresses = await checked_addresses(url, policy)
                answer = await _get(url, host, addresses, accept, policy)
                if isinstance(answer, str):
                    url = answer
                    continue
                status, content_type, body = answer
                return Fetched(url, status, content_type, body, (time.perf_counter() - started) * 1000)
    except TimeoutError:
        raise FetchFailed(f"{url} did not answer within {policy.timeout:g} s") from None
    raise FetchFailed(f"{url} redirects more than {policy.max_redirects} times")


async def _get(url: str, host: str, addresses: list[tuple[int, str]], accept: str,
               policy: Policy) -> str | tuple[int, str, bytes]:
    """One hop: the next URL if it redirects, else (status, content type, body)."""
    connector = aiohttp.TCPConnector(resolver=_Pinned(host, addresses), use_dns_cache=False, force_close=True)
    try:
        async with aiohttp.ClientSession(connector=connector) as session, session.get(
                url, allow_redirects=False, headers={"Accept": accept, "User-Agent": "wwm-portal"}) as reply:
            if reply.status in REDIRECTS:
                location = reply.headers.get("Location")
                if not location:
                    raise FetchFailed(f"{url} redirects (HTTP {reply.status}) without saying where")
                return urljoin(url, location)
            declared = reply.content_length
            if declared is not None and declared > policy.max_bytes:
                raise FetchFailed(_too_big(url, policy))
            body = bytearray()
            async for chunk in reply.content.iter_chunked(65536):
                body += chunk
                if len(body) > policy.max_bytes:
                    raise FetchFailed(_too_big(url, policy))
            return reply.status, reply.headers.get("Content-Type", ""), bytes(body)
    except aiohttp.InvalidURL:
        raise FetchRefused(f"{url!r} is not a well-formed URL") from None
    except (aiohttp.ClientError, OSError) as exc:
        raise FetchFailed(f"nothing answers at {url}: {_reason(exc)}") from None


def _too_big(url: str, policy: Policy) -> str:
    return f"{url} answers with more than {policy.max_bytes:,} bytes, more than the portal reads"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, aiohttp.ClientConnectorError):
        if isinstance(exc.os_error, ConnectionRefusedError):
            return "the connection was refused (no server listens there)"
        return exc.os_error.strerror or str(exc.os_error)
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection without answering"
    text = str(exc).strip()
    return text or type(exc).__name__

