"""A throw-away PostgreSQL cluster for tests and benchmarks: ``initdb`` in a temp dir (as the
``postgres`` user when run as root, since initdb refuses root), ``pg_ctl start`` on a free
loopback port, and cheap fresh schemas to point a :class:`RunStore` at. A watchdog stops the
server and deletes the cluster if the process that made it dies without cleaning up.
"""

from __future__ import annotations

import glob
import itertools
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Self
from urllib.parse import quote

from ..protocol.ports import free_port


def pg_bindir() -> Path:
    """The directory of ``pg_ctl`` and ``initdb``: on PATH, else Debian's newest version."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")
    candidates.sort(key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if not candidates:
        raise RuntimeError("PostgreSQL server binaries not found (pg_ctl, initdb); on Debian or "
                           "Ubuntu: apt-get install postgresql")
    return Path(candidates[-1]).parent


class TempPostgres:
    """``with TempPostgres() as pg: RunStore(pg.new_schema())``; stopped and deleted on exit."""

    def __init__(self) -> None:
        self.bindir = pg_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="wwm-pg-"))
        self.port = free_port()
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._names = itertools.count(1)
        self._watchdog: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _command(self, program: str, *args: str) -> list[str]:
        command = [str(self.bindir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return command

    def _run(self, program: str, *args: str) -> None:
        command = self._command(program, *args)
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr}{done.stdout}{log}")

    def start(self) -> None:
        """Make the cluster, start its server, and set the watchdog on this process."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        self.start_server()
        stop = shlex.join(self._command("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop"))
        script = (f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 0.5; done; "
                  f"{stop} >/dev/null 2>&1; rm -rf {shlex.quote(str(self.root))}")
        self._watchdog = subprocess.Popen(["sh", "-c", script], start_new_session=True,
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL)

    def start_server(self) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server, keeping the cluster (``mode``: smart, fast or immediate)."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def stop(self) -> None:
        """Stop the server and delete the cluster (and the watchdog)."""
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()
        try:
            self.stop_server("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_schema(self) -> str:
        """A URL whose tables go in a new, empty schema (much cheaper than a new database)."""
        import psycopg

        name = f"wwm_{next(self._names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return self.url() + "?options=" + quote(f"-csearch_path={name}")
