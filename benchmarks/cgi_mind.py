"""Steps per second of a run whose Mind is a CGI script under lighttpd (examples/cgi/mind.cgi,
Perl, one process per query, section 11.1), beside the same kind of mind served by wwm
(wwm.kit.grid_minds:FoodSeeker, measured in the same run as the baseline), both in the grid
world run in process, so the figures are the mind's round trips.

    .venv/bin/python benchmarks/cgi_mind.py [--steps 300]

The CGI mind pays for a process start (Perl) per query and reads XML only; what it shows is
that a mind on a stock web server is a usable member, at a price a slow world can afford.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import tempfile
from pathlib import Path

from wwm.client.remote import RemoteMind, connect_mind
from wwm.client.runner import RunSettings, run
from wwm.kit.grid import GridWorld
from wwm.server.process import ServerProcess

CGI = Path(__file__).resolve().parents[1] / "examples" / "cgi"


def load_lighttpd():  # noqa: ANN201 - the example's module, loaded by path
    spec = importlib.util.spec_from_file_location("cgi_lighttpd", CGI / "lighttpd.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.lighttpd


async def steps_per_second(mind: RemoteMind, steps: int) -> tuple[float, str]:
    result = await run(mind, GridWorld(size=8, seed=3), RunSettings(steps=steps, timeout=10))
    encoding = mind.encoding
    await mind.aclose()
    if result.status != "completed":
        sys.exit(f"the run ended early: {result.status}")
    return len(result.steps) / result.seconds, encoding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    lighttpd = load_lighttpd()
    with tempfile.TemporaryDirectory() as work, lighttpd(CGI, Path(work)) as base, \
            ServerProcess("wwm.kit.grid_minds:FoodSeeker") as served:
        cgi_rate, cgi_encoding = asyncio.run(steps_per_second(connect_mind(f"{base}/mind.cgi"), args.steps))
        wwm_rate, wwm_encoding = asyncio.run(steps_per_second(connect_mind(served.url), args.steps))
    print(f"{'mind':<44} {'encoding':>8} {'steps/s':>9}")
    print(f"{'wwm serve FoodSeeker (baseline)':<44} {wwm_encoding:>8} {wwm_rate:>9.0f}")
    print(f"{'CGI mind.cgi under lighttpd (Perl per query)':<44} {cgi_encoding:>8} {cgi_rate:>9.0f}")
    print(f"ratio CGI / wwm serve: {cgi_rate / wwm_rate:.3f}")


if __name__ == "__main__":
    main()
