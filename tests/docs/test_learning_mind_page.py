"""docs/howto/learning-mind.md, run as written (its ```sh block in one shell, ports made free):
the reader's own Q-learning mind, served, run for 30 episodes on three seeds beside the random
mind and the built-in learner in a served grid world; the learning curve it saves rises above
the random mind's (issue 28, item 3)."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_commands_as_written import sh_lines

from wwm.protocol.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "howto" / "learning-mind.md"

pytestmark = pytest.mark.slow


def scores(path: Path) -> dict[int, list[float]]:
    """Each seed's scores, episode by episode, from a saved CSV."""
    out: dict[int, list[float]] = {}
    with path.open() as rows:
        for row in csv.DictReader(rows):
            out.setdefault(int(row["seed"]), []).append(float(row["total_score"]))
    return out


def mean_of(per_seed: dict[int, list[float]], part: slice) -> float:
    values = [sum(row[part]) / len(row[part]) for row in per_seed.values()]
    return sum(values) / len(values)


def test_the_page_runs_as_written_and_the_readers_mind_learns(tmp_path):
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))          # the page's ". .venv/bin/activate"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    ports = {str(p): str(free_port()) for p in range(8001, 8005)}
    script = ["set -e", "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT"]
    for line in sh_lines(PAGE):
        script.append(re.sub(r"\b800[1-4]\b", lambda m: ports[m.group(0)], line))
    env = {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV",)}, "COLUMNS": "80",
           "XDG_DATA_HOME": str(tmp_path / "data")}
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.count("30 episodes × 3 seeds") == 3 and "saved: curves/my-learner.png" in done.stdout
    mine, random_mind = scores(tmp_path / "curves" / "my-learner.csv"), scores(tmp_path / "curves" / "random.csv")
    assert sorted(mine) == [1, 2, 3] and all(len(row) == 30 for row in mine.values())
    assert (tmp_path / "curves" / "built-in.png").stat().st_size > 10_000
    first, last = mean_of(mine, slice(0, 10)), mean_of(mine, slice(20, 30))
    everything_random = mean_of(random_mind, slice(0, 30))
    print(f"my learner: first ten {first:.1f}, last ten {last:.1f}; random {everything_random:.1f}")
    assert last > first + 5 and last > everything_random + 10  # it learns, and it ends above random
