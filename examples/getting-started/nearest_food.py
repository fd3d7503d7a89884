from wwm import Mind, Suggestion


class NearestFood(Mind):
    """Steps toward the nearest food in the grid world (wwm.kit.grid)."""

    async def get_action(self, state: str) -> Suggestion:
        items = dict(item.split("=", 1) for item in state.split())  # size=8 x=2 y=5 food=1,2;6,6 ...
        x, y = int(items["x"]), int(items["y"])
        food = [tuple(map(int, cell.split(","))) for cell in items["food"].split(";")]
        fx, fy = min(food, key=lambda cell: abs(cell[0] - x) + abs(cell[1] - y))
        if fx != x:
            return Suggestion("east" if fx > x else "west")
        return Suggestion("north" if fy > y else "south" if fy < y else "stay")
