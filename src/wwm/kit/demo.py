"""The demo's servers and societies, shared by ``wwm demo`` and ``wwm portal --demo``: a grid
World, three Minds (a food seeker, a hazard avoider, a random mind) and a Mind_M wrapper ("if a
hazard is near (two cells) do what the avoider does, else what the seeker does", section 2.3)
that calls its minds over the network."""

from __future__ import annotations

from typing import Any

SERVERS = {
    "world": "wwm.kit.grid:GridWorld",
    "seeker": "wwm.kit.grid_minds:FoodSeeker",
    "avoider": "wwm.kit.grid_minds:HazardAvoider",
    "random": "wwm.kit.random_mind:RandomMind",
    "switch": "wwm.kit.region:RegionMind",
}


def world(urls: dict[str, str], *, seed: int, steps: int) -> dict[str, Any]:
    """The World of every demo society, at ``urls["world"]``."""
    return {"url": urls["world"], "args": {"seed": seed, "steps": steps}}


def societies(urls: dict[str, str], *, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(name, Mind) of the three demo societies, over the servers at ``urls`` (keys of SERVERS)."""
    return [
        ("a random mind", {"url": urls["random"], "args": {"seed": seed}}),
        ("a food seeker", {"url": urls["seeker"]}),
        ("Mind_M: avoid when a hazard is near, else seek", {
            "url": urls["switch"],
            "args": {"region": "hd<=2", "minds": [{"url": urls["avoider"]}, {"url": urls["seeker"]}]},
        }),
    ]
