"""Open-ended items by their wire names: a method (or constructor) with a ``wire_items``
parameter receives the items its query's row does not name in one dict, names exactly as
sent; a method with ``**kwargs`` still receives them snake-cased. In process through the
dispatcher, and end to end over a real ``wwm serve`` process in both encodings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from wwm import Mind, Refusal, Suggestion
from wwm.client import RemoteMind
from wwm.protocol.messages import Query
from wwm.server.dispatch import Dispatcher
from wwm.server.process import ServerProcess

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
ODD = {"X-CamelCase": "Kept", "Q-temperature": "0.5", "odd name!": "1"}


class Both(Mind):
    """A ``wire_items`` parameter beside ``**kwargs``: the open items go to ``wire_items`` only."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    async def get_action(self, state: str, wire_items: dict[str, Any] | None = None, **kwargs: Any) -> Suggestion:
        self.seen = {"wire_items": wire_items, "kwargs": kwargs}
        return Suggestion("a")


async def _ask(dispatcher: Dispatcher, name: str, **data: Any) -> dict[str, Any]:
    response = await dispatcher.answer(Query(name, data))
    if response.refusal is not None:
        raise Refusal(response.refusal.code, response.refusal.text)
    return dict(response.data)


async def test_wire_items_beside_kwargs_in_process() -> None:
    d = Dispatcher(Both, url="http://127.0.0.1:1/")
    run_id = (await _ask(d, "New run"))["mind run ID"]
    await _ask(d, "Get action", **{"mind run ID": run_id, "state": "s", "client URL": "urn:c", **ODD})
    assert d.runs.get(run_id).obj.seen == {"wire_items": ODD, "kwargs": {}}
    await _ask(d, "Get action", **{"mind run ID": run_id, "state": "s"})
    assert d.runs.get(run_id).obj.seen == {"wire_items": {}, "kwargs": {}}  # a dict, even empty
    with pytest.raises(Refusal) as refused:  # a row without open items still refuses them
        await _ask(d, "Inform it about state", **{"mind run ID": run_id, "state": "s", "X-CamelCase": "v"})
    assert refused.value.code == "bad-parameters" and "X-CamelCase" in refused.value.text


class Made(Mind):
    """A ``wire_items`` constructor: what a New run brought, by wire name."""

    def __init__(self, wire_items: dict[str, Any]) -> None:
        self.made_with = wire_items


async def test_a_new_run_with_no_items_on_a_server_with_no_defaults_gives_an_empty_dict() -> None:
    """It used to fail with KeyError: 'wire_items' (the empty defaults were never validated):
    a member called with a bare URL sends exactly such a New run."""
    d = Dispatcher(Made, url="http://127.0.0.1:1/")
    run_id = (await _ask(d, "New run"))["mind run ID"]
    assert d.runs.get(run_id).obj.made_with == {}
    run_id = (await _ask(d, "New run", **{"X-Strength": "strong"}))["mind run ID"]
    assert d.runs.get(run_id).obj.made_with == {"X-Strength": "strong"}


@pytest.fixture(scope="module")
def wire_mind():
    with ServerProcess("wire_probes:WireItemsMind", args={"X-Default": "from --arg"}, env=ENV) as server:
        yield server


def _decode(suggestion: Suggestion) -> dict[str, Any]:
    assert suggestion.action is not None
    return json.loads(suggestion.action)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_open_items_keep_their_wire_names_over_a_server(wire_mind, encoding: str) -> None:
    async with RemoteMind(wire_mind.url, encoding=encoding, label="L", **{"X-Run-Mode": "Fast"}) as mind:
        await mind.new_run()
        got = _decode(await mind.query("get_action", state="x", **ODD))
        # wire names exactly: case, hyphens, a space and a "!" survive
        assert got["wire_items"] == ODD
        # the client takes them the same way a served method receives them
        assert _decode(await mind.query("get_action", state="x", wire_items=ODD))["wire_items"] == ODD
        # the constructor: `label` by its name, the rest by wire name, the server's --arg too
        assert got["label"] == "L"
        assert got["made_with"] == {"X-Default": "from --arg", "X-Run-Mode": "Fast"}
        assert _decode(await mind.query("get_action", state="x"))["wire_items"] == {}
        # a method with **step keeps today's behaviour: snake-cased keywords
        old = _decode(await mind.query("get_suggestion", state="x", **ODD))
        assert old["step"] == {"x_camelcase": "Kept", "q_temperature": "0.5", "odd_name": "1"}
        await mind.end_run()
