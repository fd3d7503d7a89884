"""Helpers for tests and demos: real server processes on loopback.

``ServerProcess("module:Class", args={...})`` starts ``wwm serve`` in a subprocess on a free
port, waits until it answers, and stops it on exit; ``kill()`` and ``restart()`` (same port,
same snapshot file) let tests break and mend links. ``free_port()`` finds a free port.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import nullcontext
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until_up(url: str, timeout: float = 15.0, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"server for {url} exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url + "?format=json", timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{url} did not come up within {timeout} s")


class ServerProcess:
    """A ``wwm serve`` (or any command serving on ``--port``) subprocess on loopback."""

    def __init__(self, target: str, args: dict[str, Any] | None = None, *, port: int | None = None,
                 state: bool | str | Path = False, extra: list[str] | None = None,
                 command: list[str] | None = None, env: dict[str, str] | None = None,
                 log: str | Path | None = None) -> None:
        self.target = target
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if state is True:
            self._tmp = tempfile.TemporaryDirectory(prefix="wwm-state-")
            state = Path(self._tmp.name) / "runs.db"
        self.state = str(state) if state else None
        if command is None:
            command = [sys.executable, "-m", "wwm.cli.main", "serve", target, "--port", str(self.port)]
            for key, value in (args or {}).items():
                command += ["--arg", f"{key}={value}"]
            if self.state:
                command += ["--state", self.state]
        self.command = command + list(extra or [])
        self.env = {**os.environ, **(env or {})}
        self.log = Path(log) if log else None
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> ServerProcess:
        # the child keeps its own copy of the log's descriptor; this process closes its own
        with open(self.log, "ab") if self.log else nullcontext(subprocess.DEVNULL) as out:
            self.process = subprocess.Popen(self.command, stdout=out,
                                            stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL,
                                            env=self.env, start_new_session=True)
        wait_until_up(self.url, timeout, self.process)
        return self

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): no clean shutdown, as a crash would be."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self, timeout: float = 20.0) -> ServerProcess:
        self.kill()
        return self.start(timeout)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
