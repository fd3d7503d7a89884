"""``wwm tyrrell compare``: each method's fitness and lifespan as mean ± sd over seeds, in a
table, a plot and JSON; the same seeds give the same lives; bad input named."""

from __future__ import annotations

import json
import statistics

from wwm.cli.main import main
from wwm.tyrrell.compare import run_compare


def test_compare_prints_the_table_saves_a_plot_and_the_lives(tmp_path, capsys):
    plot, scores = tmp_path / "methods.png", tmp_path / "lives.json"
    code = main(["tyrrell", "compare", "--methods", "w=q,mwu,mch", "--seeds", "2", "--lifetime", "100",
                 "--plot", str(plot), "--scores", str(scores)])
    out = capsys.readouterr().out
    assert code == 0 and "fitness (matings)" in out and "lifespan (steps)" in out
    assert plot.read_bytes()[:4] == b"\x89PNG" and plot.stat().st_size > 5000
    doc = json.loads(scores.read_text())
    assert set(doc["fitness"]) == {"w=q", "min-worst-unhappiness", "max-collective-happiness"}
    for method, values in doc["fitness"].items():
        assert len(values) == 2 and all(1 <= s <= 100 for s in doc["lifespan"][method])
        line = next(line for line in out.splitlines() if method[:15] in line)
        assert f"{statistics.fmean(values):.1f} ± {statistics.stdev(values):.1f}" in line
        spans = doc["lifespan"][method]
        assert f"{statistics.fmean(spans):.1f} ± {statistics.stdev(spans):.1f}" in line
    best = doc["summary"][0]
    assert best["fitness"] == max(statistics.fmean(v) for v in doc["fitness"].values())


def test_json_alone_on_stdout_and_the_same_seeds_give_the_same_lives(capsys):
    assert main(["tyrrell", "compare", "--methods", "negotiated-w", "--seeds", "1", "--lifetime", "60", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert "negotiated-w" in captured.err
    again = run_compare(["negotiated-w"], [0], 60)
    assert again.fitness == doc["fitness"] and again.lifespan == doc["lifespan"]


def test_bad_input_is_named(capsys):
    assert main(["tyrrell", "compare", "--methods", "w=q,loudest"]) == 2
    assert "unknown method 'loudest'" in capsys.readouterr().err
    assert main(["tyrrell", "compare", "--methods", "w-learning-subspaces", "--seeds", "1"]) == 2
    assert "use w-learning" in capsys.readouterr().err
    assert main(["tyrrell", "compare", "--plot", "/no/such/folder/p.png"]) == 2
    assert "does not exist" in capsys.readouterr().err
    for args in (["--seeds", "0"], ["--lifetime", "x"], ["--candidates", "all"]):
        try:
            code = main(["tyrrell", "compare", *args])
        except SystemExit as exc:
            code = exc.code
        assert code == 2
        assert args[0] in capsys.readouterr().err


def test_damn_weights_reach_the_votes_and_are_checked(capsys):
    """Equal votes let the many minds that want a move outvote the one that wants to court;
    a heavier vote for the mate mind (and the fleeing minds) makes DAMN mate."""
    equal = run_compare(["damn"], [0, 1], 250)
    assert main(["tyrrell", "compare", "--methods", "damn", "--seeds", "2", "--lifetime", "250",
                 "--weights", "mate=5,feline=3,hawk=3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["weights"]["mate"] == 5 and doc["weights"]["fat"] == 1
    assert sum(doc["fitness"]["damn"]) > sum(equal.fitness["damn"])
    assert main(["tyrrell", "compare", "--weights", "lust=3"]) == 2
    assert "'lust=3' is not goal=number" in capsys.readouterr().err
    assert main(["tyrrell", "compare", "--weights", "mate=-1"]) == 2
    assert "mate needs a positive number" in capsys.readouterr().err
