"""A command run by the portal with its ``--public`` address policy at every TCP connection
it makes (issue 26, item 6): the search the portal starts (``wwm search --from-combination``)
runs as a separate process, which connects to the servers of every candidate it tries, over
and over; checking the servers once, when the search starts, would let a name re-pointed at a
private address since be reached. So the portal runs it as::

    python -m wwm.portal.guarded [--allow CIDR]... [--pass HOST:PORT]... -- -m MODULE ARG...

which refuses, in that process, every TCP connection (``socket.connect``, the one road every
client library takes: asyncio's and aiohttp's included) to an address the policy forbids
(loopback, private, link-local, ...: :func:`wwm.portal.fetching.address_kind`), the peer
checked as it is connected to, after name resolution (a name given to ``connect`` is resolved
and each of its addresses checked). ``--allow``: networks trusted all the same (the portal's
``Policy.allow``); ``--pass``: endpoints the command needs that are not the servers (the
portal's own database, on a private address). A refused connection raises ``ConnectionRefusedError`` naming
the address and why, which the command reports as it reports any server that does not
answer. Unix sockets are not checked (they reach this machine's files, not the network).
"""

from __future__ import annotations

import ipaddress
import runpy
import socket
import sys
from collections.abc import Callable
from typing import Any

from .fetching import IPNetwork, address_kind


def refusal(ip: str, allow: tuple[IPNetwork, ...]) -> str | None:
    """Why the policy forbids connecting to ``ip`` (its kind), or None."""
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return "unparsed"
    if any(address in network for network in allow):
        return None
    return address_kind(address)


def install(allow: tuple[IPNetwork, ...] = (), passes: frozenset[tuple[str, int]] = frozenset()) -> None:
    """Check every TCP connection of this process from now on (see the module)."""
    original: Callable[..., Any] = socket.socket.connect
    original_ex: Callable[..., Any] = socket.socket.connect_ex

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
            return
        host, port = str(address[0]), int(address[1])
        if (host, port) in passes:
            return
        try:
            ips = [host] if _literal(host) else [str(i[4][0]) for i in socket.getaddrinfo(host, port)]
        except OSError:
            return          # does not resolve: the connection says so itself
        for ip in ips:
            if (ip, port) in passes:
                continue
            kind = refusal(ip, allow)
            if kind is not None:
                article = "an" if kind[0] in "aeiou" else "a"
                raise ConnectionRefusedError(f"the portal's address policy refuses {host} port {port}: "
                                             f"{ip} is {article} {kind} address, and this portal is public")

    def connect(sock: socket.socket, address: Any) -> None:
        check(sock, address)
        original(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        check(sock, address)
        return int(original_ex(sock, address))

    socket.socket.connect = connect          # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex    # type: ignore[method-assign,assignment]


def _literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


def main(argv: list[str]) -> None:
    allow: list[IPNetwork] = []
    passes: set[tuple[str, int]] = set()
    args = list(argv)
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--allow" and args:
            allow.append(ipaddress.ip_network(args.pop(0), strict=False))
        elif option == "--pass" and args:
            host, _, port = args.pop(0).rpartition(":")
            passes.add((host.strip("[]"), int(port)))
        else:
            raise SystemExit(f"wwm.portal.guarded: unknown option {option!r} (--allow CIDR, --pass HOST:PORT, "
                             "then -- MODULE ARG...)")
    args = args[1:]
    if args[:1] == ["-m"]:
        args = args[1:]
    if not args:
        raise SystemExit("wwm.portal.guarded: give the command after --: -- [-m] MODULE ARG...")
    module = args.pop(0)
    install(tuple(allow), frozenset(passes))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
