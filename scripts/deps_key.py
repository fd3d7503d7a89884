"""Prints the key of the test environment scripts/test.sh keeps between runs: a hash of the
Python version and of the dependency lists in pyproject.toml (the build backend's included: the
environment keeps it, so wwm itself installs without fetching it), so a change to any of them
makes a new one. With ``--build-requires``: the build backend's requirement, to install."""

import hashlib
import json
import sys
import tomllib
from pathlib import Path

pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
project, build = pyproject["project"], pyproject["build-system"]["requires"]
if sys.argv[1:] == ["--build-requires"]:  # (hatchling builds an editable install with "editables")
    print(" ".join([*build, "editables"]))
    sys.exit(0)
extras = project.get("optional-dependencies", {})
wanted = {"python": sys.version, "dependencies": project["dependencies"],
          "test": extras.get("test", []), "postgres": extras.get("postgres", []),
          "build": build}
print("py" + "".join(map(str, sys.version_info[:2])) + "-" + hashlib.sha256(json.dumps(wanted).encode()).hexdigest()[:16])
