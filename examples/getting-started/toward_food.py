"""A first Mind, for the grid world (wwm.kit.grid:GridWorld): walk to the
nearest food, keeping out of reach of the hazards.

    wwm serve examples/getting-started/toward_food.py:TowardFood --port 8002
"""

from wwm import Mind, Suggestion

MOVES = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0),
         "stay": (0, 0)}


def cells(text: str) -> list[tuple[int, int]]:
    """'1,2;6,6' -> [(1, 2), (6, 6)]"""
    pairs = (cell.split(",") for cell in text.split(";") if cell)
    return [(int(x), int(y)) for x, y in pairs]


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class TowardFood(Mind):
    """Of the five moves, the one that stays two cells away from every hazard
    and brings the body nearest to the nearest food."""

    state_format = "the grid world's: size=N x=X y=Y food=x,y;... hazard=x,y;..."
    action_format = "north | south | east | west | stay"

    async def get_action(self, state: str) -> Suggestion:
        items = dict(item.split("=", 1) for item in state.split())
        size, body = int(items["size"]), (int(items["x"]), int(items["y"]))
        food, hazards = cells(items["food"]), cells(items["hazard"])
        goal = min(food, key=lambda f: distance(body, f), default=body)

        def value(move: str) -> tuple[int, int]:
            dx, dy = MOVES[move]
            cell = (min(max(body[0] + dx, 0), size - 1),
                    min(max(body[1] + dy, 0), size - 1))
            safety = min((distance(cell, h) for h in hazards), default=size)
            return min(safety, 2), -distance(cell, goal)

        return Suggestion(max(MOVES, key=value))
