// A T-World agent in Node.js: the seed's seven-step loop over a TCP socket to the proxy.
// usage: node agent.js [host] [port] [magic]      (defaults 127.0.0.1 3313 js-agent)
// It pushes the nearest tile toward the nearest hole; with teammates it announces its target
// hole with team_message and leaves the holes its teammates announced alone. A magic string
// ending in ":prolog" asks the proxy for Prolog percepts, tw_msg(header(H), data(...)).,
// read by readProlog below into the same data as the JSON ones.
"use strict";
const net = require("net");

const MOVES = { north: [-1, 0], south: [1, 0], east: [0, 1], west: [0, -1] };

function decide(data, taken) {
  // an empty battery stops every move; restoring costs half the score
  if (data.builtin_knowledge.costs.battery && data.agent.battery <= 0) return { move: "restore", hole: null };
  const grid = data.environment.grid;
  const me = [data.agent.location.row, data.agent.location.column];
  const rows = grid.length, cols = grid[0].length;
  const key = (r, c) => r * cols + c;
  const walkable = (r, c) => r >= 0 && r < rows && c >= 0 && c < cols && (grid[r][c] === " " || grid[r][c] === "C");
  const tiles = [], holes = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      if (grid[r][c] === "T") tiles.push([r, c]);
      else if (typeof grid[r][c] === "number" && !taken.has(key(r, c))) holes.push([r, c]);
    }
  // one breadth-first search from the robot: distance and first move to every cell
  const first = new Map([[key(me[0], me[1]), [0, null]]]);
  const queue = [me];
  while (queue.length) {
    const [r, c] = queue.shift();
    const [d, m] = first.get(key(r, c));
    for (const [name, [dr, dc]] of Object.entries(MOVES)) {
      const nr = r + dr, nc = c + dc;
      if (!first.has(key(nr, nc)) && walkable(nr, nc)) {
        first.set(key(nr, nc), [d + 1, m || name]);
        queue.push([nr, nc]);
      }
    }
  }
  let best = null;
  for (const t of tiles)
    for (const h of holes) {
      const gap = Math.abs(t[0] - h[0]) + Math.abs(t[1] - h[1]);
      for (const [name, [dr, dc]] of Object.entries(MOVES)) {
        const ar = t[0] + dr, ac = t[1] + dc, sr = t[0] - dr, sc = t[1] - dc;
        if (Math.abs(ar - h[0]) + Math.abs(ac - h[1]) >= gap) continue;
        if (!(ar === h[0] && ac === h[1]) && !walkable(ar, ac)) continue;
        if (sr < 0 || sc < 0 || sr >= rows || sc >= cols || !first.has(key(sr, sc))) continue;
        const [d, m] = first.get(key(sr, sc));
        if (best === null || d + gap < best.cost) best = { cost: d + gap, move: m || name, hole: h };
      }
    }
  if (best) return best;
  for (const [name, [dr, dc]] of Object.entries(MOVES))
    if (walkable(me[0] + dr, me[1] + dc)) return { move: name, hole: null };
  return { move: "none", hole: null };
}

// The Prolog form: key(V) is a member holding a scalar or a list, key(M1, M2, ...) a member
// holding an object; a list's items that are terms (hole(...)) are objects; 'text' is text,
// null/true/false are atoms. A small reader of that fixed form, not a Prolog parser.
function readProlog(text) {
  const token = /\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|'(?:[^'\\]|\\.)*'|[a-z][A-Za-z0-9_]*|[()[\],.])/y;
  const tokens = [];
  for (let m; token.lastIndex < text.length && (m = token.exec(text)); ) tokens.push(m[1]);
  let i = 0;
  const isTerm = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  function term() {
    const t = tokens[i++];
    if (t === "[") {
      const items = [];
      if (tokens[i] === "]") { i++; return items; }
      for (;;) { items.push(term()); if (tokens[i++] === "]") return items; }
    }
    if (t[0] === "'") return t.slice(1, -1).replace(/\\(.)/g, (_, c) => ({ n: "\n", r: "\r", t: "\t" })[c] || c);
    if (/^-?\d/.test(t)) return Number(t);
    if (tokens[i] !== "(") return { name: t, args: [] };
    i++;
    const args = [];
    for (;;) { args.push(term()); if (tokens[i++] === ")") return { name: t, args }; }
  }
  const atoms = { null: null, true: true, false: false };
  const plain = (v) => Array.isArray(v) ? v.map(plain) : !isTerm(v) ? v :
    v.args.length ? members(v) : (v.name in atoms ? atoms[v.name] : {});
  function members(t) {
    const out = {};
    for (const a of t.args) if (isTerm(a)) out[a.name] = memberValue(a);
    return out;
  }
  function memberValue(t) {
    if (t.args.length === 1 && !(isTerm(t.args[0]) && t.args[0].args.length)) return plain(t.args[0]);
    return members(t);
  }
  const fact = term();
  if (!isTerm(fact) || fact.name !== "tw_msg" || tokens[i] !== ".") throw new Error(`not a Prolog percept: ${text.slice(0, 40)}`);
  const [header, data] = fact.args;
  return { header: header.args[0].name, data: data.args.every(isTerm) ? members(data) : plain(data.args[0]) };
}

const [host = "127.0.0.1", port = "3313", magic = "js-agent"] = process.argv.slice(2);
const socket = new net.Socket();                               // 0) create socket
let buffer = "", taken = new Set(), target = null, heard = 0, over = false, form = "json";
socket.connect(Number(port), host, () => {                     // 1) connect to the proxy
  socket.write(`CONNECT:${magic}\n`);                          // 2) connection string
});
socket.on("data", (chunk) => {                                 // 3) receive percepts
  buffer += chunk.toString("utf8");
  let nl;
  while (!over && (nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    form = line.startsWith("tw_msg(") ? "prolog" : "json";
    let percept;
    try {
      percept = form === "prolog" ? readProlog(line) : JSON.parse(line);
    } catch (err) {
      console.error(`not a percept (${err.message}): ${line.slice(0, 60)}`);
      continue;
    }
    handle(percept);
  }
});
socket.on("close", () => { console.error("proxy closed the connection"); process.exit(1); });
socket.on("error", (err) => {
  console.error(`cannot reach the proxy at ${host}:${port}: ${err.message}`);
  process.exit(1);
});

function handle({ header, data }) {
  if (header === "message") {
    heard++;
    const words = data.split(" ");
    if (words.length === 3 && words[0] === "target") taken = new Set([Number(words[1]) * 1000 + Number(words[2])]);
    console.log(`heard: ${data}`);
    return;
  }
  if (header === "error") { console.error(`error from the world: ${data}`); return; }
  if (header === "end") {                                      // 6) until the header is "end"
    over = true;
    console.log(`END score=${data.agent.score} heard=${heard} form=${form}`);
    socket.removeAllListeners("close");
    socket.end(() => process.exit(0));
    return;
  }
  if (typeof data !== "object") return;
  const cols = data.environment.grid[0].length;
  const takenCells = new Set([...taken].map((k) => Math.floor(k / 1000) * cols + (k % 1000)));
  const { move, hole } = decide(data, takenCells);             // 4) decide
  const team = data.builtin_knowledge.teams[data.agent.team_id];
  if (hole && team.members.length > 1 && String(hole) !== String(target)) {
    target = hole;
    socket.write(`team_message:target ${hole[0]} ${hole[1]}\n`);
  }
  socket.write(move + "\n");                                   // 5) send the action
}
