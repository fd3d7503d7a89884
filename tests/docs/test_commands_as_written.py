"""Every shell command of the README and of docs/getting-started.md, run as written (the ```sh
blocks, in order, in one shell) on a copy of the repository with a fresh virtual environment,
and the results the pages state. Only the ports change: 8001-8009 become free ports."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "getting-started.md"]
# The README's second command is the test suite itself, this test included.
NOT_RUN = {"bash scripts/test.sh"}


def sh_lines(page: Path) -> list[str]:
    """The lines of the page's ```sh blocks, in order."""
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", page.read_text(), flags=re.S | re.M):
        lines += [line for line in block.splitlines() if line.strip()]
    return lines


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_of_the_repository(to: Path) -> Path:
    """The files a clone would have (tracked, and new files not ignored), without .venv."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    return to


def test_the_pages_have_commands_for_the_shell():
    readme, guide = (sh_lines(page) for page in PAGES)
    assert readme[0].startswith("python3 -m venv .venv && .venv/bin/pip install -e .")
    assert readme[1] == "bash scripts/test.sh"
    assert guide[0] == ". .venv/bin/activate"
    assert any(line.startswith("wwm serve-exec ") for line in guide)
    for port in re.findall(r"(?:--port |127\.0\.0\.1:)(\d+)", "\n".join(readme + guide)):
        assert 8001 <= int(port) <= 8009, port   # the ports the harness maps


def test_the_readme_shows_the_example_file_as_it_is():
    readme = PAGES[0].read_text()
    example = (ROOT / "examples" / "getting-started" / "nearest_food.py").read_text()
    assert f"```python\n{example}```" in readme


def run_page(page: Path, clone: Path, db: Path) -> tuple[dict[str, str], dict[str, str], str]:
    """Run the page's commands in one shell in ``clone``; return the port map, each command's
    output (by the command as run) and the whole of stdout. Each page has ports of its own and
    stops the servers it started when it ends."""
    ports = {str(p): str(free_port()) for p in range(8001, 8010)}
    script = ["set -e", "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT"]
    for line in sh_lines(page):
        if line in NOT_RUN:
            continue
        line = re.sub(r"\b80(0[1-9])\b", lambda m: ports[m.group(0)], line)
        script += [f"echo '### {line}'", line]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(COLUMNS="80", WWM_DATABASE_URL=f"sqlite:///{db}")
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{page.name}:\n" + done.stdout[-4000:] + done.stderr[-4000:]
    assert "Traceback" not in done.stdout + done.stderr, page.name
    assert "…" not in done.stdout, page.name                  # nothing cut short in 80 columns
    out: dict[str, str] = {}
    for chunk in done.stdout.split("### ")[1:]:
        command, _, text = chunk.partition("\n")
        out[command] = text
    return ports, out, done.stdout


def score(text: str) -> int:
    return int(re.search(r"total score: (-?\d+)", text).group(1))


@pytest.mark.slow
def test_every_command_works_as_written(tmp_path):
    clone = copy_of_the_repository(tmp_path / "clone")
    db = tmp_path / "runs.db"

    ports, out, stdout = run_page(PAGES[0], clone, db)                  # the README
    assert "demo" in next(c for c in out if c.startswith("python3 -m venv .venv"))
    mind, world = (f"http://127.0.0.1:{ports[p]}/" for p in ("8002", "8001"))
    assert f"serving the mind NearestFood at {mind}" in stdout
    assert f"serving the world GridWorld at {world}" in stdout
    ran = out[f"wwm run --mind {mind} --world {world} --steps 200"]
    assert re.search(r"steps: 200\b", ran) and score(ran) == 22       # as the README says
    assert "Υ" in next(t for c, t in out.items() if c.startswith("wwm lambdastar"))
    site = next(t for c, t in out.items() if c.startswith("wwm docs")).strip().splitlines()[-1]
    assert (Path(site) / "index.html").is_file()                       # the site, built

    ports, out, stdout = run_page(PAGES[1], clone, db)                  # getting started

    def ran(mind_port: str, rest: str = "") -> str:
        return next(t for c, t in out.items()
                    if c.startswith(f"wwm run --mind http://127.0.0.1:{ports[mind_port]}/") and rest in c)

    assert score(ran("8002")) == 21                                    # TowardFood
    assert score(ran("8004")) == 13                                    # CoinSeeker
    assert score(ran("8005")) == 2                                     # random
    assert "0 failed" in next(t for c, t in out.items() if c.startswith("wwm check"))
    python = next(t for c, t in out.items() if c.startswith("python "))
    assert python.count("score 21") == 2
    assert "ended by world" in next(t for c, t in out.items() if c.startswith("wwm run examples/"))
