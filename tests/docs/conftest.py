"""The documentation site, built once per test process by ``wwm docs --build-only`` (MkDocs,
strictly: a warning fails the build) and read by the tests of the command and of the site: a
build costs about ten seconds of CPU, and each of them used to make its own."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Built:
    out: Path
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Built:
    out = tmp_path_factory.mktemp("built") / "site"
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "docs", "--build-only", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy())
    return Built(out, done)
