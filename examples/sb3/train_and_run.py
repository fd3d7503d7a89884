"""Train a small policy with Stable-Baselines3 on a WWM World, serve it as a Mind, and run it
in an Action Selection society beside hand-written minds and the random mind.

    python examples/sb3/train_and_run.py [--steps 5000] [--episodes 5] [--plot sb3.png]

1. serves CartPole as a World in another process (``wwm serve gym:CartPole-v1``);
2. trains PPO on it through the Gymnasium bridge (``wwm.gym.WorldEnv`` over HTTP) and saves
   the model;
3. serves that model as a Mind (``wwm serve sb3:ppo model.zip``), beside the hand-written
   minds of ``cartpole_minds.py``, the random mind and a Mind_AS (``wwm serve action-selection``);
4. runs seeded episodes of the Mind_AS over each mind alone and over the whole society
   (most popular action), and prints each one's mean episode length (the score: CartPole
   gives 1 a step while the pole stands, at most 500).

Needs ``pip install 'world-wide-mind[sb3]'`` (PyTorch's CPU build is enough).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from wwm.client.remote import connect_mind, connect_world
from wwm.client.runner import RunSettings, run
from wwm.server.process import ServerProcess

HERE = Path(__file__).resolve().parent
MINDS = HERE / "cartpole_minds.py"


def train(world_url: str, path: Path, steps: int = 5000, seed: int = 0, progress: bool = False) -> Path:
    """PPO trained for ``steps`` steps on the World at ``world_url`` (through WorldEnv),
    saved at ``path``."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    from wwm.gym import WorldEnv

    class Bar(BaseCallback):
        def __init__(self, bar: Progress | None) -> None:
            super().__init__()
            self.bar = bar
            self.task = bar.add_task("training PPO through the network", total=steps) if bar else None

        def _on_step(self) -> bool:
            if self.bar is not None and self.task is not None:
                self.bar.update(self.task, completed=self.num_timesteps)
            return True

    # one thread: a tiny network gains nothing from more, and on a busy machine they contend
    # (profiled: 2048 steps took 33 s with torch's 2 threads beside other work, 6 s with one)
    torch.set_num_threads(1)
    env = WorldEnv(world_url)
    try:
        # small rollouts and a high learning rate: CartPole is learnt in a few thousand steps
        model = PPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=4, learning_rate=3e-3,
                    seed=seed, device="cpu")
        with Progress(disable=not progress) as bar:
            model.learn(steps, callback=Bar(bar if progress else None))
        model.save(path)
    finally:
        env.close()
    return path


async def episodes(as_url: str, world_url: str, minds: Sequence[Any], seeds: Sequence[int],
                   method: str = "most-popular") -> list[float]:
    """The score of one episode of the Mind_AS at ``as_url`` over ``minds``, per seed of the
    World (CartPole: the episode's length)."""
    scores = []
    for seed in seeds:
        mind = connect_mind(as_url, minds=list(minds), method=method, timeout=5)
        world = connect_world(world_url, seed=seed)
        try:
            result = await run(mind, world, RunSettings(steps=None, timeout=10))
        finally:
            await mind.aclose()
            await world.aclose()
        if result.status not in ("completed", "ended by world"):
            last = result.events[-1] if result.events else None
            raise RuntimeError(f"the run over {minds} ended as {result.status!r}: {last}")
        scores.append(result.total_score)
    return scores


def policy_server(model: Path, algo: str = "ppo") -> ServerProcess:
    """``wwm serve sb3:ppo MODEL`` (the model file right after the target: argparse reads
    an optional positional only there)."""
    return ServerProcess(f"sb3:{algo}", port=0, command=[sys.executable, "-m", "wwm.cli.main", "serve",
                                                          f"sb3:{algo}", str(model), "--port", "0"])


@contextlib.contextmanager
def servers(model: Path) -> Iterator[dict[str, ServerProcess]]:
    """The minds of the society and a Mind_AS, each a ``wwm serve`` process (started at once)."""
    found = {"sb3": policy_server(model),
             "lean": ServerProcess(f"{MINDS}:LeanMind"),
             "chase": ServerProcess(f"{MINDS}:ChaseCartMind"),
             "random": ServerProcess("random", {"actions": "0,1", "seed": 1}),
             "as": ServerProcess("action-selection")}
    with contextlib.ExitStack() as stack:
        with ThreadPoolExecutor(len(found)) as pool:
            list(pool.map(lambda s: stack.enter_context(s), found.values()))
        yield found


def societies(found: dict[str, ServerProcess]) -> dict[str, list[str]]:
    """The collections compared: each mind alone under the Mind_AS, then all of them."""
    urls = {name: server.url for name, server in found.items() if name != "as"}
    return {**{name: [url] for name, url in urls.items()},
            "sb3 + lean + chase + random": list(urls.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=5000, help="PPO's training steps (default 5000)")
    parser.add_argument("--episodes", type=int, default=5, help="seeded episodes per society (default 5)")
    parser.add_argument("--model", type=Path, help="where to save the model (default: a temporary file)")
    parser.add_argument("--plot", type=Path, help="also draw the mean episode lengths to this PNG")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.episodes < 1:
        parser.error("--steps and --episodes must be 1 or more")
    console = Console()
    with tempfile.TemporaryDirectory(prefix="wwm-sb3-") as work, ServerProcess("gym:CartPole-v1") as cartpole:
        started = time.perf_counter()
        model = train(cartpole.url, args.model or Path(work) / "ppo_cartpole.zip", args.steps, progress=True)
        console.print(f"saved {model} (trained in {time.perf_counter() - started:.1f} s)")
        with servers(model) as found:
            table = Table(title=f"CartPole through a Mind_AS, {args.episodes} seeded episodes each")
            table.add_column("minds of the AS")
            table.add_column("mean episode length", justify="right")
            table.add_column("episodes", justify="right")
            means = {}
            for name, minds in societies(found).items():
                scores = asyncio.run(episodes(found["as"].url, cartpole.url, minds, range(args.episodes)))
                means[name] = statistics.mean(scores)
                table.add_row(name, f"{means[name]:.1f}", " ".join(f"{s:g}" for s in scores))
            console.print(table)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.5))
        ax.barh(list(means), list(means.values()), color="tab:blue")
        ax.set_xlabel("mean episode length (CartPole-v1, max 500)")
        ax.invert_yaxis()  # in the table's order
        ax.set_title("PPO trained through the network, served as a Mind")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        console.print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
