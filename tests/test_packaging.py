"""The package as the index would hold it (issue 27, item 7): a wheel and an sdist built from
this checkout under the distribution name ``world-wide-mind`` (``wwm`` on the index is someone
else's), both clean by ``twine check``; the wheel installed into a fresh virtual environment
brings the ``wwm`` command, the ``wwm`` import, its pages, migrations and ``py.typed``, and its
worlds and minds as entry points; every doc's install line names the distribution."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "world-wide-mind"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: the build backend (hatchling) from the test environment, no download
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(out),
                           str(ROOT)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def test_the_distribution_name_is_ours_and_the_docs_use_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == NAME and project["scripts"]["wwm"] == "wwm.cli.main:main"
    from wwm.registry import DISTRIBUTION
    assert DISTRIBUTION == NAME
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "src").rglob("*.py"),
             *(ROOT / "examples").rglob("*.py")]
    wrong = [str(p.relative_to(ROOT)) for p in pages if re.search(r"pip install '?wwm\b", p.read_text())]
    assert not wrong, wrong


def test_twine_finds_the_wheel_and_sdist_clean(built):
    files = sorted(built.iterdir())
    assert [f.name.split("-")[0] for f in files] == ["world_wide_mind"] * 2, files
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.count("PASSED") == 2, done.stdout + done.stderr


def test_the_wheel_installed_in_a_fresh_environment_serves_its_worlds(built, tmp_path):
    (wheel,) = built.glob("*.whl")
    inside = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("wwm/py.typed", "wwm/portal/static/portal.css", "wwm/server/templates/base.html",
                   "wwm/portal/migrations/env.py"):
        assert any(name.endswith(needed) for name in inside), needed
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=120)
    python = fresh / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the wheel unpacked by pip into the fresh environment, its dependencies not fetched: they are
    # read from the test environment's site-packages, after the fresh one's (which holds wwm)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                           "--no-index", "--quiet", str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    env.pop("VIRTUAL_ENV", None)
    listed = subprocess.run([str(fresh / "bin" / "wwm"), "list", "worlds", "--json"], capture_output=True,
                            text=True, timeout=120, env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert '"grid"' in listed.stdout and '"from": "wwm"' in listed.stdout
    where = subprocess.run([str(python), "-c", "import wwm, importlib.metadata as m; print(wwm.__file__); "
                            "print(m.version('world-wide-mind'))"], capture_output=True, text=True, env=env)
    assert where.stdout.startswith(site), where.stdout + where.stderr  # the wheel's wwm, not this checkout's
