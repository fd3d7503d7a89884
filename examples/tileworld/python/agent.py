"""A T-World agent in plain Python: the seed's seven-step loop over a TCP socket to the proxy.

usage: python agent.py [host] [port] [magic]     (defaults 127.0.0.1 3313 python-agent)
It pushes the nearest tile toward the nearest hole (restoring an empty battery); with
teammates it announces its target hole with team_message and leaves the holes its teammates
announced alone.
"""

import json
import socket
import sys
from collections import deque

MOVES = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


def decide(data, taken):
    if data["builtin_knowledge"]["costs"].get("battery") and data["agent"]["battery"] <= 0:
        return "restore", None  # an empty battery stops every move; restoring costs half the score
    grid = data["environment"]["grid"]
    me = (data["agent"]["location"]["row"], data["agent"]["location"]["column"])
    rows, cols = len(grid), len(grid[0])
    tiles = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "T"]
    holes = [(r, c) for r in range(rows) for c in range(cols)
             if isinstance(grid[r][c], int) and (r, c) not in taken]

    def walkable(cell):
        r, c = cell
        return 0 <= r < rows and 0 <= c < cols and grid[r][c] in (" ", "C")

    # one breadth-first search from the robot: distance and first move to every cell
    first = {me: (0, None)}
    queue = deque([me])
    while queue:
        here = queue.popleft()
        for name, (dr, dc) in MOVES.items():
            nxt = (here[0] + dr, here[1] + dc)
            if nxt not in first and walkable(nxt):
                first[nxt] = (first[here][0] + 1, first[here][1] or name)
                queue.append(nxt)

    best = None
    for t in tiles:
        for h in holes:
            gap = abs(t[0] - h[0]) + abs(t[1] - h[1])
            for name, (dr, dc) in MOVES.items():
                after, stand = (t[0] + dr, t[1] + dc), (t[0] - dr, t[1] - dc)
                if abs(after[0] - h[0]) + abs(after[1] - h[1]) >= gap:
                    continue
                if after != h and not walkable(after):
                    continue
                if stand not in first:
                    continue
                cost = first[stand][0] + gap
                if best is None or cost < best[0]:
                    best = (cost, first[stand][1] or name, h)
    if best is None:
        for name, (dr, dc) in MOVES.items():
            if walkable((me[0] + dr, me[1] + dc)):
                return name, None
        return "none", None
    return best[1], best[2]


def main():
    host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 3313
    magic = sys.argv[3] if len(sys.argv) > 3 else "python-agent"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)            # 0) create socket
    try:
        sock.connect((host, port))                                      # 1) connect to the proxy
    except OSError as exc:
        print(f"cannot reach the proxy at {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    sock.sendall(f"CONNECT:{magic}\n".encode())                         # 2) connection string
    stream = sock.makefile("r", encoding="utf-8")
    taken, target, heard = set(), None, 0
    while True:
        line = stream.readline()                                        # 3) receive a percept
        if not line:
            print("proxy closed the connection", file=sys.stderr)
            return 1
        percept = json.loads(line)
        header, data = percept["header"], percept["data"]
        if header == "message":
            heard += 1
            words = data.split()
            if len(words) == 3 and words[0] == "target":
                taken = {(int(words[1]), int(words[2]))}
            print(f"heard: {data}", flush=True)
            continue
        if header == "error":
            print(f"error from the world: {data}", file=sys.stderr)
            continue
        if header == "end":
            print(f"END score={data['agent']['score']} heard={heard}", flush=True)
            return 0
        if not isinstance(data, dict):
            continue
        action, hole = decide(data, taken)                              # 4) decide
        team = data["builtin_knowledge"]["teams"][data["agent"]["team_id"]]
        if hole is not None and hole != target and len(team["members"]) > 1:
            target = hole
            sock.sendall(f"team_message:target {hole[0]} {hole[1]}\n".encode())
        sock.sendall((action + "\n").encode())                          # 5) send the action
        # 6) repeat until the header is "end"


if __name__ == "__main__":
    sys.exit(main())
