"""Pluralistic ignorance (section 6.3): when members see the others' actions and not their
attitudes, a group where most privately reject a norm often settles on it; the same members
sharing their attitudes never do, and the effect fades as rejection becomes overwhelming."""

import json

import pytest

from wwm.cli.main import main
from wwm.lambdastar.pluralistic import play


def test_seeing_actions_makes_groups_settle_on_the_norm_most_reject():
    public = {p: play("public", p, agents=21, rounds=3, episodes=300, seed=1) for p in (0.6, 0.85)}
    shared = {p: play("shared", p, agents=21, rounds=3, episodes=300, seed=1) for p in (0.6, 0.85)}
    for p in public:  # the same groups (attitudes drawn from the same stream) in both conditions
        assert public[p].rejected == shared[p].rejected > 100
    # the phenomenon: more than three standard errors above zero...
    assert public[0.6].frequency > 3 * public[0.6].stderr and public[0.6].frequency > 0.15
    # ...removed by sharing the private information
    assert shared[0.6].settled == 0 and shared[0.85].settled == 0
    assert public[0.6].complying > shared[0.6].complying + 0.15
    # and weaker when nearly everybody rejects the norm
    assert public[0.85].frequency < public[0.6].frequency / 2


def test_pluralistic_command_table_files_and_plot(tmp_path, capsys):
    out = tmp_path / "p"
    assert main(["lambdastar", "pluralistic", "--reject", "0.6,0.8", "--agents", "15", "--episodes", "60",
                 "--out", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["reject"], r["condition"]) for r in rows] == [
        (0.6, "public"), (0.6, "shared"), (0.8, "public"), (0.8, "shared")]
    assert rows[0]["frequency"] > rows[1]["frequency"] == 0
    assert (out / "pluralistic.png").stat().st_size > 10000


@pytest.mark.parametrize("argv, message", [
    (["--reject", "1.5"], "--reject shares are between 0 and 1"),
    (["--reject", "half"], "expected comma-separated numbers"),
    (["--agents", "1"], "--agents must be at least 2"),
    (["--rounds", "0"], "--rounds must be at least 1"),
])
def test_bad_pluralistic_input_is_named(argv, message, tmp_path, capsys):
    code = None
    try:
        code = main(["lambdastar", "pluralistic", *argv, "--episodes", "2", "--out", str(tmp_path)])
    except SystemExit as exit:  # argparse refuses a malformed number itself
        code = exit.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_on_the_torus_members_see_only_their_range():
    """On a 5×5 torus range 2 reaches every cell, so it is the all-see-all group exactly;
    range 1 (eight neighbours) changes the outcome, and seeing actions still misleads more."""
    everyone = play("public", 0.65, agents=25, episodes=200, seed=4)
    whole = play("public", 0.65, agents=25, episodes=200, seed=4, observation_range=2).as_dict()
    assert {**whole, "observation_range": None} == everyone.as_dict()
    local = {c: play(c, 0.65, agents=25, episodes=200, seed=4, observation_range=1) for c in ("public", "shared")}
    assert local["public"].settled != everyone.settled
    assert local["public"].frequency > local["shared"].frequency + 3 * local["public"].stderr


def test_shares_at_the_ends_give_empty_figures_not_errors(tmp_path, capsys):
    """Nobody rejecting: no group counts, so no frequency (null), and no rejecters to comply."""
    assert main(["lambdastar", "pluralistic", "--reject", "0,1", "--episodes", "10", "--no-plots",
                 "--out", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["rejected"] == 0 and rows[0]["frequency"] is None and rows[0]["rejecters_complying"] is None
    assert rows[2]["rejected"] == 10 and rows[2]["frequency"] == 0.0 and rows[2]["norm_share"] == 0.0
