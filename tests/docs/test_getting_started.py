"""Every command of docs/getting-started.md, run as the page writes it (the ```sh blocks, in
order, in one shell), and the results the page states."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"


def sh_lines(text: str) -> list[str]:
    """The lines of the page's ```sh blocks, in order."""
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M):
        lines += [line for line in block.splitlines() if line.strip()]
    return lines


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_page_has_commands_for_the_shell():
    lines = sh_lines(PAGE.read_text())
    assert lines[0] == ". .venv/bin/activate"
    assert any(line.startswith("wwm serve ") and line.endswith("&") for line in lines)
    assert any(line.startswith("wwm serve-exec ") for line in lines)
    assert not any(".venv/bin/wwm" in line for line in lines[1:])   # plain wwm once activated
    for port in re.findall(r"--port (\d+)", "\n".join(lines)):
        assert 8001 <= int(port) <= 8009


@pytest.mark.slow
def test_the_commands_work_as_written(tmp_path):
    lines = sh_lines(PAGE.read_text())
    ports = {str(p): str(free_port()) for p in range(8001, 8010)}
    # a clone after the README's first command: .venv and the repository's files
    (tmp_path / ".venv").symlink_to(sys.prefix)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    script = ["set -e", "trap 'kill $(jobs -p) 2>/dev/null' EXIT",
              "wait_port() { python -c \"import socket,sys,time\n"
              "for _ in range(300):\n"
              "    try: socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2).close(); sys.exit(0)\n"
              "    except OSError: time.sleep(0.05)\n"
              "sys.exit(1)\" $1; }"]
    for line in lines:
        line = re.sub(r"\b80(0[1-9])\b", lambda m: ports[m.group(0)], line)
        script.append(f"echo '### {line}'")
        script.append(line)
        if line.endswith("&"):  # the harness, not the page, waits for a server to listen
            port = re.search(r"--port (\d+)", line).group(1)
            script.append(f"wait_port {port}")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120",
           "WWM_DATABASE_URL": f"sqlite:///{tmp_path / 'runs.db'}"}
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = {}
    for chunk in done.stdout.split("### ")[1:]:
        command, _, text = chunk.partition("\n")
        out[command] = text

    def score(prefix: str) -> str:
        (text,) = [t for c, t in out.items() if c.startswith(prefix)]
        return re.search(r"total score \(sum of step scores\)\s*│\s*(-?\d+)", text).group(1)

    assert score(f"wwm run --mind http://127.0.0.1:{ports['8002']}/") == "21"        # TowardFood
    assert score(f"wwm run --mind http://127.0.0.1:{ports['8004']}/") == "13"        # CoinSeeker
    assert score(f"wwm run --mind http://127.0.0.1:{ports['8005']}/") == "2"         # random
    check = next(t for c, t in out.items() if c.startswith("wwm check"))
    assert "0 failed" in check
    python = next(t for c, t in out.items() if c.startswith("python "))
    assert python.count("score 21") == 2
    assert "ended by world" in next(t for c, t in out.items() if c.startswith("wwm run examples/"))
