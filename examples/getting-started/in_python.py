"""The same run from Python: TowardFood in the grid world, first as two objects
in this process, then as the two servers at the URLs given (the Mind's, then the
World's). The run loop cannot tell the difference.

    python examples/getting-started/in_python.py \
        http://127.0.0.1:8002/ http://127.0.0.1:8001/
"""

import asyncio
import sys

from toward_food import TowardFood  # the file beside this one

import wwm
from wwm.client.runner import RunSettings, run
from wwm.kit.grid import GridWorld


async def main(mind_url: str, world_url: str) -> None:
    settings = RunSettings(steps=100)
    here = await run(TowardFood(), GridWorld(), settings)
    print(f"objects in this process: {here.status}, score {here.total_score:g},"
          f" {here.seconds:.2f} s")
    async with (wwm.connect(mind_url, role="mind") as mind,
                wwm.connect(world_url, role="world") as world):
        there = await run(mind, world, settings)
    print(f"servers on the network:  {there.status}, score {there.total_score:g},"
          f" {there.seconds:.2f} s")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
