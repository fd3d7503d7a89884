"""Server processes for tests start on any free port (``--port 0``) and learn it from the
server's ready line: a port found free first and bound later by the server could be taken in
between by another test running in parallel."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from probes import probe_server

from wwm.client import RemoteWorld
from wwm.server.process import ServerProcess, start_all

pytestmark = pytest.mark.slow


async def test_a_server_takes_any_free_port_reads_it_and_keeps_it_on_restart():
    server = probe_server("ProbeWorld", extra=["--tcp-port", "0"], state=True)
    assert server.command[server.command.index("--port") + 1] == "0"   # no port chosen beforehand
    with server:
        port, tcp_port = server.port, server.tcp_port
        assert port != 0 and tcp_port not in (0, port)
        assert server.card()["bindings"]["tcp"] == f"tcp://127.0.0.1:{tcp_port}"
        async with RemoteWorld(server.url, transport="tcp") as world:
            await world.new_run()
            assert (await world.execute_action("+2")).state == "n=2"
        server.restart()   # the same port again, so clients holding its URL reach it
        assert server.port == port and server.url == f"http://127.0.0.1:{port}/"
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass


def test_a_port_asked_for_before_the_start_is_the_one_served_on():
    server = probe_server("ProbeWorld")
    url = server.url   # known before the start: another server's arguments may need it
    with server:
        assert server.url == url and server.card()["role"] == "world"


def test_a_server_that_dies_before_its_ready_line_is_reported_by_name():
    with pytest.raises(RuntimeError, match=r"no_such_module:Nothing exited with status 2 before its ready line"):
        ServerProcess("no_such_module:Nothing").start()


def test_a_port_given_is_the_one_served_on():
    from wwm.server.process import free_port

    port = free_port()
    with probe_server("ProbeWorld", port=port) as server:
        assert server.url == f"http://127.0.0.1:{port}/" and server.card()["role"] == "world"


def test_servers_of_a_process_killed_by_sigkill_stop_too(tmp_path):
    """A test run killed outright (a CI time-out, a helper's ``timeout``) leaves no servers:
    each ``wwm`` command started by ServerProcess ends when its parent's pipe does."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        "from wwm.server.process import ServerProcess\n"
        "servers = [ServerProcess('wwm.kit.grid:GridWorld').start(),\n"
        "           ServerProcess('x', command=[sys.executable, '-m', 'wwm.cli.main', 'serve', 'random',\n"
        "                                       '--port', '0'], port=0).start()]\n"
        "print(' '.join(str(s.process.pid) for s in servers), flush=True)\n"
        "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
        parent.kill()
        parent.wait(5)
        deadline = time.monotonic() + 15
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in pids if alive(pid)], "a server outlived the process that started it"
    finally:
        if parent.poll() is None:
            parent.kill()


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie, ended but not yet reaped by init, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_start_all_starts_servers_side_by_side_and_stops_them_all_if_one_cannot_start():
    good, bad = ServerProcess("wwm.kit.grid:GridWorld"), ServerProcess("no_such_module:Nothing")
    with pytest.raises(RuntimeError, match="no_such_module:Nothing exited"):
        start_all([good, bad])
    assert good.process is not None and good.process.poll() is not None   # it started, then was stopped
    servers = start_all([ServerProcess("wwm.kit.grid:GridWorld"), ServerProcess("wwm.kit.grid_minds:FoodSeeker")])
    try:
        assert [s.card()["role"] for s in servers] == ["world", "mind"]
    finally:
        for s in servers:
            s.stop()
