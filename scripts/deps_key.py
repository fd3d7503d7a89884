"""Prints the key of the test environment scripts/test.sh keeps between runs: a hash of the
Python version and of the dependency lists in pyproject.toml, so a change to either makes a new one."""

import hashlib
import json
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
extras = project.get("optional-dependencies", {})
wanted = {"python": sys.version, "dependencies": project["dependencies"],
          "test": extras.get("test", []), "postgres": extras.get("postgres", [])}
print("py" + "".join(map(str, sys.version_info[:2])) + "-" + hashlib.sha256(json.dumps(wanted).encode()).hexdigest()[:16])
