"""The notebook of examples/notebooks, executed as a reader would run it (nbclient, a real
ipykernel): it serves a world and two minds as subprocesses, trains a Q-learning mind through
the synchronous facade, runs a society and plots the result. Every cell must run, the plot
must come out as an image, and the figures it prints must say the mind learnt."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebooks" / "world-q-learning-society.ipynb"


def test_the_notebook_serves_trains_runs_a_society_and_plots(tmp_path, monkeypatch):
    # the kernel imports this checkout's wwm (a worktree beside an installed one)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                                   os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells), "the notebook is stored without outputs"
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    assert any("image/png" in out.get("data", {}) for out in outputs), "the plot did not come out"
    last = notebook.cells[-1].outputs[-1]["text"].strip().splitlines()[-1]
    summary = json.loads(last)
    curve, scores = summary["curve"], summary["scores"]
    assert len(curve) == 30
    third = len(curve) // 3
    assert sum(curve[-third:]) > 2 * sum(curve[:third]), f"the mind did not learn: {curve}"
    # the same mind untrained (Boltzmann over an empty table: a random walk) eats far less
    assert scores["Q-learner (trained)"] > 2 * scores["Q-learner (untrained)"] + 2, scores
    assert scores["Q-learner (trained)"] > scores["random (served)"]
    assert scores["society: AS(Q-learner, food seeker)"] > scores["random (served)"]
