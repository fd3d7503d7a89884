"""The throw-away PostgreSQL cluster does not outlive a test run that is killed: its watchdog
stops the server and deletes the cluster when the process that made it dies."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

MAKE_AND_HANG = """
import time
from wwm.store.pgtemp import TempPostgres
pg = TempPostgres()
pg.start()
print(pg.port, pg.root, flush=True)
time.sleep(120)
"""


def answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_a_killed_owner_leaves_no_server_and_no_files() -> None:
    owner = subprocess.Popen([sys.executable, "-c", MAKE_AND_HANG], stdout=subprocess.PIPE, text=True)
    try:
        port_text, root_text = owner.stdout.readline().split()
        port, root = int(port_text), Path(root_text)
        assert answers(port) and (root / "data" / "postmaster.pid").exists()
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=10)
        deadline = time.monotonic() + 15
        while (answers(port) or root.exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not answers(port) and not root.exists()
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
