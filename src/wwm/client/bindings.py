"""The bindings a remote object can speak, by name: ``http`` (the default), ``ws``
(WebSocket), ``tcp`` (length-prefixed frames) and ``inprocess`` (an app hosted in this
process, :mod:`.inprocess`), each a function that opens a
:class:`~wwm.protocol.transport.Transport` to a server. Another package adds a binding by an
entry point in the ``wwm.bindings`` group; a URL whose scheme names a binding (``tcp://``,
``ws://``) picks it by itself, and an http(s) URL where an app is hosted in this process is
reached in process whatever the binding asked (``http`` or ``inprocess``)."""

from __future__ import annotations

from collections.abc import Callable

from ..protocol.transport import Transport
from ..registry import Registry
from .inprocess import InProcessTransport, hosted, open_inprocess
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
    """``tcp://host:port``, or a server's http:// URL whose card announces its TCP binding (read
    when the first query is sent, in the event loop: see :class:`TcpTransport`)."""
    return TcpTransport(url, encoding=encoding, timeout=timeout)


@BINDINGS.register(name="inprocess", aliases=("in-process",))
def open_in_process(url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    return open_inprocess(url, encoding=encoding, timeout=timeout)


def open_transport(url: str, binding: str = "http", *, encoding: str = "json",
                   timeout: float | None = DEFAULT_TIMEOUT) -> Transport:
    """A transport to the server at ``url`` over ``binding`` (or the one its scheme names)."""
    scheme = url.partition("://")[0].lower()
    name = SCHEMES.get(scheme, binding)
    if name == "http" and scheme in ("http", "https"):
        app = hosted(url)
        if app is not None:  # hosted in this process: no socket
            return InProcessTransport(app, encoding=encoding, timeout=timeout)
    try:
        opener = BINDINGS.lookup(name)
    except LookupError:
        raise ValueError(f"transport must be one of {', '.join(BINDINGS)}, not {binding!r}") from None
    return opener(url, encoding=encoding, timeout=timeout)
