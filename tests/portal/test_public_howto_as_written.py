"""docs/howto/portal-public.md, as written: the ``wwm portal --public ...`` command of its
section 2 is read from the page and run (only the port and the database URL change: a free
port, and a database of the tests' throw-away PostgreSQL cluster, as its section 1 makes), then
sent what the page's nginx sends; the systemd unit runs that same command, and the nginx
block proxies to the address the command serves on. nginx, certbot, systemd and a Ray cluster
are not run here (the page marks those blocks as configuration examples)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from portal_sites import csrf_of

pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "portal-public.md"
SRC = Path(__file__).resolve().parents[2] / "src"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)


def portal_command() -> list[str]:
    """Section 2's command, its continuation lines joined, as the shell would split it."""
    (block,) = [b for b in blocks("console") if "wwm portal" in b]
    line = block.replace("\\\n", " ").strip()
    assert line.startswith("$ "), line
    return shlex.split(line[2:])


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_the_systemd_unit_and_nginx_run_and_reach_that_command() -> None:
    command = portal_command()
    assert command[:3] == ["wwm", "portal", "--public"]
    (unit,) = blocks("ini")
    exec_start = shlex.split(re.search(r"^ExecStart=(.*)$", unit, re.M).group(1))  # type: ignore[union-attr]
    assert Path(exec_start[0]).name == "wwm" and exec_start[1:] == command[1:], "the unit runs another command"
    (nginx,) = blocks("nginx")
    assert f"proxy_pass http://{option(command, '--host')}:{option(command, '--port')};" in nginx
    assert option(command, "--proxy") == option(command, "--host"), "nginx on this host is the proxy"
    assert re.search(r"server_name (\S+);", nginx).group(1) in option(command, "--origin")  # type: ignore[union-attr]


async def test_the_portal_command_as_written_on_postgresql_behind_the_proxy(postgres: object) -> None:
    command = portal_command()
    db = postgres.new_schema()   # type: ignore[attr-defined]
    args = list(command)
    args[args.index("--port") + 1] = "0"                         # a free port
    args[args.index("--db") + 1] = db.replace("postgresql://", "postgresql+psycopg://", 1)
    wwm = Path(sys.executable).parent / "wwm"
    program = [str(wwm)] if wwm.exists() else [sys.executable, "-m", "wwm.cli.main"]
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen([*program, *args[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
    try:
        assert child.stdout is not None
        url = None
        for line in child.stdout:
            found = re.search(r"\bat (http://\S+?)/? ", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, child.stderr.read() if child.stderr else "the portal did not start"
        origin = option(command, "--origin")
        host = origin.split("://", 1)[1]
        proxied = {"Host": host, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/me", headers=proxied) as reply:
                assert reply.status == 200
                cookie = reply.headers["set-cookie"].split(";")[0]
                token = csrf_of(await reply.text())
            assert cookie.startswith("__Host-wwm_portal=")
            sent = {**proxied, "Cookie": cookie, "Origin": origin}
            async with session.post(url + "/me/recovery", data={"csrf": token}, headers=sent) as reply:
                assert reply.status == 200
                assert re.search(rf'value="{re.escape(origin)}/recover/[\w-]+"', await reply.text())
            async with session.post(url + "/me/recovery", data={"csrf": token},
                                    headers={**sent, "Origin": url}) as reply:
                assert reply.status == 403
    finally:
        child.terminate()
        child.wait(30)
