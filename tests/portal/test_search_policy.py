"""The search the portal starts runs under the ``--public`` address policy at every TCP
connection it makes, not only when it is asked for (issue 26, item 6): the portal runs
``wwm search`` under :mod:`wwm.portal.guarded`, which refuses, in that process, a connection
to a loopback or private address (after name resolution, as the connection is made), lets
through the networks the policy allows and the portal's own database, and leaves Unix
sockets alone. Shown with a probe module run under it as the search is, against real
listening sockets."""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from wwm.portal.fetching import Policy
from wwm.portal.searches import Searches, database_endpoints

PROBE = '''
import asyncio, json, socket, sys

def tcp(host, port):
    try:
        with socket.create_connection((host, port), timeout=5):
            return "connected"
    except ConnectionRefusedError as exc:
        return f"refused: {exc}"

async def loop_tcp(host, port):
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.close()
        return "connected"
    except ConnectionRefusedError as exc:
        return f"refused: {exc}"

closed, passed = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"loopback": tcp("127.0.0.1", closed), "by name": tcp("localhost", closed),
                  "asyncio": asyncio.run(loop_tcp("127.0.0.1", closed)),
                  "passed": tcp("127.0.0.1", passed), "argv": sys.argv}))
'''


@pytest.fixture
def listeners() -> Iterator[tuple[int, int]]:
    """Two loopback sockets that accept connections: one the policy refuses, one it passes."""
    made = []
    for _ in range(2):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        made.append(sock)
    yield made[0].getsockname()[1], made[1].getsockname()[1]
    for sock in made:
        sock.close()


def probe(tmp_path: Path, options: list[str], closed: int, passed: int) -> dict[str, object]:
    (tmp_path / "probe.py").write_text(PROBE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "wwm.portal.guarded", *options, "--", "-m", "probe",
                           str(closed), str(passed)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_every_connection_of_the_process_is_checked(tmp_path: Path, listeners: tuple[int, int]) -> None:
    closed, passed = listeners
    said = probe(tmp_path, ["--pass", f"127.0.0.1:{passed}"], closed, passed)
    assert str(said["loopback"]).startswith("refused: the portal's address policy refuses 127.0.0.1 port")
    assert "loopback address" in str(said["loopback"])
    assert str(said["by name"]).startswith("refused: the portal's address policy refuses ")   # resolved first
    assert str(said["asyncio"]).startswith("refused: ")
    assert said["passed"] == "connected", "the portal's database is reached"
    assert list(said["argv"])[1:] == [str(closed), str(passed)]   # type: ignore[call-overload]


def test_networks_the_policy_allows_are_reached(tmp_path: Path, listeners: tuple[int, int]) -> None:
    closed, passed = listeners
    said = probe(tmp_path, ["--allow", "127.0.0.0/8"], closed, passed)
    assert said["loopback"] == said["asyncio"] == said["passed"] == "connected"


def test_the_portal_runs_its_search_under_the_policy_when_public(tmp_path: Path) -> None:
    searches = Searches.__new__(Searches)
    searches.database_url = "postgresql://wwm@127.0.0.1:5433/portal"
    assert searches._runner(Policy()) == [sys.executable, "-m"]
    public = Policy(public=True, allow=(ipaddress.ip_network("10.1.0.0/16"),))
    assert searches._runner(public) == [sys.executable, "-m", "wwm.portal.guarded", "--allow", "10.1.0.0/16",
                                        "--pass", "127.0.0.1:5433", "--", "-m"]
    assert database_endpoints(f"sqlite:///{tmp_path / 'p.db'}") == []
    assert database_endpoints("postgresql://wwm@/portal?host=/run/postgresql") == []     # a Unix socket
    assert ("localhost", 5432) in database_endpoints("postgresql://wwm@localhost/portal")
    # and the command runs under it as it would without
    done = subprocess.run([*searches._runner(public), "wwm.cli.main", "search", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "--from-combination" in done.stdout, done.stderr
