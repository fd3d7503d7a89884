"""The tragedy of the commons (section 6.3) in the Λ* world: a greedy harvester out-earns a
restrained one beside it, yet a crowd of greedy harvesters depletes the shared stock and
earns less in total than a restrained crowd, which keeps it; alone, greed costs nothing."""

import json

import pytest

from wwm.cli.main import main
from wwm.lambdastar.commons import Rules, play

RULES = Rules(grid=8, iterations=120)


def test_greed_pays_the_one_and_ruins_the_many():
    few, many = 2, 40
    # few agents: no scarcity, the greedy earn more than the restrained (greed is no vice here)
    assert play("greedy", few, RULES, 8).total.mean() > 1.5 * play("restrained", few, RULES, 8).total.mean()
    # many agents: each greedy one maximises its own harvest...
    mixed = play("one-greedy", many, RULES, 8)
    assert mixed.greedy.mean() > 3 * mixed.restrained.mean()
    # ...and when all are greedy the stock collapses and the group earns less than restrained agents
    greedy, restrained = play("greedy", many, RULES, 8), play("restrained", many, RULES, 8)
    assert greedy.final.mean() < 0.5 * restrained.final.mean()
    assert greedy.total.mean() < 0.85 * restrained.total.mean()
    assert (greedy.total < restrained.total).all()  # in every episode, not only on average
    # the restrained never take the stock below half a cell's capacity
    assert restrained.stock.min() >= 0.5


def test_commons_command_table_files_and_plot(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["lambdastar", "commons", "--agents", "1,24", "--episodes", "4", "--iterations", "60",
                 "--grid", "6", "--seed", "2", "--out", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["policy"], r["agents"]) for r in rows] == [
        ("greedy", 1), ("greedy", 24), ("restrained", 1), ("restrained", 24), ("one-greedy", 1), ("one-greedy", 24)]
    assert rows[2]["greedy_agent"] is None and rows[0]["restrained_agent"] is None
    assert (out / "commons.png").stat().st_size > 10000
    assert (out / "results.csv").read_text().count("\n") == 7


@pytest.mark.parametrize("argv, message", [
    (["--policies", "selfish"], "unknown policy selfish"),
    (["--greed", "1.5"], "--greed must be in (0, 1]"),
    (["--agents", "200", "--grid", "10"], "200 agents do not fit"),
    (["--agents", "0"], "--agents must be at least 1"),
])
def test_bad_commons_input_is_named(argv, message, tmp_path, capsys):
    assert main(["lambdastar", "commons", *argv, "--episodes", "2", "--iterations", "5",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("wwm lambdastar commons: ")
