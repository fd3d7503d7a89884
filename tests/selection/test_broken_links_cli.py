"""``wwm broken-links``: copies of three Ant World minds served as real processes and killed
one by one during each run; the society's score per part of the run against the fraction of
servers lost, over seeds, as a table, a plot and JSON (section 6.5)."""

from __future__ import annotations

import json
import statistics

import pytest

from wwm.cli.main import main
from wwm.selection.broken_links import kill_order

pytestmark = pytest.mark.slow


def test_kill_order_takes_one_copy_of_each_mind_in_turn():
    # servers: copy c of goal g (forager 0, homer 1, fleer 2) at 3c + g
    assert kill_order(2) == [2, 1, 0, 5, 4, 3]


def test_broken_links_prints_mean_and_sd_per_fraction_lost_and_saves_a_plot(tmp_path, capsys):
    plot, scores = tmp_path / "links.png", tmp_path / "links.json"
    code = main(["broken-links", "--seeds", "2", "--copies", "1", "--segment", "15", "--plot", str(plot),
                 "--scores", str(scores)])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(scores.read_text())
    assert doc["servers"] == 3 and doc["seeds"] == [0, 1]
    runs = doc["parts"]["w=q"]
    assert len(runs) == 2 and all(len(parts) == 4 for parts in runs)   # 0, 1, 2, 3 servers lost
    # while one server is alive the society acts on every step; with none it cannot, and no crash
    assert all(p["acted"] == 1.0 for parts in runs for p in parts[:3])
    assert all(parts[3] == {"score": 0.0, "acted": 0.0} for parts in runs)
    for k, row in enumerate(doc["summary"]["w=q"]):
        values = [parts[k]["score"] for parts in runs]
        assert row["mean"] == pytest.approx(statistics.fmean(values))
        line = next(line for line in out.splitlines() if f" {k}/3 " in line)
        assert f"{statistics.fmean(values):.1f} ± {statistics.stdev(values):.1f}" in line
    intact = doc["intact"]["w=q"]                                        # the same runs, no server killed
    assert len(intact) == 2 and all(p["acted"] == 1.0 for parts in intact for p in parts)  # to the end
    assert plot.stat().st_size > 2000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_bad_input_is_one_line_before_any_server_starts(capsys):
    assert main(["broken-links", "--methods", "loudest"]) == 2
    assert "unknown method 'loudest'" in capsys.readouterr().err
    assert main(["broken-links", "--copies", "0"]) == 2
    assert "--copies and --segment must be at least 1" in capsys.readouterr().err
