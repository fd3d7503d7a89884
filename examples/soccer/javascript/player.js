// A soccer player in JavaScript (node, no packages) speaking the soccer server's text
// protocol over UDP: (init TEAM (version 15)) -> (init SIDE UNUM PLAYMODE), then a command
// after every (sense_body ...), decided from the last (see ...): where am I (from the flags),
// where is the ball, run at it and kick it at the other goal; a goalie stays on its line.
//
//   node player.js HOST PORT TEAM [chaser|goalie]
//
// Prints "over SIDE UNUM SCORE_L SCORE_R cycles=N" when the referee says time_over.
"use strict";
const dgram = require("dgram");

const [host, port, team, role = "chaser"] = process.argv.slice(2);
if (!host || !port || !team) {
  console.error("usage: node player.js HOST PORT TEAM [chaser|goalie]");
  process.exit(2);
}

// The landmarks, by their soccer-server names (metres, x to the right goal, y down).
const FLAGS = { "g l": [-52.5, 0], "g r": [52.5, 0], "f c": [0, 0], "f c t": [0, -34], "f c b": [0, 34],
  "f l t": [-52.5, -34], "f l b": [-52.5, 34], "f r t": [52.5, -34], "f r b": [52.5, 34] };
for (const [s, k] of [["l", -1], ["r", 1]]) {
  const px = k * (52.5 - 16.5);
  FLAGS[`f p ${s} t`] = [px, -20.16]; FLAGS[`f p ${s} c`] = [px, 0]; FLAGS[`f p ${s} b`] = [px, 20.16];
  FLAGS[`f g ${s} t`] = [k * 52.5, -7.01]; FLAGS[`f g ${s} b`] = [k * 52.5, 7.01];
}
for (const [e, y] of [["t", -39], ["b", 39]]) {
  FLAGS[`f ${e} 0`] = [0, y];
  for (const d of [10, 20, 30, 40, 50]) { FLAGS[`f ${e} l ${d}`] = [-d, y]; FLAGS[`f ${e} r ${d}`] = [d, y]; }
}
for (const [e, x] of [["l", -57.5], ["r", 57.5]]) {
  FLAGS[`f ${e} 0`] = [x, 0];
  for (const d of [10, 20, 30]) { FLAGS[`f ${e} t ${d}`] = [x, -d]; FLAGS[`f ${e} b ${d}`] = [x, d]; }
}

const RAD = Math.PI / 180;
const wrap = a => ((a + 180) % 360 + 360) % 360 - 180;

// "(see 12 ((f c) 10.5 -3) ((b) 4.1 20) ((p \"x\" 2) 7 1))" -> [{name, dist, dir}]
function parseSee(text) {
  const out = [];
  const re = /\(\(([^()]*)\)\s+([-\d.e]+)\s+([-\d.e]+)[^()]*\)/g;
  let m;
  while ((m = re.exec(text)) !== null) out.push({ name: m[1], dist: Number(m[2]), dir: Number(m[3]) });
  return out;
}

// Place and facing from the nearest flags seen (each pair gives the facing, each flag the place).
function localise(objects) {
  const flags = objects.filter(o => o.name in FLAGS).sort((a, b) => a.dist - b.dist).slice(0, 4);
  if (flags.length < 2) return null;
  const seen = flags.map(o => [o.dist * Math.cos(o.dir * RAD), o.dist * Math.sin(o.dir * RAD)]);
  const where = flags.map(o => FLAGS[o.name]);
  let sx = 0, sy = 0;
  for (let a = 0; a < flags.length; a++) for (let b = a + 1; b < flags.length; b++) {
    const dx = where[b][0] - where[a][0], dy = where[b][1] - where[a][1];
    const ex = seen[b][0] - seen[a][0], ey = seen[b][1] - seen[a][1];
    if (Math.hypot(dx, dy) < 1 || Math.hypot(ex, ey) < 1) continue;
    const t = Math.atan2(dy, dx) - Math.atan2(ey, ex);
    sx += Math.cos(t); sy += Math.sin(t);
  }
  if (sx === 0 && sy === 0) return null;
  const body = Math.atan2(sy, sx), c = Math.cos(body), s = Math.sin(body);
  let x = 0, y = 0;
  where.forEach((w, i) => { x += w[0] - (c * seen[i][0] - s * seen[i][1]); y += w[1] - (s * seen[i][0] + c * seen[i][1]); });
  return { x: x / flags.length, y: y / flags.length, body: body / RAD };
}

const sock = dgram.createSocket("udp4");
let side = null, unum = 0, mode = "before_kick_off", see = [], seeFresh = false, speed = 0, narrow = false;
let cycles = 0, score = [0, 0], lastTime = -1, stamina = 8000;

function send(text) { sock.send(Buffer.from(text + "\0"), Number(port), host); }
const turn = (dir) => `(turn ${Math.round(Math.max(-180, Math.min(180, dir * (1 + 5 * speed))))})`;
// a tired player (under a quarter of its stamina) runs no harder than its stamina recovers
const go = (dir, power) => (Math.abs(dir) > 12 ? turn(dir) : `(dash ${stamina < 2000 ? Math.min(power, 40) : power})`);

function decide() {
  if (!narrow) { narrow = true; return "(change_view narrow)"; }
  if (["before_kick_off", "half_time", "time_over"].includes(mode) || mode.startsWith("goal_l") || mode.startsWith("goal_r")) return "(done)";
  const ball = see.find(o => o.name === "b");
  const pose = localise(see);
  const theirs = side === "l" ? 52.5 : -52.5;
  const oursToKick = mode === "play_on" || mode.endsWith("_" + side);
  if (ball && ball.dist <= 1.03 && oursToKick) {
    if (pose) return `(kick 100 ${Math.round(wrap(Math.atan2(-pose.y, theirs - pose.x) / RAD - pose.body))})`;
    const goal = see.find(o => o.name === (side === "l" ? "g r" : "g l"));
    return `(kick 100 ${goal ? goal.dir : 0})`;
  }
  if (!seeFresh) return "(done)";
  seeFresh = false;
  if (role === "goalie" && pose) {
    const homeX = side === "l" ? -50.5 : 50.5;
    if (ball && ball.dist < 12) return go(ball.dir, 100);
    const d = Math.hypot(homeX - pose.x, -pose.y);
    if (d > 1.5) return go(wrap(Math.atan2(-pose.y, homeX - pose.x) / RAD - pose.body), 60);
    return ball ? (Math.abs(ball.dir) > 30 ? turn(ball.dir) : "(done)") : turn(40);
  }
  if (!ball) return turn(40);
  return go(ball.dir, ball.dist > 3 ? 100 : 60);
}

sock.on("message", (data) => {
  for (const text of data.toString().split("\0").filter(t => t.trim())) {
    if (text.startsWith("(init ")) {
      [, side, unum, mode] = text.replace(/[()]/g, "").split(/\s+/);
      console.log(`joined ${side} ${unum} ${mode}`);
    } else if (text.startsWith("(error")) {
      console.error(text); process.exit(1);
    } else if (text.startsWith("(hear ")) {
      const said = text.replace(/[()]/g, "").split(/\s+/)[3];
      const goal = /^goal_([lr])_(\d+)$/.exec(said);
      if (goal) score[goal[1] === "l" ? 0 : 1] = Number(goal[2]);
      mode = goal ? `goal_${goal[1]}` : said;
      if (mode === "time_over") {
        console.log(`over ${side} ${unum} ${score[0]} ${score[1]} cycles=${cycles}`);
        send("(bye)"); sock.close(); return;
      }
    } else if (text.startsWith("(see ")) {
      see = parseSee(text); seeFresh = true;
    } else if (text.startsWith("(sense_body ")) {
      const m = /\(speed ([-\d.e]+)/.exec(text); speed = m ? Number(m[1]) : 0;
      const st = /\(stamina ([-\d.e]+)/.exec(text); stamina = st ? Number(st[1]) : stamina;
      const t = Number(text.split(/\s+/)[1]);
      if (t !== lastTime || mode === "before_kick_off") cycles++;
      lastTime = t;
      send(decide());
    }
  }
});
sock.on("error", (err) => { console.error(String(err)); process.exit(1); });
send(`(init ${team} (version 15)${role === "goalie" ? " (goalie)" : ""})`);
setTimeout(() => { console.error("no time_over within 600 s"); process.exit(1); }, 600000).unref();
