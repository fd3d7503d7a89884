"""A free TCP port on loopback, for a program that cannot be told to take any free port
itself (``--port 0``), shared by the servers' test helpers and the run store's PostgreSQL."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port free on 127.0.0.1 now. Another process may take it before the caller binds it
    (tests run in parallel do): prefer ``--port 0`` where a program takes it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
