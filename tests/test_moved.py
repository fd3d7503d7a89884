"""Old module names still import after the move to one package per feature, as the same
module objects (not second copies), saying where the module is now."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from wwm._moved import MOVED, new_name


def test_an_old_name_is_the_module_at_its_new_name_with_a_warning():
    import wwm.kit.grid
    import wwm.tileworld.engine

    with pytest.warns(DeprecationWarning, match="wwm.worlds.grid is now wwm.kit.grid"):
        old = importlib.import_module("wwm.worlds.grid")
    assert old is wwm.kit.grid and old.GridWorld is wwm.kit.grid.GridWorld
    with pytest.warns(DeprecationWarning):
        assert importlib.import_module("wwm.worlds.tileworld.engine") is wwm.tileworld.engine
    assert new_name("wwm.evaluation.agents.base") == "wwm.lambdastar.agents.base"
    assert new_name("wwm.kit.grid") is None


def test_a_package_imported_by_its_old_name_is_still_a_package():
    # the import system gives a module the spec of the name it was imported by; a moved package
    # must keep its own, or importlib.resources and its submodules no longer find its files
    code = """
import warnings
warnings.simplefilter("ignore", DeprecationWarning)
import wwm.proxy, wwm.worlds.tileworld
import wwm.tileworld
from importlib import resources
assert wwm.tileworld.__spec__.name == "wwm.tileworld", wwm.tileworld.__spec__
assert (resources.files("wwm.tileworld") / "static" / "index.html").is_file()
import wwm.tileworld.app
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_every_old_name_leads_somewhere():
    for new in MOVED.values():
        importlib.import_module(new)


def test_old_targets_still_serve_and_load():
    from wwm.targets import load_target

    with pytest.warns(DeprecationWarning):
        cls = load_target("wwm.minds.random_mind:RandomMind")
    assert cls.__module__ == "wwm.kit.random_mind"


def test_the_package_itself_uses_no_old_name():
    """Every module of wwm imports without going through an old name (alembic's migration
    scripts aside: alembic runs them, inside its own context, and nothing imports them)."""
    code = ("import pkgutil, importlib, warnings, wwm\n"
            "warnings.simplefilter('error', DeprecationWarning)\n"
            "for m in pkgutil.walk_packages(wwm.__path__, 'wwm.'):\n"
            "    if '.migrations.' not in m.name:\n"
            "        importlib.import_module(m.name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
