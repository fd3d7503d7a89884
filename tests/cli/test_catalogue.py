"""The catalogue of worlds and minds (issue 28, item 4): ``wwm list --long`` and
docs/catalogue.md come from one source and agree; every built-in World has a readable
one-line description (no placeholder), the section of the seed that describes it, its state
and action formats and its arguments with defaults; it fits 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from wwm.cli.listing import catalogued
from wwm.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_page_is_what_wwm_list_writes(capsys):
    assert main(["list", "--markdown"]) == 0
    written = capsys.readouterr().out
    assert (ROOT / "docs" / "catalogue.md").read_text() == written, \
        "docs/catalogue.md is stale: run  wwm list --markdown > docs/catalogue.md"


@pytest.mark.parametrize("kind", ["worlds", "minds"])
def test_every_entry_reads_as_a_sentence(kind):
    for e in catalogued(kind):
        assert e.about.endswith((".", ")")) and len(e.about) > 20, (e.name, e.about)
        assert "module text" not in e.about and "``" not in e.about and ":class:" not in e.about, e.name
        assert e.state_format and e.action_format, e.name


def test_every_world_names_its_seed_section_and_arguments():
    worlds = {e.name: e for e in catalogued("worlds")}
    assert {"grid", "tyrrell", "tileworld", "lambdastar", "corridor", "keydoor"} <= set(worlds)
    assert all(e.section for e in worlds.values()), [n for n, e in worlds.items() if not e.section]
    assert worlds["grid"].arguments["size"] == "8" and worlds["grid"].action_space.startswith("Discrete(5)")


def test_the_long_listing_fits_80_columns():
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "list", "--long"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "corridor" in done.stdout and "seed" in done.stdout
    assert max(cell_len(line) for line in done.stdout.splitlines()) <= 80  # (columns, not code points)
