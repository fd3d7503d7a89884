"""The defaults each profile takes from its source: the paper's section 5.1 (K(μ) ∈ [2, 23])
and Algorithm 1 (one training session per episode), and the authors' code (no limit on K,
100 training replays)."""

import json

import numpy as np
import pytest

from wwm.cli.main import main
from wwm.lambdastar.battery import BatterySpec, build
from wwm.lambdastar.episodes import generate
from wwm.lambdastar.profiles import ORIGINAL, PAPER


@pytest.mark.parametrize("iterations", [100, 1000])
def test_a_default_paper_battery_has_k_in_2_to_23(iterations):
    k = build(BatterySpec(10, iterations, 1500, seed=3)).complexity
    assert k.min() >= 2 and k.max() <= 23
    assert np.isin(np.arange(2, 21), k).all()     # spread over the range, not a few values
    # the generator itself, without the limit, goes well beyond 23 (the test's K range is a choice)
    assert generate(10, iterations, 1500, seed=3, k_max=None).complexity.max() > 30


def test_the_original_profile_samples_blindly_as_the_code():
    assert PAPER.k_max == 23 and ORIGINAL.k_max is None
    k = build(BatterySpec(12, 60, 3000, "original", seed=1)).complexity
    assert k.max() > 19 and k.max() <= 2 * 12 - 1   # the code's [2, 2n-1]: beyond [2, 19] on 12x12


def test_a_k_range_widens_the_battery_beyond_23():
    k = build(BatterySpec(10, 100, 200, seed=0, k_range=(24, 40))).complexity
    assert k.min() >= 24 and k.max() <= 40 and k.max() >= 35


def test_a_cli_run_reports_the_k_range(tmp_path, capsys):
    assert main(["lambdastar", "--agents", "random", "--episodes", "400", "--iterations", "100",
                 "--no-plots", "--json", "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr()
    k = json.loads(out.out)[0]["complexity"]
    assert min(k) >= 2 and max(k) <= 23 and max(k) >= 19
    assert f"K(μ) in [{min(k)}, {max(k)}]" in " ".join(out.err.split())
    assert main(["lambdastar", "--agents", "random", "--episodes", "100", "--iterations", "100",
                 "--no-plots", "--json", "--k-range", "2:40", "--out", str(tmp_path / "b")]) == 0
    assert max(json.loads(capsys.readouterr().out)[0]["complexity"]) > 23


@pytest.mark.parametrize("profile, sessions", [("paper", 1), ("original", 100)])
def test_learners_train_as_their_source_says_by_default(profile, sessions):
    """paper: "each test episode of ϑ iterations is equivalent to one training session"
    (Algorithm 1); the authors' code: 100 replays of the episode (trainingIterations)."""
    from wwm.lambdastar import vector
    from wwm.lambdastar.agents import make
    from wwm.lambdastar.harness import Setting, play

    episodes = build(BatterySpec(6, 12, 8, profile, seed=2))
    team = make("qlearning", 1, episodes.grid, episodes.profile, 12)
    assert team.replays == sessions
    for engine in (play, vector.play):
        default = engine(Setting("qlearning", 2), episodes).scores
        assert np.array_equal(default, engine(Setting("qlearning", 2, replays=sessions), episodes).scores)
        other = 100 if sessions == 1 else 1
        assert not np.array_equal(default, engine(Setting("qlearning", 2, replays=other), episodes).scores)


def test_the_cli_records_the_training_sessions_it_used(tmp_path, capsys):
    base = ["lambdastar", "--agents", "qlearning", "--episodes", "5", "--iterations", "10", "--grid", "5",
            "--no-plots", "--json"]
    for profile, sessions in (("paper", 1), ("original", 100)):
        assert main([*base, "--profile", profile, "--out", str(tmp_path / profile)]) == 0
        assert json.loads(capsys.readouterr().out)[0]["job"]["replays"] == sessions
    assert main([*base, "--replays", "7", "--out", str(tmp_path / "7")]) == 0
    assert json.loads(capsys.readouterr().out)[0]["job"]["replays"] == 7
