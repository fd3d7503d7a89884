"""What a server shows at its URL: the JSON card for programs, the HTML page for people
(what it is, its query sets, the formats of state and action, its arguments, its credit
trail), and the live display page of a run (with a table of whatever the run's object adds
by an optional ``display_details()``, e.g. an AS server's minds and their last answers, and
a picture of the grid it offers by an optional ``display_grid()``: see :mod:`.drawing`).
"""

from __future__ import annotations

import html
import inspect
import json
import time
import urllib.parse
from typing import TYPE_CHECKING, Any

from ..protocol import queries as Q
from .drawing import grid_figure

if TYPE_CHECKING:
    from .dispatch import Dispatcher
    from .runs import Run


def card(d: Dispatcher) -> dict[str, Any]:
    cls = d.cls
    doc = inspect.getdoc(cls) or ""
    base = d.url.rstrip("/")
    websocket = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + "/ws"
    info: dict[str, Any] = {
        "wwm": Q.PROTOCOL_VERSION,
        "name": getattr(cls, "title", None) or cls.__name__,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "role": d.role,
        "summary": doc.split("\n\n", 1)[0].replace("\n", " "),
        "description": doc,
        "url": d.url,
        "websocket": websocket,
        "query_sets": sorted(d.query_sets),
        "queries": [s.name for s in Q.queries_of(d.role, d.query_sets)],
        "bindings": {"http": d.url, "websocket": websocket, **d.bindings},
        "encodings": ["application/xml", "application/json"],
        "state_format": getattr(cls, "state_format", "opaque text"),
        "action_format": getattr(cls, "action_format", "opaque text"),
        # one source for all three: the arguments in force, start-up defaults over the class's
        "arguments": d.arguments.schema(d.in_force),
        "arguments_in_force": d.in_force,
        "defaults": {k: v["value"] for k, v in d.in_force.items() if v["set"] == "start"},
        "display_url": f"{base}/display/{{token}}",
        "runs_in_progress": len(d.runs.runs),
        "runs_ended": d.runs.ended,
        "credit_trail": d.trail.as_dict(),
    }
    if d.role == "world":
        info["sharing"] = getattr(cls, "sharing", "own")
        info["clock"] = getattr(cls, "clock", "synchronous")
        if info["sharing"] == "exclusive":
            info["lease_seconds"] = cls.lease_seconds
            info["in_use"] = d.runs.holder is not None
        if info["clock"] == "asynchronous":
            info["tick_seconds"] = cls.tick_seconds
    return info


def run_view(d: Dispatcher, run: Run) -> dict[str, Any]:
    return {
        "server": d.url,
        "role": d.role,
        "name": getattr(d.cls, "title", None) or d.cls.__name__,
        "started": run.started,
        "seconds": round(time.time() - run.started, 1),
        "queries": run.queries,
        "state": run.last_state,
        "action": run.last_action,
        "score": run.score,
        "client_url": run.client_url,
        **({"details": details} if (details := _offered(run.obj, "display_details")) is not None else {}),
        **({"grid": grid} if (grid := _offered(run.obj, "display_grid")) is not None else {}),
    }


def _offered(obj: Any, hook_name: str) -> Any:
    """What a run's object offers its display page besides state, action and score: the
    JSON-able value of its optional ``display_details()`` or ``display_grid()`` (None when
    it has none)."""
    hook = getattr(obj, hook_name, None)
    if not callable(hook):
        return None
    try:
        return json.loads(json.dumps(hook(), default=str))
    except Exception as exc:  # the page still shows the run
        return {"error": f"{hook_name}() failed: {type(exc).__name__}: {exc}"}


_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem} .role{color:#666;font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0} td,th{border:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f4f4f4} code,pre{background:#f6f6f6;padding:.1rem .3rem} pre{padding:.6rem;white-space:pre-wrap}
.yes{color:#070;font-weight:bold}
.tag{display:inline-block;background:#eef;border-radius:.3rem;padding:.1rem .4rem;margin:.1rem}
figure{margin:.8rem 0} figure svg{max-width:100%;height:auto} figcaption{color:#555;margin-top:.3rem} .key{margin-right:.8rem}
"""


# The server's icon: in every page's head as a data: URL, so a browser asks for none, and
# served at /favicon.ico for what is no page of ours (the JSON card opened in a browser)
ICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
        '<rect width="32" height="32" rx="6" fill="#1d4ed8"/>'
        '<path d="M5 9l5 14 6-11 6 11 5-14" fill="none" stroke="#fff" stroke-width="3" '
        'stroke-linecap="round" stroke-linejoin="round"/></svg>')


def _e(value: Any) -> str:
    return html.escape(str(value))


def _head(title: str) -> str:
    """A page's start, up to its body: title, icon and style."""
    icon = "data:image/svg+xml," + urllib.parse.quote(ICON)
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<link rel="icon" href="{icon}">\n<style>{_STYLE}</style></head><body>')


def _links(links: list[dict]) -> str:
    if not links:
        return "<p><em>none yet</em></p>"
    rows = "".join(
        f'<tr><td><a href="{_e(l["url"])}">{_e(l["url"])}</a></td><td>{l["queries"]}</td>'
        f'<td>{time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(l["last_seen"]))}</td></tr>'
        for l in links)
    return f"<table><tr><th>URL</th><th>queries</th><th>last seen</th></tr>{rows}</table>"


def _arguments(c: dict[str, Any]) -> str:
    """The table of the arguments in force: each one's value and where it was set."""
    props = c["arguments"].get("properties", {})

    def row(name: str, setting: dict[str, Any]) -> str:
        p = props.get(name, {})
        kind = p.get("type", p.get("anyOf", ""))
        value = f"<code>{_e(json.dumps(setting['value']))}</code>" if "value" in setting else ""
        if setting["set"] == "start":
            where = "at start (<code>--arg</code>)"
            if "class_default" in setting:
                where += f"; the class's own default is <code>{_e(json.dumps(setting['class_default']))}</code>"
        elif setting["set"] == "class":
            where = "the class's default"
        else:
            where = "required: each New run gives it"
        return (f'<tr data-argument="{_e(name)}" data-set="{_e(setting["set"])}"><td><code>{_e(name)}</code></td>'
                f"<td>{_e(kind)}</td><td>{value}</td><td>{where}</td></tr>")

    rows = "".join(row(name, setting) for name, setting in c["arguments_in_force"].items())
    return ("<table><tr><th>name</th><th>type</th><th>in force</th><th>set</th></tr>"
            f"{rows or '<tr><td colspan=4><em>none</em></td></tr>'}</table>")


def description_page(c: dict[str, Any]) -> str:
    kind = ""
    if c["role"] == "world":
        kind = f"<p>Kind: <b>{_e(c['sharing'])}</b> world, <b>{_e(c['clock'])}</b>.</p>"
    trail = c["credit_trail"]
    return f"""{_head(c['name'])}
<h1>{_e(c['name'])}</h1><div class="role">a World-Wide-Mind {_e(c['role'])} server · protocol {_e(c['wwm'])}</div>
<p>{_e(c['summary'])}</p>{kind}
<h2>Query sets</h2><p>{''.join(f'<span class="tag">{_e(s)}</span>' for s in c['query_sets'])}</p>
<details><summary>{len(c['queries'])} queries</summary><ul>{''.join(f'<li>{_e(q)}</li>' for q in c['queries'])}</ul></details>
<h2>State and action</h2><table><tr><th>state x</th><td><pre>{_e(c['state_format'])}</pre></td></tr>
<tr><th>action a</th><td><pre>{_e(c['action_format'])}</pre></td></tr></table>
<h2>Arguments for New run</h2><p>The values a run gets unless its New run gives its own.</p>{_arguments(c)}
<h2>Use it</h2><p>POST a query in XML or JSON to <code>{_e(c['url'])}</code>; a persistent
binding is at <code>{_e(c['websocket'])}</code>. This page as JSON: <a href="?format=json">?format=json</a>.
Runs in progress: {c['runs_in_progress']}.</p>
<h2>Credit trail</h2><h3>Servers it calls</h3>{_links(trail['calls'])}
<h3>Servers and clients that called it</h3>{_links(trail['called_by'])}
<details><summary>About</summary><pre>{_e(c['description'])}</pre></details>
</body></html>"""


def _cell(value: Any) -> str:
    """One value of the details, as HTML."""
    if value is True:
        return '<span class="yes">✓</span>'
    if value is None or value is False:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, dict)):
        return _render(value)
    return _e(value)


def _render(value: Any) -> str:
    """Details as HTML, whatever their shape: a list of records is a table with a column per
    key, a mapping a table of name and value, anything else its text (true shown as ✓)."""
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        cols = list(dict.fromkeys(k for r in value for k in r))
        head = "".join(f"<th>{_e(c)}</th>" for c in cols)
        rows = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in cols) + "</tr>" for r in value)
        return f"<table><tr>{head}</tr>{rows}</table>"
    if isinstance(value, dict):
        rows = "".join(f"<tr><th>{_e(k)}</th><td>{_cell(v)}</td></tr>" for k, v in value.items())
        return f"<table>{rows}</table>"
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return _cell(value)


def _picture(grid: Any) -> str:
    """The run's picture, when its object offers one (or why it could not be drawn)."""
    if grid is None:
        return ""
    try:
        return grid_figure(grid)
    except Exception as exc:
        reason = grid.get("error") if isinstance(grid, dict) and "error" in grid else f"{type(exc).__name__}: {exc}"
        return f"<p><em>No picture: {_e(reason)}</em></p>"


def _details_html(details: Any) -> str:
    if isinstance(details, dict):
        return "".join(f"<h2>{_e(k)}</h2>{_render(v)}" for k, v in details.items())
    return "" if details is None else _render(details)


def _script_json(value: Any) -> str:
    """JSON to write inside a <script>: no '<' in it, so no '</script>' either."""
    return json.dumps(value).replace("<", "\\u003c")


def display_page(view: dict[str, Any]) -> str:
    return f"""{_head(view['name'] + ': run')}
<h1>{_e(view['name'])}</h1><div class="role">a run in progress on <a href="{_e(view['server'])}">{_e(view['server'])}</a></div>
<table><tr><th>queries</th><td id="queries">{view['queries']}</td></tr>
<tr><th>score</th><td id="score">{_e(view['score'])}</td></tr>
<tr><th>last action</th><td><pre id="action">{_e(view['action'] or '')}</pre></td></tr>
<tr><th>state</th><td><pre id="state">{_e(view['state'] or '')}</pre></td></tr></table>
<div id="picture">{_picture(view.get('grid'))}</div>
<div id="details">{_details_html(view.get('details'))}</div>
<script>
const drawn = v => JSON.stringify([v.details ?? null, v.grid ?? null]);
let shown = drawn({_script_json({k: view.get(k) for k in ('details', 'grid')})});
setInterval(async () => {{
  const r = await fetch(location.pathname + '.json'); if (!r.ok) {{ document.body.insertAdjacentHTML('beforeend','<p><b>The run has ended.</b></p>'); return; }}
  const v = await r.json();
  for (const k of ['queries','score','action','state']) document.getElementById(k).textContent = v[k] ?? '';
  if (drawn(v) !== shown) {{  // re-rendered by the server, not here
    shown = drawn(v);
    const page = new DOMParser().parseFromString(await (await fetch(location.pathname)).text(), 'text/html');
    for (const id of ['picture', 'details']) document.getElementById(id).replaceWith(page.getElementById(id));
  }}
}}, 500);
</script></body></html>"""


def gone_page() -> str:
    return f"{_head('Run ended')}<h1>No run here</h1><p>This run has ended, or never was.</p></body></html>"
