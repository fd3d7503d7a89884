// A run's page: follows the run's server-sent events (GET /run/<id>/live, see wwm.portal.live)
// and shows the status in plain words, the World's drawing (the SVG the portal made from the
// World's display_grid(), swapped in as each new one arrives), the live step, its state,
// action and score, the latest steps, the events, and the chart of the total score by step
// (drawn by the server at load, redrawn here). Text from servers is set as text, never as
// markup. Served from the package; the Content-Security-Policy allows no other script.
"use strict";
(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const W = 600, H = 200, PAD = 30, MAX_POINTS = 1500, RECENT = 20;
  const $ = (id) => document.getElementById(id);

  function text(id, value) {
    const el = $(id);
    if (el) el.textContent = value === null || value === undefined ? "" : String(value);
  }

  function number(x) {
    return typeof x === "number" && isFinite(x) ? String(Math.round(x * 1e6) / 1e6) : "";
  }

  class Chart {
    constructor(svg) {
      this.svg = svg;
      this.points = [];     // [step, total]
      this.pending = false;
    }
    reset(points) { this.points = points; this.draw(); }
    add(step, total) {
      this.points.push([step, total]);
      if (this.points.length > 2 * MAX_POINTS) {   // keep every other point: the shape stays
        this.points = this.points.filter((_, i) => i % 2 === 0 || i === this.points.length - 1);
      }
      this.draw();
    }
    draw() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.render(); });
    }
    render() {
      const svg = this.svg, pts = this.points;
      while (svg.lastChild && svg.lastChild.nodeName !== "title") svg.removeChild(svg.lastChild);
      const line = (x1, y1, x2, y2) => {
        const l = document.createElementNS(SVG, "line");
        l.setAttribute("class", "axis");
        for (const [k, v] of Object.entries({ x1, y1, x2, y2 })) l.setAttribute(k, v);
        svg.appendChild(l);
      };
      const label = (x, y, s, anchor) => {
        const t = document.createElementNS(SVG, "text");
        t.setAttribute("x", x); t.setAttribute("y", y);
        if (anchor) t.setAttribute("text-anchor", anchor);
        t.textContent = s;
        svg.appendChild(t);
      };
      line(PAD, H - PAD, W - 5, H - PAD);
      line(PAD, 5, PAD, H - PAD);
      if (!pts.length) { label(W / 2, H / 2, "no step yet", "middle"); return; }
      let lo = 0, hi = 0;
      for (const [, y] of pts) { if (y < lo) lo = y; if (y > hi) hi = y; }
      if (hi === lo) hi = lo + 1;
      const first = pts[0][0], last = Math.max(pts[pts.length - 1][0], first + 1);
      const sx = (x) => PAD + (x - first) / (last - first) * (W - PAD - 5);
      const sy = (y) => H - PAD - (y - lo) / (hi - lo) * (H - PAD - 5);
      const poly = document.createElementNS(SVG, "polyline");
      poly.setAttribute("class", "line");
      poly.setAttribute("points", pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" "));
      svg.appendChild(poly);
      label(PAD - 3, sy(hi) + 4, number(hi), "end");
      label(PAD - 3, sy(lo), number(lo), "end");
      label(PAD, H - PAD + 14, String(first));
      label(W - 5, H - PAD + 14, String(last), "end");
      text("chart-caption", `Total score by step: ${number(pts[pts.length - 1][1])} at step ${pts[pts.length - 1][0]}.`);
    }
  }

  function count(n) { return Number(n).toLocaleString("en"); }

  // The running status as the server says it (wwm.portal.watching.running_words).
  function runningWords(steps, asked) {
    if (!steps) return "Running — starting";
    return asked ? `Running — step ${count(steps)} of ${count(asked)}` : `Running — step ${count(steps)} (until ended)`;
  }

  // The World's latest drawing: the portal's SVG (made from escaped values by
  // wwm.server.drawing), parsed as SVG and put in place of the last one.
  function showPicture(p) {
    const holder = $("world-svg"), figure = $("world-picture");
    if (!holder || !figure || typeof p.svg !== "string") return;
    if (Number(figure.dataset.version || 0) >= p.version) return;
    const parsed = new DOMParser().parseFromString(p.svg, "image/svg+xml");
    const svg = parsed.documentElement;
    if (!svg || svg.nodeName !== "svg" || parsed.getElementsByTagName("parsererror").length) return;
    for (const bad of svg.querySelectorAll("script, foreignObject")) bad.remove();
    holder.replaceChildren(document.importNode(svg, true));
    figure.dataset.version = String(p.version);
    text("world-caption", p.caption);
    const legend = $("world-legend");
    if (legend) {
      legend.textContent = "";
      for (const key of p.legend || []) {
        const li = document.createElement("li");
        const swatch = document.createElementNS(SVG, "svg");
        swatch.setAttribute("class", "swatch"); swatch.setAttribute("viewBox", "0 0 10 10");
        swatch.setAttribute("width", "10"); swatch.setAttribute("height", "10");
        swatch.setAttribute("aria-hidden", "true");
        const rect = document.createElementNS(SVG, "rect");
        rect.setAttribute("width", "10"); rect.setAttribute("height", "10");
        if (/^#[0-9a-fA-F]{6}$/.test(key.colour)) rect.setAttribute("fill", key.colour);
        swatch.appendChild(rect);
        li.appendChild(swatch);
        li.appendChild(document.createTextNode(` ${key.kind}`));
        legend.appendChild(li);
      }
    }
  }

  function cell(row, value) {
    const td = document.createElement("td");
    td.textContent = value === null || value === undefined ? "" : String(value);
    row.appendChild(td);
  }

  function follow(section) {
    const chart = new Chart($("score-chart"));
    const recent = document.querySelector("#recent tbody");
    const events = $("events");
    const live = section.dataset;
    const asked = live.asked ? Number(live.asked) : null;

    function showStep(m) {
      text("live-step", m.step + 1);
      text("live-last", m.step);
      if (live.status === "running") text("run-says", runningWords(m.step + 1, asked));
      text("live-state", m.new_state);
      text("live-action", m.action === null ? "(no action)" : m.action);
      text("live-score", number(m.score));
      text("live-total", number(m.total));
      section.dataset.step = String(m.step);
      if (recent) {
        const row = document.createElement("tr");
        for (const v of [m.step, m.state, m.action === null ? "(no action)" : m.action, m.new_state, number(m.score)]) cell(row, v);
        recent.insertBefore(row, recent.firstChild);
        while (recent.rows.length > RECENT) recent.deleteRow(recent.rows.length - 1);
      }
    }

    function showDegraded(e) {   // a member lost for good: said beside the status, not only in the events
      const words = `degraded: ${String(e.text).split(" (")[0]}`;
      const line = $("run-degraded");
      if (!line || Array.from(line.children).some((b) => b.textContent === words)) return;
      const badge = document.createElement("span");
      badge.className = "badge degraded";
      badge.textContent = words;
      line.appendChild(document.createTextNode(" "));
      line.appendChild(badge);
      const status = $("status-degraded");
      if (status) status.textContent = ` (${Array.from(line.children).map((b) => b.textContent).join("; ")})`;
    }

    function showEvent(e) {
      if (e.kind === "degraded") showDegraded(e);
      if (e.kind === "world-display") {   // the World's page of this run: linked as soon as it is known
        const link = $("world-link");
        if (link && /^https?:\/\//.test(e.text)) { link.href = e.text; link.hidden = false; }
      }
      if (!events || e.kind === "world-display" || e.kind === "mind-display") return;
      const li = document.createElement("li");
      li.textContent = `step ${e.step}: ${e.kind}: ${e.text}`;
      events.appendChild(li);
    }

    const source = new EventSource(live.live);
    source.addEventListener("record", (ev) => {
      const r = JSON.parse(ev.data);
      const steps = r.steps || [];
      chart.reset(steps.map((s) => [s.step, s.total]));
      if (steps.length) showStep(steps[steps.length - 1]);
      for (const e of r.events || []) {
        if (e.kind === "world-display") showEvent(e);
        else if (e.kind === "degraded") showDegraded(e);
      }
      text("live-step", r.run.step_count);
      if (live.status === "running") text("run-says", runningWords(r.run.step_count, asked));
      if (recent) {   // the latest steps of the record, newest first
        recent.textContent = "";
        for (const s of steps.slice(-RECENT)) {
          const row = document.createElement("tr");
          for (const v of [s.step, s.state, s.action === null ? "(no action)" : s.action, s.new_state, number(s.score)]) cell(row, v);
          recent.insertBefore(row, recent.firstChild);
        }
      }
      section.dataset.connected = "yes";
    });
    source.addEventListener("step", (ev) => {
      const m = JSON.parse(ev.data);
      showStep(m);
      chart.add(m.step, m.total);
    });
    source.addEventListener("event", (ev) => showEvent(JSON.parse(ev.data)));
    source.addEventListener("picture", (ev) => showPicture(JSON.parse(ev.data)));
    source.addEventListener("gap", (ev) => {
      text("live-note", `${JSON.parse(ev.data).dropped} updates were skipped to keep up; the record has them all.`);
    });
    source.addEventListener("end", (ev) => {
      const e = JSON.parse(ev.data);
      source.close();
      // Whether the page was following a run in progress: read before the status changes
      // below (live is the section's own dataset, so it changes with it).
      const wasRunning = live.status === "running";
      text("run-status", e.status);
      const status = $("run-status");
      if (status) status.className = "status-over";
      text("live-step", e.steps);
      if (e.steps) text("live-last", e.steps - 1);
      text("live-total", number(e.total_score));
      if (e.says) text("run-says", e.says);
      const says = $("run-says");
      if (says) says.className = "says-over";
      section.dataset.status = e.status;
      for (const form of document.querySelectorAll("form.end-run")) form.remove();
      if (wasRunning) {
        const note = $("live-note");
        if (note) {
          note.textContent = `The run has ended (${e.status}). `;
          const a = document.createElement("a");
          a.href = window.location.pathname;
          a.textContent = "See its whole record";
          note.appendChild(a);
        }
      }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) text("live-note", "The live updates stopped; reload the page to follow the run again.");
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    const section = $("live");
    if (section && section.dataset.live && window.EventSource) follow(section);
  });
})();
