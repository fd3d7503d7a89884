"""A stock lighttpd (Debian's) serving this directory's CGI scripts on a loopback port, with
a generated configuration: the web server a CGI mind would find at a host (section 11.1).

    python examples/cgi/lighttpd.py [--port 8080]     # then: wwm run --mind URL --world ...

prints the mind's URL and serves until interrupted. The tests and benchmarks/cgi_mind.py
use :func:`lighttpd` (a context manager) the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent

LIGHTTPD = shutil.which("lighttpd") or "/usr/sbin/lighttpd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config(root: Path, port: int, state: Path, logs: Path) -> str:
    """A minimal lighttpd.conf: ``*.cgi`` under ``root`` run by Perl, ``WWM_STATE_DIR`` set,
    each request logged to ``logs/access.log`` (common log format: method, path, status)."""
    return "\n".join([
        f'server.document-root = "{root}"',
        f"server.port = {port}",
        'server.bind = "127.0.0.1"',
        'server.modules = ("mod_cgi", "mod_setenv", "mod_accesslog")',
        f'server.errorlog = "{logs}/error.log"',
        f'accesslog.filename = "{logs}/access.log"',
        'cgi.assign = (".cgi" => "/usr/bin/perl")',
        f'setenv.add-environment = ("WWM_STATE_DIR" => "{state}")',
        'mimetype.assign = (".html" => "text/html")',
        "",
    ])


@contextlib.contextmanager
def lighttpd(root: Path, work: Path, port: int = 0) -> Iterator[str]:
    """Serve ``root`` with lighttpd on ``port`` (0: a free one), its configuration, log and
    the scripts' state under ``work``; yields its base URL (``http://127.0.0.1:PORT``)."""
    (work / "state").mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    conf = work / "lighttpd.conf"
    conf.write_text(config(root, port, work / "state", work))
    check = subprocess.run([LIGHTTPD, "-tt", "-f", str(conf)], capture_output=True, text=True)
    assert check.returncode == 0, f"lighttpd rejects its configuration: {check.stderr}"
    process = subprocess.Popen([LIGHTTPD, "-D", "-f", str(conf)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    out = process.stdout.read().decode() if process.stdout else ""
                    raise RuntimeError(f"lighttpd did not start on port {port}: {out}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops lighttpd as Ctrl-C does


def main() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    parser = argparse.ArgumentParser(description="serve examples/cgi/*.cgi with lighttpd on loopback")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wwm-lighttpd-") as work, lighttpd(HERE, Path(work), args.port) as base:
        print(f"the CGI mind: {base}/mind.cgi  (Ctrl-C stops lighttpd)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
