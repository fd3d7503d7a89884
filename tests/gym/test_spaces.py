"""The JSON form of Gymnasium spaces (wwm.gym.spaces): every documented type goes to JSON and
back to an equal space, and values of each go to text and back; bad forms and bad texts are
errors naming what was wrong."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from wwm.gym.spaces import SpaceError, decode_space, encode_space, from_text, to_text

SPACES = {
    "Discrete": gym.spaces.Discrete(5, start=-2),
    "Box": gym.spaces.Box(low=np.array([-1.0, -np.inf], dtype=np.float32),
                          high=np.array([2.0, np.inf], dtype=np.float32)),
    "Box of ints": gym.spaces.Box(low=0, high=255, shape=(2, 3), dtype=np.uint8),
    "MultiDiscrete": gym.spaces.MultiDiscrete([3, 4, 5]),
    "MultiBinary": gym.spaces.MultiBinary([2, 2]),
    "Dict": gym.spaces.Dict({"pos": gym.spaces.Box(-1, 1, (2,)), "mode": gym.spaces.Discrete(3)}),
    "Tuple": gym.spaces.Tuple([gym.spaces.Discrete(2), gym.spaces.Text(8, charset="abc")]),
    "Text": gym.spaces.Text(12, min_length=2),
}


@pytest.mark.parametrize("name", SPACES)
def test_each_space_round_trips_through_json_and_its_values_through_text(name):
    space = SPACES[name]
    form = json.loads(json.dumps(encode_space(space)))   # what a card carries
    again = decode_space(form)
    assert again == space
    space.seed(1)
    for _ in range(5):
        value = space.sample()
        text = to_text(form, again, value)
        assert data_equivalence(from_text(form, again, text), value)


def test_labels_and_pairs_forms():
    labels = {"type": "Discrete", "n": 3, "labels": ["north", "south", "stay"]}
    space = decode_space(labels)
    assert to_text(labels, space, 1) == "south" and from_text(labels, space, " stay\n") == 2
    pairs = {"type": "Dict", "form": "pairs", "spaces": {"x": {"type": "Discrete", "n": 9},
                                                        "d": {"type": "Discrete", "n": 10, "start": -1}}}
    space = decode_space(pairs)
    value = from_text(pairs, space, "size=9 x=4 d=-1 food=1,2;3,4")
    assert value == {"x": 4, "d": -1} and value in space


@pytest.mark.parametrize(("form", "message"), [
    ({"n": 3}, 'expected an object with a "type"'),
    ({"type": "Ring"}, "unknown space type 'Ring'"),
    ({"type": "Discrete"}, "not a Discrete space"),
    ({"type": "Box", "shape": [2], "low": "low", "high": 1}, "a bound must be a number"),
    ({"type": "Dict", "spaces": {"a": {"type": "Discrete", "n": "many"}}}, "space.a: not a Discrete space"),
])
def test_a_bad_form_is_an_error_naming_what_is_wrong(form, message):
    with pytest.raises(SpaceError, match=message):
        decode_space(form)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("Discrete", "7", "outside the space"),
    ("Discrete", "1.5", "expected an integer"),
    ("Box", "[0.5]", r"expected shape \(2,\)"),
    ("Box", "[0.5, ", "not JSON"),
    ("Dict", '{"pos": [0, 0]}', "expected an object with"),
    ("Tuple", '[1, "abd"]', "outside the space"),
])
def test_a_bad_value_text_is_an_error_naming_what_is_wrong(name, text, message):
    space = SPACES[name]
    with pytest.raises(SpaceError, match=message):
        from_text(encode_space(space), space, text)


def test_a_space_with_no_json_form_says_which():
    with pytest.raises(SpaceError, match="no JSON form for a Graph space"):
        encode_space(gym.spaces.Graph(gym.spaces.Discrete(2), None))


def test_the_key_value_semicolon_form_reads_tyrrells_state_and_writes_it_back():
    form = {"type": "Dict", "form": "key:value;", "spaces": {
        "step": {"type": "Box", "shape": [1], "low": 0, "high": 100},
        "alive": {"type": "Discrete", "n": 2},
        "fruit": {"type": "Box", "shape": [3], "low": 0, "high": 1}}}
    space = decode_space(form)
    value = from_text(form, space, "step:4;fitness:1;alive:1;fruit:0,0.25,0.5;")   # fitness: not asked for
    assert value["step"].tolist() == [4.0] and value["alive"] == 1 and value["fruit"].tolist() == [0, 0.25, 0.5]
    assert to_text(form, space, value) == "alive:1;fruit:0.0,0.25,0.5;step:4.0;"
    assert data_equivalence(from_text(form, space, to_text(form, space, value)), value)
    with pytest.raises(SpaceError, match=r"fruit: expected 3 numbers, got 2"):
        from_text(form, space, "step:4;alive:1;fruit:0,1;")
    with pytest.raises(SpaceError, match=r"no step: in"):
        from_text(form, space, "alive:1;fruit:0,0,0;")


def test_items_may_be_labels_rows_of_numbers_or_absent():
    form = {"type": "Dict", "form": "pairs", "spaces": {
        "goal": {"type": "Discrete", "n": 2, "labels": ["west", "east"]},
        "key": {"type": "Box", "shape": [2], "low": -1, "high": 9, "absent": "-"}}}
    space = decode_space(form)
    value = from_text(form, space, "pos=3 goal=east key=2,5")
    assert value["goal"] == 1 and value["key"].tolist() == [2, 5]
    assert from_text(form, space, "goal=west key=-")["key"].tolist() == [-1, -1]
    assert to_text(form, space, value) == "goal=east key=2.0,5.0"
    with pytest.raises(SpaceError, match="goal: 'up' is not a number nor one of west, east"):
        from_text(form, space, "goal=up key=-")
