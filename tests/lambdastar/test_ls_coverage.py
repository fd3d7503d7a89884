"""Coverage (section 6.1: "monitoring which neighborhoods are/are not explored by the
agents"): the share of the grid's cells each agent, and its team, stood on in an episode,
the same in both engines and reported by ``wwm lambdastar``."""

import json

import numpy as np
import pytest

from wwm.cli.main import main
from wwm.lambdastar import vector
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.engine import Episode
from wwm.lambdastar.harness import Setting, play


def test_coverage_counts_the_cells_stood_on():
    episodes = build(BatterySpec(6, 25, 20, seed=3))
    got = play(Setting("random", 3), episodes)
    # replay each episode's random walks from the same draws and count the cells by hand
    for e in range(len(episodes)):
        env = Episode(episodes, e, 3)
        seen = [{int(p)} for p in env.positions]
        draws = episodes.all_draws(3)[e]
        for i in range(25):
            env.step((draws[i, :, 0] * 9).astype(int))
            for j, p in enumerate(env.positions):
                seen[j].add(int(p))
        assert got.coverage[e].tolist() == pytest.approx([len(s) / 36 for s in seen])
        assert got.team_coverage[e] == pytest.approx(len(set().union(*seen)) / 36)


@pytest.mark.parametrize("agent", ["random", "local", "oracle", "stigmergy", "woc", "qlearning"])
def test_both_engines_measure_the_same_coverage(agent):
    episodes = build(BatterySpec((5, 8), 30, 30, seed=1))
    plain, fast = play(Setting(agent, 3), episodes), vector.play(Setting(agent, 3), episodes)
    assert np.array_equal(plain.coverage, fast.coverage)
    assert np.array_equal(plain.team_coverage, fast.team_coverage)
    assert (plain.coverage >= 1 / 40).all() and (plain.coverage <= 31 / 40).all()
    assert (plain.team_coverage >= plain.coverage.max(axis=1)).all()


def test_the_cli_reports_coverage(tmp_path, capsys):
    assert main(["lambdastar", "--agents", "random,oracle", "--sizes", "1,4", "--episodes", "60",
                 "--no-plots", "--json", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    rows = {(r["job"]["agent"], r["job"]["size"]): r for r in json.loads(out.out)}
    assert [len(r["coverage"]) for r in rows.values()] == [1, 4, 1, 4]
    walker, oracle = rows["random", 1], rows["oracle", 1]
    assert walker["coverage"][0] > 2 * oracle["coverage"][0]      # an oracle sits on Good's path
    assert walker["team_coverage"] == walker["coverage"][0]
    assert rows["random", 4]["team_coverage"] > max(rows["random", 4]["coverage"])
    assert "visited" in out.err and f"{walker['coverage'][0]:.0%}" in out.err
    header = (tmp_path / "results.csv").read_text().splitlines()[0].split(",")
    assert header[14:16] == ["coverage", "team_coverage"]
