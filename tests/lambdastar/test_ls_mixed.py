"""Heterogeneous collectives (section 5.2): a mix of agent types plays the episodes its pure
collectives play, member j as agent j, so its score is fixed by theirs; from Python and from
``wwm lambdastar --agents`` and ``wwm lambdastar mixed``."""

import json

import numpy as np
import pytest

from wwm.cli.main import main
from wwm.lambdastar.episodes import generate
from wwm.lambdastar.harness import Setting, play


@pytest.mark.parametrize("first, second", [("local", "random"), ("stigmergy", "qlearning")])
def test_a_mix_scores_what_its_members_score_in_their_pure_collectives(first, second):
    """Members of different types share only the environment: in a first:2+second:1 mix the
    two first-type agents play as in first×2 and agent 3 as agent 3 of second×3, so per
    episode R̄(mix) = (2·R̄(first×2) + 3·R̄(second×3) − 2·R̄(second×2)) / 3, exactly."""
    episodes = generate(7, 25, 40, "paper", seed=3)

    def scores(agent, n):
        return play(Setting(agent, n, replays=4), episodes).scores

    mix = scores(f"{first}:2+{second}:1", 3)
    expected = (2 * scores(first, 2) + 3 * scores(second, 3) - 2 * scores(second, 2)) / 3
    np.testing.assert_allclose(mix, expected, atol=1e-12)
    # and so the mix lies between its pure collectives of the same size
    low, high = sorted([scores(first, 3).mean(), scores(second, 3).mean()])
    assert low + 0.05 < mix.mean() < high - 0.05


def test_mixed_command_table_files_and_plot(tmp_path, capsys):
    out = tmp_path / "mixed"
    assert main(["lambdastar", "mixed", "local:2+random:1", "random:1+local:1+local:1", "--episodes", "30",
                 "--iterations", "20", "--grid", "7", "--out", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    got = {(r["job"]["agent"], r["job"]["size"]): r for r in rows}
    # the second mix is another order of the same members (random first: it is agent 1)
    assert set(got) == {("local:2+random:1", 3), ("random:1+local:2", 3), ("local", 3), ("random", 3)}
    mix = got["local:2+random:1", 3]["upsilon"]
    assert got["random", 3]["upsilon"] < mix < got["local", 3]["upsilon"]
    assert got["random:1+local:2", 3]["scores"] != got["local:2+random:1", 3]["scores"]
    assert (out / "mixed_vs_pure.png").stat().st_size > 10000
    # the test command takes a mix among its agent types, with the mix's own size
    assert main(["lambdastar", "--agents", "local:2+random:1,local", "--sizes", "3", "--episodes", "30",
                 "--iterations", "20", "--grid", "7", "--no-plots", "--out", str(tmp_path / "t"), "--json"]) == 0
    again = {r["job"]["agent"]: r for r in json.loads(capsys.readouterr().out)}
    assert again["local:2+random:1"]["scores"] == got["local:2+random:1", 3]["scores"]


@pytest.mark.parametrize("argv, message", [
    (["mixed", "local:x+random"], "'x' is not a whole number of local agents"),
    (["mixed", "local:2+genius"], "names an unknown agent type 'genius'"),
    (["mixed", "local:0+random"], "local needs at least one agent"),
    (["--agents", "local+", "--episodes", "2"], "has an empty part"),
    (["--episodes", "2", "mixed", "local:2"], "--episodes is an option of the Λ* test"),
])
def test_bad_mixes_are_named(argv, message, tmp_path, capsys):
    assert main(["lambdastar", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
