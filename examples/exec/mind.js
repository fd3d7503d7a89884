#!/usr/bin/env node
// A grid-world mind in JavaScript (Node), one process per run (section 11.4.2, "persistent
// CGI"): it reads query after query on stdin, each ending with the line </xml>, and writes
// one response per query on stdout, keeping its state in memory until End run.
//
//   wwm serve-exec --mode persistent --port 8102 -- node examples/exec/mind.js
//
// It goes for the nearest food but will not step next to a hazard if it can help it (see
// src/wwm/kit/grid.py for the state and action formats).
"use strict";
const crypto = require("crypto");
const readline = require("readline");

const MOVES = { north: [0, 1], south: [0, -1], east: [1, 0], west: [-1, 0], stay: [0, 0] };
const runs = new Map(); // run ID -> { steps, points }

const decode = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
  .replace(/&apos;/g, "'").replace(/&amp;/g, "&").trim();
const escape = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function parse(xml) {
  const name = (xml.match(/<query name="([^"]*)"/) || [])[1] || "";
  const data = {};
  for (const m of xml.matchAll(/<data name="([^"]*)">([\s\S]*?)<\/data>/g)) data[m[1]] = decode(m[2]);
  return { name, data };
}

function respond(name, items = {}, refusal = null) {
  const lines = ["<xml>", `<response name="${escape(name)}">`];
  for (const [key, value] of Object.entries(items)) lines.push(`<data name="${key}">${escape(value)}</data>`);
  if (refusal) lines.push(`<refusal code="${refusal[0]}">${escape(refusal[1])}</refusal>`);
  lines.push("</response>", "</xml>", "");
  process.stdout.write(lines.join("\n"));
}

function cells(text) {
  return (text || "").split(";").filter(Boolean).map((p) => p.split(",").map(Number));
}

function chooseAction(state) {
  const items = Object.fromEntries(state.split(/\s+/).map((kv) => kv.split("=")));
  const size = Number(items.size), x = Number(items.x), y = Number(items.y);
  const food = cells(items.food), hazards = cells(items.hazard);
  const dist = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]);
  let best = "stay", bestCost = Infinity;
  for (const [action, [dx, dy]] of Object.entries(MOVES)) {
    const cell = [Math.min(Math.max(x + dx, 0), size - 1), Math.min(Math.max(y + dy, 0), size - 1)];
    const toFood = food.length ? Math.min(...food.map((f) => dist(cell, f))) : 0;
    const danger = hazards.some((h) => dist(cell, h) <= 1) ? 100 : 0;
    const cost = toFood + danger;
    if (cost < bestCost) { best = action; bestCost = cost; }
  }
  return best;
}

function answer({ name, data }) {
  if (name === "New run") {
    const id = crypto.randomBytes(8).toString("hex");
    runs.set(id, { steps: 0, points: 0 });
    return respond(name, { "mind run ID": id });
  }
  const run = runs.get(data["mind run ID"]);
  if (!run) return respond(name, {}, ["unknown-run", `no run with ID '${data["mind run ID"] || ""}' here`]);
  switch (name) {
    case "Get action":
      run.steps += 1;
      return respond(name, { action: chooseAction(data.state || "") });
    case "Inform it about state":
      run.points += Number(data.score || 0);
      return respond(name);
    case "Ready to suggest action?":
      return respond(name, { ready: "true" });
    case "Get current score":
      return respond(name, { score: run.points });
    case "Reset score":
      run.points = 0;
      return respond(name);
    case "End run":
      runs.delete(data["mind run ID"]);
      return respond(name, { score: run.points });
    case "No operation":
    case "Get display URL":
      return respond(name);
    default:
      return respond(name, {}, ["unknown-query", `this JavaScript mind does not answer '${name}'`]);
  }
}

let buffer = [];
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  buffer.push(line);
  if (line.trim() === "</xml>") {
    answer(parse(buffer.join("\n")));
    buffer = [];
  }
});
