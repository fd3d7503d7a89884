"""Every selection test keeps what its minds and Action Selection servers learn (7.3) in a
folder of its own, never in the user's ~/.local/share/wwm/knowledge nor another test's: a
learning society recalls what it learnt with the same client in an earlier run."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def knowledge_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path / "knowledge"))
