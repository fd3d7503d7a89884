"""A first Mind for the grid world (wwm.worlds.grid:GridWorld): walk to the nearest food,
keeping out of reach of the hazards.

The grid world's state is one line of key=value items, for example

    size=8 step=3 x=2 y=5 fd=3 hd=4 food=1,2;6,6;4,0 hazard=2,1;7,7

(x, y: the body; food, hazard: cells "x,y" joined by ";"; east is +x, north is +y), and its
actions are north, south, east, west and stay. Eating a food scores +1; a hazard reaching
the body scores -3. Serve this mind with

    wwm serve examples/getting-started/toward_food.py:TowardFood --port 8002
"""

from wwm import Mind, Suggestion

MOVES = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0), "stay": (0, 0)}


def cells(text: str) -> list[tuple[int, int]]:
    """'1,2;6,6' -> [(1, 2), (6, 6)]"""
    return [(int(x), int(y)) for x, y in (cell.split(",") for cell in text.split(";") if cell)]


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class TowardFood(Mind):
    """Of the five moves, the one that keeps two cells away from every hazard and brings the
    body nearest to the nearest food."""

    state_format = "the grid world's: size=N step=K x=X y=Y fd=D hd=D food=x,y;... hazard=x,y;..."
    action_format = "north | south | east | west | stay"

    async def get_action(self, state: str) -> Suggestion:
        items = dict(item.split("=", 1) for item in state.split())
        size, body = int(items["size"]), (int(items["x"]), int(items["y"]))
        food, hazards = cells(items.get("food", "")), cells(items.get("hazard", ""))
        goal = min(food, key=lambda f: distance(body, f), default=body)

        def value(move: str) -> tuple[int, int]:
            dx, dy = MOVES[move]
            cell = (min(max(body[0] + dx, 0), size - 1), min(max(body[1] + dy, 0), size - 1))
            safety = min((distance(cell, h) for h in hazards), default=size)
            return min(safety, 2), -distance(cell, goal)

        return Suggestion(max(MOVES, key=value))
