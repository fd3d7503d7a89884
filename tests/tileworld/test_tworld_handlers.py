"""The Tileworld page's handler class, called in this process through its ASGI app (no socket):
the answers the browser and served-process tests do not reach — the first frame of a config,
pause without a game, the recordings folder listed and its bad entries refused — and that
create_app serves exactly the routes Handlers.routes() names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute, Route, WebSocketRoute

from wwm.tileworld.app import Handlers, Hub, create_app


async def call(app: Any, method: str, path: str, body: object = None) -> tuple[int, Any]:
    """``method path`` with ``body`` as JSON (bytes as they are); the status and the answer
    (JSON read, else text)."""
    data = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    path, _, query = path.partition("?")
    await app({"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
               "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
               "headers": [(b"host", b"tworld.test"), (b"content-type", b"application/json")],
               "server": ("tworld.test", 80), "client": ("127.0.0.1", 1), "root_path": ""}, receive, send)
    text = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body").decode()
    status = sent[0]["status"]
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def paths(routes: list[BaseRoute]) -> list[str]:
    return [r.path if isinstance(r, (Route, WebSocketRoute)) else repr(r) for r in routes]


def test_create_app_serves_the_handler_class_routes(tmp_path: Path) -> None:
    app = create_app(recordings=tmp_path)
    handlers = Handlers(Hub(None, tmp_path))
    assert paths(app.routes) == paths(handlers.routes())
    assert {"/", "/editor", "/api/start", "/api/live", "/api/robot/{name}", "/api/recordings/{name}"} <= set(
        paths(app.routes))


async def test_pages_defaults_and_preview(tmp_path: Path) -> None:
    app = create_app(proxy_url="http://127.0.0.1:9/", recordings=tmp_path)
    for page in ("/", "/editor"):
        status, html = await call(app, "GET", page)
        assert status == 200 and html.lstrip().lower().startswith("<!doctype html")
    status, defaults = await call(app, "GET", "/api/defaults")
    assert status == 200 and defaults["proxy"] == "http://127.0.0.1:9/"
    assert {"reactive", "deliberative", "cautious"} <= set(defaults["agents"])
    status, frame = await call(app, "POST", "/api/preview", defaults["config"])
    assert status == 200 and frame["environment"]["time"] == 0
    status, error = await call(app, "POST", "/api/preview", {"no such setting": 1})
    assert status == 400 and "unknown setting 'no such setting'" in error["error"]


async def test_pause_and_view_refuse_bad_input_and_answer_without_a_game(tmp_path: Path) -> None:
    app = create_app(recordings=tmp_path)
    for body in (b"not json", {}, {"on": "yes"}):
        status, error = await call(app, "POST", "/api/pause", body)
        assert (status, error) == (400, {"error": 'send {"on": true} or {"on": false}'})
    status, snapshot = await call(app, "POST", "/api/pause", {"on": True})
    assert status == 200 and snapshot["status"] == "idle"
    status, error = await call(app, "GET", "/api/view?agent=x")
    assert status == 400 and "agent must be a robot id" in error["error"]
    status, error = await call(app, "POST", "/api/start", [1, 2])
    assert status == 400 and "JSON object" in error["error"]


async def test_recordings_are_listed_newest_first_and_bad_ones_refused(tmp_path: Path) -> None:
    app = create_app(recordings=tmp_path / "none yet")
    assert await call(app, "GET", "/api/recordings") == (200, {"recordings": []})
    for name in ("tworld-20260101-000000-seed1.json", "tworld-20260102-000000-seed1.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "notes.txt").write_text("not a recording")
    (tmp_path / "broken.json").write_text("{")
    app = create_app(recordings=tmp_path)
    status, listing = await call(app, "GET", "/api/recordings")
    assert status == 200 and listing["recordings"] == [
        "tworld-20260102-000000-seed1.json", "tworld-20260101-000000-seed1.json", "broken.json"]
    status, error = await call(app, "GET", "/api/recordings/notes.txt")
    assert (status, error) == (404, {"error": "no recording named 'notes.txt'"})
    status, error = await call(app, "GET", "/api/recordings/broken.json")
    assert status == 422 and "is not JSON" in error["error"]
