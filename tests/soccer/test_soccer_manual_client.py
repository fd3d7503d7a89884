"""A client written only from the soccer server's manual (its protocol chapter: init, the
messages sent after it, sense_body, and the player's commands), not from this world's code:
a protocol-13 client and a protocol-7 one join a match in lock-step (synch) mode over UDP and
get what the manual says each version gets (issue 27, item 5)."""

from __future__ import annotations

import re
import socket

import pytest
from test_soccer_match import get_json, soccer_server, udp_port

pytestmark = pytest.mark.slow


class ManualClient:
    """A player as the manual describes one: one UDP socket, s-expressions ending in NUL."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(10)

    def send(self, text: str) -> None:
        self.sock.sendto(text.encode() + b"\0", ("127.0.0.1", self.port))

    def read(self) -> str:
        return self.sock.recv(65536).rstrip(b"\0").decode()

    def until(self, prefix: str) -> str:
        """The next message starting with ``prefix`` (others before it, skipped); an
        ``(error ...)`` on the way fails."""
        while True:
            message = self.read()
            assert not message.startswith("(error"), message
            if message.startswith(prefix):
                return message

    def close(self) -> None:
        self.sock.close()


def stamina(sense_body: str) -> list[float]:
    return [float(v) for v in re.search(r"\(stamina ([^)]*)\)", sense_body).group(1).split()]


def test_each_version_gets_what_the_manual_says(tmp_path):
    with soccer_server(tmp_path, players=1, synch="true") as server:
        new, old = ManualClient(udp_port(server)), ManualClient(udp_port(server))
        try:
            new.send("(init New (version 13))")
            assert new.read() == "(init l 1 before_kick_off)"
            server_param, player_param, player_type = new.read(), new.read(), new.read()
            assert server_param.startswith("(server_param (") and "(stamina_capacity 130600)" in server_param
            assert "(dash_angle_step 45)" in server_param and "(tackle_dist 2)" in server_param
            assert player_param.startswith("(player_param (player_types 1)")
            assert player_type.startswith("(player_type (id 0)") and "(stamina_inc_max 45)" in player_type

            old.send("(init Old (version 7))")
            assert old.read().startswith("(init r 1 ")           # and nothing more: version 7's settings
            old.send("(sense_body)")                          # are positional, a form not sent here
            body = old.until("(sense_body ")
            assert stamina(body) == [8000, 1] and "(tackle" not in body   # two values before 13

            new.send("(sense_body)")                          # asked for: answered at once
            body = new.until("(sense_body ")
            assert stamina(body) == [8000, 1, 130600] and "(tackle (expires 0) (count 0))" in body

            start = get_json(server.url + "soccer/now.json")["frame"]["p"]
            for _ in range(12):                               # lock-step: a cycle when both have acted
                new.send("(dash 100 90)")                     # sideways, as protocol 13 allows
                old.send("(tackle 50)")                       # a power, as protocol 7 has it
                new.until("(sense_body ")
                old.until("(sense_body ")
            new.send("(tackle -30 false)")                    # an angle and the foul flag, from 12 on
            old.send("(dash 10)")
            body = new.until("(sense_body ")
            old.until("(sense_body ")
            assert re.search(r"\(dash 12\).*\(tackle \(expires \d+\) \(count 1\)\)", body), body
            assert stamina(body)[0] < 8000
            end = get_json(server.url + "soccer/now.json")["frame"]["p"]
            (x0, y0), (x1, y1) = start[0][2:4], end[0][2:4]
            assert abs(y1 - y0) > 1.0 and abs(y1 - y0) > 3 * abs(x1 - x0), (start[0], end[0])  # it went sideways
            new.send("(dash 100 30 40)")
            assert new.read() == "(error illegal_command_form)"
            new.send("(bye)")
            old.send("(bye)")
        finally:
            new.close()
            old.close()
