"""The soccer server's own protocol over UDP, beside the WWM queries on the same server: a
client sends ``(init TEAM (version V) [(goalie)])`` and gets ``(init SIDE UNUM PLAYMODE)``
(or ``(error no_more_team_or_player)``), then its player's ``(sense_body ...)`` every cycle,
``(see ...)`` as often as its view width allows and ``(hear TIME referee PLAYMODE)`` on each
call of the referee; it sends commands (``(dash 80)``, ...) whenever it likes and ``(bye)`` to
leave. A client of protocol 8 or later is sent the world's settings after its init
(``server_param``, ``player_param``, one ``player_type``: the named form); ``sense_body`` gives
stamina as the client's version writes it (``(stamina S E)`` before 13, ``(stamina S E CAPACITY)``
from 13) and is answered at once when asked for with ``(sense_body)``; ``(dash POWER DIR)`` dashes
sideways or back and ``(tackle ANGLE [FOUL])`` tackles (before 12 its argument is a power).
Mistakes are answered ``(error unknown_command)`` or ``(error illegal_command_form)``.
Unlike the soccer server, every answer comes from the one port the client first wrote to.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

from ..protocol.errors import Refusal
from .commands import Command, CommandError, parse, parse_init
from .match import SIDES
from .sensing import (
    hear_text,
    player_param_text,
    player_type_text,
    see_text,
    sense_body,
    sense_body_text,
    server_param_text,
)
from .world import Seat, SoccerWorld

log = logging.getLogger("wwm.soccer")
Address = tuple[Any, ...]


class SoccerUDP(asyncio.DatagramProtocol):
    def __init__(self, world: SoccerWorld) -> None:
        self.world = world
        self.players: dict[Address, Seat] = {}
        self.told: dict[Address, tuple[int, int]] = {}  # (events heard, see steps sent)
        self.versions: dict[Address, float] = {}         # each client's protocol version
        self.transport: asyncio.DatagramTransport | None = None
        world.listeners.append(self.cycle)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no asyncio.DatagramTransport)

    def _send(self, text: str, addr: Address) -> None:
        if self.transport is not None:
            self.transport.sendto(text.encode() + b"\0", addr)

    def datagram_received(self, data: bytes, addr: Address) -> None:
        text = data.rstrip(b"\0").decode("utf-8", "replace")
        seat = self.players.get(addr)
        try:
            if seat is None or seat.match is not self.world.match:
                self._init(text, addr)
                return
            commands = parse(text)
        except CommandError as exc:
            self._send(f"(error {exc.code})", addr)
            log.info("UDP %s: %s", addr, exc)
            return
        if any(c.name == "bye" for c in commands):
            self.world.leave(seat)
            del self.players[addr]
            return
        version = self.versions.get(addr, 3.0)
        if any(c.name == "sense_body" for c in commands):  # asked for: answered at once
            self._send(sense_body_text(seat.match.time, sense_body(seat.match, seat.index), version), addr)
            commands = [c for c in commands if c.name != "sense_body"]
        if version < 12:  # before protocol 12 a tackle's argument is a power, straight ahead
            commands = [Command("tackle", (0.0, *c.args[1:])) if c.name == "tackle" else c for c in commands]
        if commands:
            self.world.submit(seat, commands)

    def _init(self, text: str, addr: Address) -> None:
        init = parse_init(text)
        try:
            seat = self.world.take_seat(init.team, init.goalie)
        except Refusal:
            self._send("(error no_more_team_or_player)", addr)
            return
        self.players[addr] = seat
        self.versions[addr] = init.version
        self.told[addr] = (len(seat.match.events), -1)
        seat.heard = len(seat.match.events)
        self._send(f"(init {SIDES[seat.side]} {seat.unum} {seat.match.mode})", addr)
        if init.version >= 8:  # the settings, in the named form of protocol 8 on
            params = seat.match.params
            for text in (server_param_text(params), player_param_text(), player_type_text(params)):
                self._send(text, addr)

    def cycle(self, world: SoccerWorld) -> None:
        """After each cycle: every UDP player's senses."""
        for addr, seat in list(self.players.items()):
            m = seat.match
            if m is not world.match or seat.ended:
                continue
            heard, seen = self.told[addr]
            for event in m.events[heard:]:
                self._send(hear_text(m.time, event.text), addr)
            if seat.seen["steps"] != seen:
                self._send(see_text(seat.seen["time"], seat.seen["objects"]), addr)
            body = sense_body(m, seat.index)
            self._send(sense_body_text(m.time, body, self.versions.get(addr, 3.0)), addr)  # last: the cue to act
            self.told[addr] = (len(m.events), seat.seen["steps"])

    def close(self) -> None:
        if self.cycle in self.world.listeners:
            self.world.listeners.remove(self.cycle)
        if self.transport is not None:
            self.transport.close()


def bind_udp(host: str, port: int) -> socket.socket:
    """A UDP socket bound to ``host:port`` (0: any free port): a port in use is an OSError
    here, before anything is served."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0][0]
    sock = socket.socket(family, socket.SOCK_DGRAM)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


async def open_udp(world: SoccerWorld, sock: socket.socket) -> tuple[SoccerUDP, int]:
    """Serve ``world``'s players over UDP on a bound socket; the protocol object and its port."""
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_datagram_endpoint(lambda: SoccerUDP(world), sock=sock)
    return protocol, sock.getsockname()[1]
