// A Λ* local-search mind in plain JavaScript (Node 20, no packages): a World-Wide-Mind Mind
// server speaking the JSON encoding over HTTP, so `wwm lambdastar --mind URL` can test it.
//
//   node local_search_mind.js --port 8123
//
// It answers "New run" with a run ID, "Get action" with the observed cell of highest reward
// (ties broken at random; with observation range 1 the cells come in action order, so the
// cell's position is the action), and confirms every other query. GET / describes it.
"use strict";
const http = require("http");
const crypto = require("crypto");

const port = Number(process.argv[process.argv.indexOf("--port") + 1] || 8123);
const runs = new Map();

function reply(res, status, doc) {
  const body = JSON.stringify(doc);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function refuse(res, name, code, text, status = 400) {
  reply(res, status, { wwm: "1.0", response: name, refusal: { code, text } });
}

function chooseAction(state) {
  const rewards = state.rewards;
  const best = Math.max(...rewards);
  const ties = [];
  rewards.forEach((r, i) => { if (r === best) ties.push(i); });
  return ties[Math.floor(Math.random() * ties.length)] + 1;
}

function answer(query, res) {
  const name = query.query;
  const data = query.data || {};
  if (name === "New run") {
    const id = crypto.randomBytes(12).toString("hex");
    runs.set(id, { steps: 0 });
    return reply(res, 200, { wwm: "1.0", response: name, data: { "mind run ID": id } });
  }
  const run = runs.get(String(data["mind run ID"] || "").trim());
  if (!run) return refuse(res, name, "unknown-run", "no run with this run ID is in progress", 404);
  if (name === "Get action") {
    let state;
    try { state = JSON.parse(data.state); } catch (e) {
      return refuse(res, name, "bad-parameters", "the state is not JSON; is this a Lambda* world?");
    }
    if (state.finished) return reply(res, 200, { wwm: "1.0", response: name, data: { "cannot suggest action": "the test is over" } });
    if (!Array.isArray(state.rewards) || state.rewards.length !== 9) {
      return refuse(res, name, "bad-parameters", "this mind needs observation range 1 (nine rewards)");
    }
    run.steps += 1;
    return reply(res, 200, { wwm: "1.0", response: name, data: { action: String(chooseAction(state)) } });
  }
  if (name === "End run") runs.delete(String(data["mind run ID"]).trim());
  return reply(res, 200, { wwm: "1.0", response: name, data: {} });
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    return reply(res, 200, { role: "mind", name: "Lambda* local search (JavaScript)", "query sets": ["Mind"],
      "state format": "the Lambda* JSON state", "action format": "1..9" });
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let query;
    try { query = JSON.parse(Buffer.concat(chunks).toString()); } catch (e) {
      return refuse(res, "?", "malformed-message", "not valid JSON");
    }
    if (!query || typeof query.query !== "string") return refuse(res, "?", "malformed-message", "not a query");
    answer(query, res);
  });
});
server.listen(port, "127.0.0.1");
