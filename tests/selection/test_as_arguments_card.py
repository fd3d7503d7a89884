"""The Action Selection server's card publishes its arguments for a compose form (issue 26
item 2): a description for each, ranges, choices with a sentence each (every method in the
registry, a plugin's too), defaults, and which a newcomer may skip (``x-advanced``); and the
split of the class (issue 30 item 1) left the names, types and defaults it publishes as they
were (``as_card_before_split.json``, taken from the card before the split)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind
from wwm.selection import ActionSelectionMind
from wwm.selection.methods import METHODS, HighestW, method_sentence
from wwm.server.arguments import Arguments
from wwm.server.process import ServerProcess

BEFORE = json.loads((Path(__file__).parent / "as_card_before_split.json").read_text())
AS = "wwm.selection.mind_as:ActionSelectionMind"
NEW_KEYS = {"description", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum",
            "x-choices", "x-advanced"}
FOR_EVERYONE = {"minds", "method", "timeout", "candidates", "actions", "weights"}  # shown first on the form


def without_new_keys(schema: Any) -> Any:
    """The schema as the card published it before the metadata was added."""
    if isinstance(schema, dict):
        return {k: without_new_keys(v) for k, v in schema.items() if k not in NEW_KEYS}
    if isinstance(schema, list):
        return [without_new_keys(v) for v in schema]
    return schema


@pytest.fixture(scope="module")
def served() -> Any:
    with ServerProcess(AS) as server:
        yield server


def test_the_served_card_keeps_the_names_types_and_defaults_it_published_before_the_split(served) -> None:
    arguments = served.card()["arguments"]
    assert without_new_keys(arguments) == BEFORE["card_arguments"]
    signature = inspect.signature(ActionSelectionMind.__init__)
    assert {name: (None if p.default is p.empty else p.default)
            for name, p in list(signature.parameters.items())[1:]} == BEFORE["constructor_defaults"]


def test_every_argument_has_a_sentence_and_the_advanced_ones_are_marked(served) -> None:
    props = served.card()["arguments"]["properties"]
    for name, prop in props.items():
        assert prop["description"].endswith(".") and "\n" not in prop["description"], name
        assert "default" in prop, name
        assert prop.get("x-advanced", False) is (name not in FOR_EVERYONE), name
    assert props["timeout"]["exclusiveMinimum"] == 0 and props["timeout"]["default"] == 2.0
    assert props["gamma"]["minimum"] == 0 and props["gamma"]["exclusiveMaximum"] == 1
    assert props["period"]["minimum"] == 1 and props["min_members"]["minimum"] == 1
    assert props["timeout_share"]["exclusiveMinimum"] == 0 and props["timeout_share"]["exclusiveMaximum"] == 1
    assert props["candidates"]["enum"] == ["suggested", "shared"]
    assert set(props["candidates"]["x-choices"]) == {"suggested", "shared"}
    assert props["start"]["enum"] == ["random", "first"]


def test_method_lists_every_registered_method_with_one_sentence(served) -> None:
    method = served.card()["arguments"]["properties"]["method"]
    assert method["enum"] == list(METHODS) and set(method["x-choices"]) == set(METHODS)
    assert method["default"] == "w=q" and method["default"] in method["enum"]
    for name, sentence in method["x-choices"].items():
        assert sentence == method_sentence(METHODS[name])
        assert sentence.endswith(".") and sentence.count(". ") == 0 and len(sentence) < 240, name
    assert method["x-choices"]["random"] == "A random mind each step (3.3)."
    # the first sentence only: Economy's doc goes on about payments
    assert method["x-choices"]["economy"].endswith("the World's reward goes to the mind in control.")


def test_a_plugin_method_is_listed_with_its_docstring_s_first_sentence() -> None:
    class Loudest(HighestW):
        """The mind that shouts loudest wins. It is a test's method."""

        name = "loudest-test"

    METHODS.register(Loudest)
    try:
        method = Arguments(ActionSelectionMind).schema()["properties"]["method"]
        assert method["x-choices"]["loudest-test"] == "The mind that shouts loudest wins."
        assert "loudest-test" in method["enum"]
    finally:
        METHODS.unregister("loudest-test")
    assert "loudest-test" not in Arguments(ActionSelectionMind).schema()["properties"]["method"]["enum"]


@pytest.mark.parametrize(("items", "words"), [
    ({"timeout": "-1"}, "timeout must be positive, got -1"),
    ({"gamma": "1"}, "gamma must be in [0, 1), got 1"),
    ({"timeout_share": "1.5"}, "timeout_share must be between 0 and 1, got 1.5"),
    ({"period": "0"}, "period must be at least 1, got 0"),
    ({"retry": "0"}, "retry must be a positive number of seconds, got 0"),
    ({"method": "loudest"}, "unknown method 'loudest'"),
    ({"candidates": "all"}, "candidates must be one of 'suggested', 'shared', got 'all'"),
    ({"period": "often"}, "argument 'period'"),
])
async def test_a_bad_value_is_still_refused_naming_the_argument(served, items: dict[str, str], words: str) -> None:
    async with RemoteMind(served.url, run_args=items) as mind:
        with pytest.raises(Refusal) as refused:
            await mind.new_run()
    assert refused.value.code == "bad-parameters"
    assert words in refused.value.text and "\n" not in refused.value.text
