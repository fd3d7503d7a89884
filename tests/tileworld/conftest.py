"""Fixtures for the Tileworld tests: the example agents in C, Node, Java, Python and Prolog, built
once per session, as commands that take ``host port magic``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tileworld"


@pytest.fixture(scope="session")
def agent_commands(tmp_path_factory) -> dict[str, list[str]]:
    build = tmp_path_factory.mktemp("tworld-agents")
    for tool in ("gcc", "javac", "java", "node", "swipl"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is needed to build and run the example agents")
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(build / "agent"), str(EXAMPLES / "c" / "agent.c")],
                   check=True, capture_output=True)
    subprocess.run(["javac", "-d", str(build), str(EXAMPLES / "java" / "Agent.java")], check=True, capture_output=True)
    return {
        "c": [str(build / "agent")],
        "javascript": ["node", str(EXAMPLES / "javascript" / "agent.js")],
        "java": ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", str(build), "Agent"],
        "python": [sys.executable, str(EXAMPLES / "python" / "agent.py")],
        "prolog": ["swipl", str(EXAMPLES / "prolog" / "agent.pl")],
    }
