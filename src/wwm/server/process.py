"""Helpers for tests and demos: real server processes on loopback.

``ServerProcess("module:Class", args={...})`` starts ``wwm serve --port 0`` in a subprocess,
reads the port the server took from its ready line, waits until it answers, and stops it on
exit; ``kill()`` and ``restart()`` (same port, same snapshot file) let tests break and mend
links; ``start_all(processes)`` starts several side by side. ``free_port()`` finds a free
port, for a program that cannot be told ``--port 0``: a port found free and then bound by
another process can be taken in between by a third (tests run in parallel do), which
``--port 0`` cannot.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from ..protocol.ports import free_port as free_port  # (its home now; kept importable here)

READY_URL = re.compile(rb"\bat (https?://\S+?)/? ")  # "serving the world X at http://host:port/ (Ctrl-C ...)"


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


def json_card(url: str, timeout: float = 5.0) -> dict[str, Any]:
    """The JSON card a server describes itself with (``GET url?format=json``)."""
    import json

    with urllib.request.urlopen(url + "?format=json", timeout=timeout) as reply:
        card: dict[str, Any] = json.loads(reply.read())
        return card


class ServerProcess:
    """A ``wwm serve`` (or any command serving on ``--port``) subprocess on loopback.

    Without ``port`` the server is started with ``--port 0`` and its port read from its ready
    line (``wwm serve`` and ``wwm serve-exec`` print the URL there); ``port=0`` does the same
    for a ``command`` of one's own that prints such a line. Asking for :attr:`port` or
    :attr:`url` before the start fixes a free port then, as the only way to know it early."""

    def __init__(self, target: str, args: dict[str, Any] | None = None, *, port: int | None = None,
                 state: bool | str | Path = False, extra: list[str] | None = None,
                 command: list[str] | None = None, env: dict[str, str] | None = None,
                 log: str | Path | None = None) -> None:
        self.target = target
        self._port: int | None = port or None  # None: learnt from the ready line at the start
        self._reads_ready_line = not port and (command is None or port == 0)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if state is True:
            self._tmp = tempfile.TemporaryDirectory(prefix="wwm-state-")
            state = Path(self._tmp.name) / "runs.db"
        self.state = str(state) if state else None
        if command is None:
            command = [sys.executable, "-m", "wwm.cli.main", "serve", target, "--port", str(self._port or 0)]
            for key, value in (args or {}).items():
                command += ["--arg", f"{key}={value}"]
            if self.state:
                command += ["--state", self.state]
        self.command = command + list(extra or [])
        self.env = {**os.environ, **(env or {})}
        # a wwm command stops when this process dies (its stdin, a pipe held here, ends)
        self._stdin = subprocess.PIPE if "wwm.cli.main" in self.command else subprocess.DEVNULL
        if self._stdin == subprocess.PIPE:
            self.env["WWM_EXIT_WITH_PARENT"] = "1"
        self.log = Path(log) if log else None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        if self._port is None:  # asked before the start: a free port now, given to the server
            self._fix_port(free_port())
        assert self._port is not None
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _fix_port(self, port: int) -> None:
        """Serve on ``port`` from now on (a restart keeps it)."""
        self._port = port
        if self._reads_ready_line and "--port" in self.command:
            self.command[self.command.index("--port") + 1] = str(port)
            self._reads_ready_line = False

    def start(self, timeout: float = 20.0) -> ServerProcess:
        if self._reads_ready_line:
            self._start_reading_port(timeout)
        else:
            # the child keeps its own copy of the log's descriptor; this process closes its own
            with open(self.log, "ab") if self.log else nullcontext(subprocess.DEVNULL) as out:
                self.process = subprocess.Popen(self.command, stdin=self._stdin, stdout=out,
                                                stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL,
                                                env=self.env, start_new_session=True)
        wait_until_up(self.url, timeout, self.process)
        return self

    def _start_reading_port(self, timeout: float) -> None:
        """Start the server on port 0 and learn its port from the URL on its ready line. Its
        output goes on being read (into the log, if any) so it never blocks on a full pipe."""
        self.process = process = subprocess.Popen(
            self.command, stdin=self._stdin, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL, env=self.env, start_new_session=True)
        assert process.stdout is not None
        found: list[str] = []
        ready = threading.Event()
        threading.Thread(target=_drain, args=(process.stdout, self.log, found, ready), daemon=True,
                         name=f"output of {self.target}").start()
        if not ready.wait(timeout):
            self.kill()
            raise TimeoutError(f"{self.target} printed no ready line with its URL within {timeout} s")
        if not found:
            status = process.wait(5)
            raise RuntimeError(f"server {self.target} exited with status {status} before its ready line")
        port = urlsplit(found[0]).port
        if port is None:
            raise RuntimeError(f"server {self.target} printed a URL without a port: {found[0]}")
        self._fix_port(port)

    def card(self) -> dict[str, Any]:
        """The server's JSON card (its role, query sets, bindings)."""
        return json_card(self.url)

    @property
    def tcp_port(self) -> int:
        """The port of the server's plain TCP binding (``--tcp-port``, 0 for any), from its card."""
        tcp = self.card().get("bindings", {}).get("tcp")
        port = urlsplit(tcp).port if isinstance(tcp, str) else None
        if port is None:
            raise RuntimeError(f"{self.url} offers no TCP binding (serve it with --tcp-port)")
        return port

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): no clean shutdown, as a crash would be."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
        self._let_go()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
        self._let_go()

    def _let_go(self) -> None:
        """Close this end of an ended server's stdin pipe (one descriptor a start)."""
        if self.process is not None and self.process.stdin is not None and self.process.poll() is not None:
            self.process.stdin.close()

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


def _drain(stream: IO[bytes], log: Path | None, found: list[str], ready: threading.Event) -> None:
    """Read a server's output to its end: the first URL of its ready line into ``found``
    (``ready`` is set then, or at the end of the output without one); each line into ``log``."""
    with stream, open(log, "ab", buffering=0) if log else nullcontext(None) as out:
        try:
            for line in stream:
                if out is not None:
                    out.write(line)
                if not ready.is_set():
                    match = READY_URL.search(line)
                    if match:
                        found.append(match.group(1).decode())
                        ready.set()
        finally:
            ready.set()


def start_all(processes: Sequence[ServerProcess], timeout: float = 20.0) -> list[ServerProcess]:
    """Start ``processes`` side by side (each spends a second or so importing before it
    answers) and return them; if any cannot start, stop those that did and raise its error."""
    with ThreadPoolExecutor(max(1, len(processes))) as pool:
        futures = [pool.submit(p.start, timeout) for p in processes]
    failed = [error for f in futures if (error := f.exception()) is not None]
    if failed:
        for p in processes:
            p.stop()
        raise failed[0]
    return list(processes)
