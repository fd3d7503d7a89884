"""``wwm docs`` as a user runs it: it builds the site strictly and serves it, or only builds
it; it says in one line what is missing when the tools are not installed."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

from wwm.cli import docs


def wwm(*args: str, **kwargs) -> subprocess.Popen | subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", *args], capture_output=True,
                          text=True, timeout=300, env=os.environ.copy(), **kwargs)


def test_build_only_builds_the_site_and_prints_its_folder(built_site):
    done, out = built_site.done, built_site.out
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out.resolve())
    assert 'id="wwm.connect"' in (out / "api" / "index.html").read_text()


def test_it_serves_the_site_on_the_port_it_prints(tmp_path, built_site):
    """Into a folder holding a site built before: it is built again, and served."""
    site = shutil.copytree(built_site.out, tmp_path / "site")
    (site / "index.html").write_text("stale")
    process = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "docs", "--port", "0", "--out", str(site)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"serving the documentation at (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops it\)\n", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        assert int(match.group(2)) > 0
        with urllib.request.urlopen(match.group(1) + "getting-started/", timeout=10) as reply:
            assert reply.status == 200 and "TowardFood" in reply.read().decode()
        with urllib.request.urlopen(match.group(1), timeout=10) as reply:
            assert reply.read() != b"stale"                            # built again
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_it_refuses_a_folder_holding_other_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = wwm("docs", "--build-only", "--out", str(tmp_path))
    assert done.returncode == 2
    assert "not a built site" in done.stderr and (tmp_path / "notes.txt").exists()


def test_without_the_tools_it_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(docs, "tools_missing", lambda: ["mkdocs"])
    args = argparse.Namespace(port=8000, out=None, build_only=True, open=False)
    assert docs.run(args) == 2
    err = capsys.readouterr().err
    assert err == "wwm docs: the documentation tools are not installed; pip install -e '.[docs]'\n"


def test_the_tools_are_found_when_installed():
    assert docs.tools_missing() == []
    assert docs.config_file() == Path(__file__).resolve().parents[2] / "mkdocs.yml"
