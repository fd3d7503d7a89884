"""A run saved in a server's ``--state`` file by a wwm before the AS was split into its parts
cannot go on: the restarted server drops it with a line saying so (its client is then told the run
is unknown) and takes back its other runs, rather than serving a broken Action Selection mind."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from wwm.kit.grid import GridWorld
from wwm.selection.mind_as import ActionSelectionMind
from wwm.server.snapshots import SnapshotFile


def _older_as() -> ActionSelectionMind:
    """An AS object shaped as the unsplit class saved it: its members and settings on itself."""
    old = ActionSelectionMind.__new__(ActionSelectionMind)
    old.__dict__.update({"timeout": 2.0, "members": [], "waiting": {}, "store": None, "steps": 4})
    return old


def test_an_as_run_saved_by_an_older_wwm_is_dropped_with_a_line_and_the_others_are_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "state.db"
    saved = SnapshotFile(path)
    saved.save("old-as", "http://client.test/", "t1", _older_as())
    saved.save("as", "http://client.test/", "t2", ActionSelectionMind(minds="http://127.0.0.1:9/"))
    saved.save("grid", "http://client.test/", "t3", GridWorld(size=5))
    saved.close()

    with caplog.at_level(logging.WARNING, logger="wwm.server"):
        restarted = SnapshotFile(path)
        runs = {run_id: obj for run_id, _, _, obj in restarted.load()}
    assert set(runs) == {"as", "grid"}
    assert isinstance(runs["as"], ActionSelectionMind) and runs["as"].team is not None
    said = [r.getMessage() for r in caplog.records if "old-as" in r.getMessage()]
    assert len(said) == 1 and "saved by an older wwm (no config, team, knowledge)" in said[0]
    assert "dropped" in said[0]
    assert {run_id for run_id, *_ in restarted.load()} == {"as", "grid"}     # gone from the file too
    restarted.close()
