"""A T-World agent in plain Python: the seed's seven-step loop over a TCP socket to the proxy.

usage: python agent.py [host] [port] [magic]     (defaults 127.0.0.1 3313 python-agent)
It pushes the nearest tile toward the nearest hole (restoring an empty battery); with
teammates it announces its target hole with team_message and leaves the holes its teammates
announced alone. A magic string ending in ":xml" asks the proxy for XML percepts, read with
Python's own XML parser (xml.etree) into the same data as the JSON ones.
"""

import json
import socket
import sys
from collections import deque
from xml.etree import ElementTree

# the XML form (tw_msg.xsd): these lists are wrapped in an element of their name, these are
# repeated in place; scalars are attributes in a list's items and in agent/location elements,
# else <name value="v"/> children
WRAPPED = {"grid", "holes", "tiles", "obstacles", "agents", "battery_chargers", "teams", "agents_location",
           "messages", "row"}
IN_PLACE = {"cell": "cells", "member": "members", "range": "range", "prob": "prob"}

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


def scalar(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def xml_value(element):
    """An element of the XML form as JSON-like data."""
    if element.tag in WRAPPED:
        return [xml_value(item) for item in element]
    if len(element) == 0 and list(element.attrib) == ["value"]:
        return scalar(element.attrib["value"])
    value = {k: scalar(v) for k, v in element.attrib.items()}
    for child in element:
        if child.tag in IN_PLACE:
            value.setdefault(IN_PLACE[child.tag], []).append(xml_value(child))
        else:
            value[child.tag] = xml_value(child)
    return value


def read_message(line):
    """A percept line in JSON or XML (told by its first character) as (form, header, data)."""
    if not line.startswith("<"):
        percept = json.loads(line)
        return "json", percept["header"], percept["data"]
    root = ElementTree.fromstring(line.encode("utf-8"))
    header = root.find("header").text
    data = root.find("data")
    return "xml", header, xml_value(data) if data is not None else root.find("desc").text


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
    taken, target, heard, form = set(), None, 0, "json"
    while True:
        line = stream.readline()                                        # 3) receive a percept
        if not line:
            print("proxy closed the connection", file=sys.stderr)
            return 1
        try:
            form, header, data = read_message(line)
        except (ValueError, KeyError, AttributeError, ElementTree.ParseError) as exc:
            print(f"not a percept ({exc}): {line[:60]!r}", file=sys.stderr)
            continue
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
            print(f"END score={data['agent']['score']} heard={heard} form={form}", flush=True)
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
