"""Every shell command of the README and of docs/getting-started.md, run as written (the ```sh
blocks, in order) on a copy of the repository with a fresh virtual environment, and the results
the pages state. Only the ports change: 8001-8009 become free ports.

The README's first command (a virtual environment, wwm installed in it, ``wwm demo``) is run
once per test session, in a copy of the repository shared by the session's test processes; the
rest of each page is cut into *sections*, each run in a shell of its own (the environment
activated, as the page's shell is by then), so that the test processes run them side by side:
blocks that share a port (a server one starts and another one uses) stay in one section, in
the page's order. A section that installs into the environment runs alone (a lock taken
exclusively, where the others share it): pip rewrites wwm's own install as it goes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from wwm.protocol.ports import free_port

pytestmark = pytest.mark.early   # installs and builds for minutes: started first, it does not end the suite
ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "getting-started.md"]
INSTALL = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/wwm demo"
ACTIVATE = ". .venv/bin/activate"
# The README's second command is the test suite itself, this test included.
NOT_RUN = {"bash scripts/test.sh", INSTALL}
PORT = re.compile(r"\b80(0[1-9])\b")


def sh_blocks(page: Path) -> list[list[str]]:
    """The non-blank lines of each of the page's ```sh blocks, in order."""
    return [[line for line in block.splitlines() if line.strip()]
            for block in re.findall(r"^```sh\n(.*?)^```", page.read_text(), flags=re.S | re.M)]


def sh_lines(page: Path) -> list[str]:
    """The lines of the page's ```sh blocks, in order."""
    return [line for block in sh_blocks(page) for line in block]


@dataclass(frozen=True)
class Section:
    page: Path
    lines: tuple[str, ...]

    @property
    def id(self) -> str:
        first = next(line for line in self.lines if line != ACTIVATE)
        return f"{self.page.stem}: {first[:48]}"

    @property
    def installs(self) -> bool:
        return any(" install " in line for line in self.lines)


def sections(page: Path) -> list[Section]:
    """The page's commands cut into sections: the blocks joined by the ports they share."""
    groups: list[tuple[set[str], list[str]]] = []
    for block in sh_blocks(page):
        lines = [line for line in block if line not in NOT_RUN]
        if not lines:
            continue
        ports = set(PORT.findall("\n".join(lines)))
        joined = [g for g in groups if ports and g[0] & ports]
        if joined:  # (one group in the pages as they are; more would be merged into the first)
            first = joined[0]
            for other in joined[1:]:
                first[0].update(other[0])
                first[1].extend(other[1])
                groups.remove(other)
            first[0].update(ports)
            first[1].extend(lines)
        else:
            groups.append((ports, lines))
    return [Section(page, tuple(lines)) for _, lines in groups]


SECTIONS = [section for page in PAGES for section in sections(page)]


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


@contextlib.contextmanager
def locked(path: Path, exclusive: bool) -> Iterator[None]:
    with open(path, "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


def shell(script: list[str], clone: Path, db: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(COLUMNS="80", WWM_DATABASE_URL=f"sqlite:///{db}")
    return subprocess.run(["bash", "-c", "\n".join(["set -e", "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT",
                                                     *script])],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=900)


def checked(done: subprocess.CompletedProcess[str], name: str) -> None:
    assert done.returncode == 0, f"{name}:\n" + done.stdout[-4000:] + done.stderr[-4000:]
    assert "Traceback" not in done.stdout + done.stderr, name
    assert "…" not in done.stdout, name                  # nothing cut short in 80 columns


@dataclass
class Clone:
    """The copy of the repository with the README's environment made in it."""

    path: Path
    lock: Path
    install_output: str


@pytest.fixture(scope="session")
def clone(tmp_path_factory) -> Clone:
    """Made once for the session: under pytest-xdist the test processes share the folder above
    their own temporary folders, and the first one to come makes it while the others wait."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, lock = shared / "commands-as-written", shared / "commands-as-written.lock"
    with locked(lock, exclusive=True):
        output = folder / "install-output.txt"
        if not output.exists():
            shutil.rmtree(folder, ignore_errors=True)
            copy_of_the_repository(folder / "clone")
            done = shell([INSTALL], folder / "clone", folder / "runs.db")
            checked(done, "the README's install")
            output.write_text(done.stdout)
    return Clone(folder / "clone", lock, output.read_text())


def run_section(section: Section, clone: Clone, db: Path) -> tuple[dict[str, str], dict[str, str], str]:
    """Run the section's commands in one shell in the clone, the environment activated; return
    the port map, each command's output (by the command as run) and the whole of stdout. Each
    section has ports of its own and stops the servers it started when it ends."""
    ports = {str(p): str(free_port()) for p in range(8001, 8010)}
    script = [ACTIVATE]
    for line in section.lines:
        line = PORT.sub(lambda m: ports[m.group(0)], line)
        script += [f"echo '### {line}'", line]
    with locked(clone.lock, exclusive=section.installs):
        done = shell(script, clone.path, db)
    checked(done, section.id)
    out: dict[str, str] = {}
    for chunk in done.stdout.split("### ")[1:]:
        command, _, text = chunk.partition("\n")
        out[command] = text
    return ports, out, done.stdout


def score(text: str) -> int:
    return int(re.search(r"total score: (-?\d+)", text).group(1))


def output_of(out: dict[str, str], start: str, has: str = "") -> str:
    return next(t for c, t in out.items() if c.startswith(start) and has in c)


def readme_serve_and_run(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    mind, world = (f"http://127.0.0.1:{ports[p]}/" for p in ("8002", "8001"))
    assert f"serving the mind NearestFood at {mind}" in stdout
    assert f"serving the world GridWorld at {world}" in stdout
    ran = out[f"wwm run --mind {mind} --world {world} --steps 200"]
    assert re.search(r"steps: 200\b", ran) and score(ran) == 22       # as the README says


def readme_docs(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    site = output_of(out, "wwm docs").strip().splitlines()[-1]
    assert (Path(site) / "index.html").is_file()                       # the site, built


def readme_lambdastar(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    assert "Υ" in output_of(out, "wwm lambdastar")


def guide_toward_food(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    assert score(output_of(out, f"wwm run --mind http://127.0.0.1:{ports['8002']}/")) == 21   # TowardFood
    assert output_of(out, "python ").count("score 21") == 2


def guide_corridor(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    assert score(output_of(out, f"wwm run --mind http://127.0.0.1:{ports['8004']}/")) == 13   # CoinSeeker
    assert score(output_of(out, f"wwm run --mind http://127.0.0.1:{ports['8005']}/")) == 2    # random
    assert "0 failed" in output_of(out, "wwm check")


def guide_society(ports: dict[str, str], out: dict[str, str], stdout: str) -> None:
    assert "ended by world" in output_of(out, "wwm run examples/")


# what each page states, by a command of the section that shows it
CHECKS: dict[tuple[str, str], Callable[[dict[str, str], dict[str, str], str], None]] = {
    ("README", "wwm serve examples/getting-started/nearest_food.py"): readme_serve_and_run,
    ("README", "wwm docs"): readme_docs,
    ("README", "wwm lambdastar"): readme_lambdastar,
    ("getting-started", "wwm serve examples/getting-started/toward_food.py"): guide_toward_food,
    ("getting-started", "wwm serve examples/getting-started/corridor.py:Corridor"): guide_corridor,
    ("getting-started", "wwm run examples/societies/"): guide_society,
}


def checks_of(section: Section) -> list[Callable[[dict[str, str], dict[str, str], str], None]]:
    return [check for (page, start), check in CHECKS.items()
            if page == section.page.stem and any(line.startswith(start) for line in section.lines)]


def test_the_pages_have_commands_for_the_shell():
    readme, guide = (sh_lines(page) for page in PAGES)
    assert readme[0] == INSTALL
    assert readme[1] == "bash scripts/test.sh"
    assert readme[2] == guide[0] == ACTIVATE      # each section runs in the environment, activated
    assert any(line.startswith("wwm serve-exec ") for line in guide)
    for port in re.findall(r"(?:--port |127\.0\.0\.1:)(\d+)", "\n".join(readme + guide)):
        assert 8001 <= int(port) <= 8009, port   # the ports the harness maps


def test_the_sections_hold_every_command_once_in_the_pages_order():
    for page in PAGES:
        mine = [s for s in SECTIONS if s.page == page]
        ran = [line for s in mine for line in s.lines]
        assert sorted(ran) == sorted(line for line in sh_lines(page) if line not in NOT_RUN)
        for s in mine:  # in the page's order within a section
            order = [sh_lines(page).index(line) for line in s.lines]
            assert order == sorted(order), s.id
    for (page, start), _ in CHECKS.items():  # every stated result is checked somewhere
        assert any(s.page.stem == page and any(line.startswith(start) for line in s.lines)
                   for s in SECTIONS), (page, start)


def test_the_readme_shows_the_example_file_as_it_is():
    readme = PAGES[0].read_text()
    example = (ROOT / "examples" / "getting-started" / "nearest_food.py").read_text()
    assert f"```python\n{example}```" in readme


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_readme_installs_and_runs_the_demo(clone):
    assert "Scores in the grid world" in clone.install_output and "ended by world" in clone.install_output


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("section", SECTIONS, ids=[s.id for s in SECTIONS])
def test_every_command_works_as_written(section, clone, tmp_path):
    ports, out, stdout = run_section(section, clone, tmp_path / "runs.db")
    for check in checks_of(section):
        check(ports, out, stdout)
