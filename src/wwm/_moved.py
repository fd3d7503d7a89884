"""Old module names, kept importable after the move to one package per feature (0.2): an
import of a name below is the module at its new name, with a DeprecationWarning saying so.
Society documents and ``wwm serve`` targets written against the old names keep working."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED: dict[str, str] = {
    "wwm.acl.lambdastar": "wwm.lambdastar.agents.acl_team",
    "wwm.cli.acl": "wwm.acl.command",
    "wwm.cli.common": "wwm.commands",
    "wwm.cli.compare": "wwm.selection.command",
    "wwm.cli.lambdastar": "wwm.lambdastar.command",
    "wwm.cli.meta": "wwm.meta.command",
    "wwm.cli.tworld": "wwm.tileworld.command",
    "wwm.client.exec_transport": "wwm.server.exec",
    "wwm.evaluation": "wwm.lambdastar",
    "wwm.evaluation.agents": "wwm.lambdastar.agents",
    "wwm.evaluation.battery": "wwm.lambdastar.battery",
    "wwm.evaluation.complexity": "wwm.lambdastar.complexity",
    "wwm.evaluation.harness": "wwm.lambdastar.harness",
    "wwm.evaluation.remote": "wwm.lambdastar.remote",
    "wwm.evaluation.report": "wwm.lambdastar.report",
    "wwm.evaluation.sweep": "wwm.lambdastar.sweep",
    "wwm.evaluation.vector": "wwm.lambdastar.vector",
    "wwm.minds": "wwm.kit",
    "wwm.minds.eliza": "wwm.kit.eliza",
    "wwm.minds.grid_minds": "wwm.kit.grid_minds",
    "wwm.minds.lambdastar_agents": "wwm.lambdastar.minds",
    "wwm.minds.learning": "wwm.selection.learning",
    "wwm.minds.meta_mind": "wwm.meta.mind",
    "wwm.minds.random_mind": "wwm.kit.random_mind",
    "wwm.minds.scoring": "wwm.kit.scoring",
    "wwm.proxy": "wwm.tileworld",
    "wwm.proxy.server": "wwm.tileworld.proxy",
    "wwm.selection.region": "wwm.kit.region",
    "wwm.server.arguments": "wwm.protocol.arguments",
    "wwm.testing": "wwm.server.process",
    "wwm.worlds": "wwm.kit",
    "wwm.worlds.ant": "wwm.selection.ant",
    "wwm.worlds.eliza_world": "wwm.kit.eliza_world",
    "wwm.worlds.grid": "wwm.kit.grid",
    "wwm.worlds.house_robot": "wwm.selection.house_robot",
    "wwm.worlds.lambdastar": "wwm.lambdastar",
    "wwm.worlds.mind_as_world": "wwm.kit.mind_as_world",
    "wwm.worlds.tileworld": "wwm.tileworld",
    "wwm.worlds.wrappers": "wwm.kit.wrappers",
}


def new_name(name: str) -> str | None:
    """The module's name now, or None if it did not move."""
    for old in sorted(MOVED, key=len, reverse=True):
        if name == old or name.startswith(old + "."):
            return MOVED[old] + name[len(old):]
    return None


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name first (before the path finder, which would load a second copy of a
    moved module under its old name) and gives the module at its new name."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        return importlib.util.spec_from_loader(fullname, self) if new else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None
        warnings.warn(f"{spec.name} is now {new}; the old name will go in a later release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # the import system sets __spec__ to the old name's next
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The module at its new name is already executed; give it back its own spec, without
        # which a package would no longer read as one (importlib.resources, submodules).
        alias = module.__spec__
        assert alias is not None and alias.loader_state is not None
        module.__spec__ = alias.loader_state


def install() -> None:
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())
