"""The bindings a remote object can speak, by name: ``http`` (the default), ``ws``
(WebSocket) and ``tcp`` (length-prefixed frames), each a function that opens a
:class:`~wwm.protocol.transport.Transport` to a server. Another package adds a binding by an
entry point in the ``wwm.bindings`` group; a URL whose scheme names a binding (``tcp://``,
``ws://``) picks it by itself."""

from __future__ import annotations

from collections.abc import Callable

from ..protocol.errors import Refusal
from ..protocol.transport import Transport
from ..registry import Registry
from .cards import fetch_card_sync
from .tcp_transport import TcpTransport
from .transport import DEFAULT_TIMEOUT, HttpTransport
from .ws_transport import WebSocketTransport

Opener = Callable[..., Transport]  # (url, *, encoding, timeout) -> Transport

BINDINGS: Registry[Opener] = Registry("binding", group="wwm.bindings", name_of=lambda opener: opener.__name__)
SCHEMES = {"tcp": "tcp", "ws": "ws", "wss": "ws"}  # a URL scheme that names its binding


@BINDINGS.register(name="http")
def open_http(url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    return HttpTransport(url, encoding=encoding, timeout=timeout)


@BINDINGS.register(name="ws", aliases=("websocket",))
def open_websocket(url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    return WebSocketTransport(url, encoding=encoding, timeout=timeout)


@BINDINGS.register(name="tcp")
def open_tcp(url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    """``tcp://host:port``, or a server's http:// URL whose card announces its TCP binding."""
    if url.startswith("tcp://"):
        return TcpTransport(url, encoding=encoding, timeout=timeout)
    tcp_url = fetch_card_sync(url).get("bindings", {}).get("tcp")
    if not tcp_url:
        raise Refusal("unsupported-query", f"{url} offers no TCP binding (serve it with --tcp-port)")
    return TcpTransport(tcp_url, encoding=encoding, timeout=timeout, server_url=url)


def open_transport(url: str, binding: str = "http", *, encoding: str = "json",
                   timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    """A transport to the server at ``url`` over ``binding`` (or the one its scheme names)."""
    scheme = url.partition("://")[0].lower()
    name = SCHEMES.get(scheme, binding)
    try:
        opener = BINDINGS.lookup(name)
    except LookupError:
        raise ValueError(f"transport must be one of {', '.join(BINDINGS)}, not {binding!r}") from None
    return opener(url, encoding=encoding, timeout=timeout)
