"""Who this client is to the servers it calls: the URL it gives in every New run, which each
server lists in its credit trail (section 7.2) and keys what it learns by (7.3)."""

from __future__ import annotations


def default_client_url() -> str:
    """This client's identity for the credit trail: ``urn:wwm:client:<user>@<host>``."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except Exception:
        user = "anonymous"
    return f"urn:wwm:client:{user}@{socket.gethostname()}"
