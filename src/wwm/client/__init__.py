"""The client layer: remote Worlds and Minds behind the local interface, the run loop of
section 8.2, and society documents."""

from .remote import RemoteMind, RemoteWorld, aconnect, connect, connect_mind, connect_world

__all__ = ["RemoteMind", "RemoteWorld", "aconnect", "connect", "connect_mind", "connect_world"]
