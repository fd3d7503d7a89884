"""What a server shows at its URL: the JSON card for programs, the HTML page for people
(what it is, its query sets, the formats of state and action, its arguments, its credit
trail), and the live display page of a run.
"""

from __future__ import annotations

import html
import inspect
import time
from typing import TYPE_CHECKING, Any

from ..protocol import queries as Q

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
        "arguments": d.arguments.schema(),
        "defaults": {k: _plain(v) for k, v in d.defaults.items()},
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


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None), list, dict)) else repr(value)


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
    }


_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem} .role{color:#666;font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0} td,th{border:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f4f4f4} code,pre{background:#f6f6f6;padding:.1rem .3rem} pre{padding:.6rem;white-space:pre-wrap}
.tag{display:inline-block;background:#eef;border-radius:.3rem;padding:.1rem .4rem;margin:.1rem}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _links(links: list[dict]) -> str:
    if not links:
        return "<p><em>none yet</em></p>"
    rows = "".join(
        f'<tr><td><a href="{_e(l["url"])}">{_e(l["url"])}</a></td><td>{l["queries"]}</td>'
        f'<td>{time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(l["last_seen"]))}</td></tr>'
        for l in links)
    return f"<table><tr><th>URL</th><th>queries</th><th>last seen</th></tr>{rows}</table>"


def description_page(c: dict[str, Any]) -> str:
    props = c["arguments"].get("properties", {})
    required = set(c["arguments"].get("required", []))
    args = "".join(
        f"<tr><td><code>{_e(name)}</code></td><td>{_e(p.get('type', p.get('anyOf', '')))}</td>"
        f"<td>{'required' if name in required else _e(p.get('default', ''))}</td></tr>"
        for name, p in props.items()) or "<tr><td colspan=3><em>none</em></td></tr>"
    kind = ""
    if c["role"] == "world":
        kind = f"<p>Kind: <b>{_e(c['sharing'])}</b> world, <b>{_e(c['clock'])}</b>.</p>"
    trail = c["credit_trail"]
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{_e(c['name'])}</title>
<style>{_STYLE}</style></head><body>
<h1>{_e(c['name'])}</h1><div class="role">a World-Wide-Mind {_e(c['role'])} server · protocol {_e(c['wwm'])}</div>
<p>{_e(c['summary'])}</p>{kind}
<h2>Query sets</h2><p>{''.join(f'<span class="tag">{_e(s)}</span>' for s in c['query_sets'])}</p>
<details><summary>{len(c['queries'])} queries</summary><ul>{''.join(f'<li>{_e(q)}</li>' for q in c['queries'])}</ul></details>
<h2>State and action</h2><table><tr><th>state x</th><td><pre>{_e(c['state_format'])}</pre></td></tr>
<tr><th>action a</th><td><pre>{_e(c['action_format'])}</pre></td></tr></table>
<h2>Arguments for New run</h2><table><tr><th>name</th><th>type</th><th>default</th></tr>{args}</table>
<h2>Use it</h2><p>POST a query in XML or JSON to <code>{_e(c['url'])}</code>; a persistent
binding is at <code>{_e(c['websocket'])}</code>. This page as JSON: <a href="?format=json">?format=json</a>.
Runs in progress: {c['runs_in_progress']}.</p>
<h2>Credit trail</h2><h3>Servers it calls</h3>{_links(trail['calls'])}
<h3>Servers and clients that called it</h3>{_links(trail['called_by'])}
<details><summary>About</summary><pre>{_e(c['description'])}</pre></details>
</body></html>"""


def display_page(view: dict[str, Any]) -> str:
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{_e(view['name'])}: run</title>
<style>{_STYLE}</style></head><body>
<h1>{_e(view['name'])}</h1><div class="role">a run in progress on <a href="{_e(view['server'])}">{_e(view['server'])}</a></div>
<table><tr><th>queries</th><td id="queries">{view['queries']}</td></tr>
<tr><th>score</th><td id="score">{_e(view['score'])}</td></tr>
<tr><th>last action</th><td><pre id="action">{_e(view['action'] or '')}</pre></td></tr>
<tr><th>state</th><td><pre id="state">{_e(view['state'] or '')}</pre></td></tr></table>
<script>
setInterval(async () => {{
  const r = await fetch(location.pathname + '.json'); if (!r.ok) {{ document.body.insertAdjacentHTML('beforeend','<p><b>The run has ended.</b></p>'); return; }}
  const v = await r.json();
  for (const k of ['queries','score','action','state']) document.getElementById(k).textContent = v[k] ?? '';
}}, 500);
</script></body></html>"""


def gone_page() -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Run ended</title><style>{_STYLE}</style>"
            "</head><body><h1>No run here</h1><p>This run has ended, or never was.</p></body></html>")
