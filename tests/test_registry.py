"""Registries: names, aliases, refusals of a taken name, and plugins read from entry points,
loaded only when asked for, a broken one named instead of taking the others down."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from wwm.registry import PluginError, Registry, UnknownName


@dataclass
class Thing:
    name: str


def test_register_by_decorator_by_call_and_with_aliases():
    things: Registry[object] = Registry("thing")

    @things.register
    class Widget:
        name = "Widget"

    @things.register(name="gadget", aliases=("g",))
    class Gadget:
        pass

    plain = things.register(Thing("plain"))
    assert things.lookup("widget") is Widget and things["G"] is Gadget and things["plain"] is plain
    assert list(things) == ["widget", "gadget", "plain"] and len(things) == 3 and "g" in things
    things.alias("w", "widget")
    assert things.lookup_key("W") == "widget" and things.origin("w") == "wwm"
    things.unregister("widget")
    assert "w" not in things and "widget" not in things


def test_a_taken_name_and_an_unknown_one_are_refused_by_name():
    things: Registry[Thing] = Registry("thing")
    things.register(Thing("a"))
    things.register(things["a"])                                 # the same thing again is fine
    with pytest.raises(ValueError, match="thing 'a' is already registered"):
        things.register(Thing("a"))
    with pytest.raises(UnknownName, match="unknown thing 'b'; choose one of a") as refused:
        things.lookup("b")
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, LookupError)
    with pytest.raises(KeyError):
        things["b"]
    assert things.get("b") is None


def installed(tmp_path, monkeypatch, entry_points: str, files: dict[str, str]) -> None:
    """A distribution 'demo-things' with these entry points and files, importable."""
    info = tmp_path / "demo_things-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-things\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_plugins_come_from_entry_points_loaded_only_when_asked_for(tmp_path, monkeypatch):
    installed(tmp_path, monkeypatch,
              "[wwm.test_things]\ngood = demo_good:THING\nbroken = demo_missing:THING\na = demo_good:OTHER\n",
              {"demo_good.py": "THING = 'good thing'\nOTHER = 'another'\n"})
    things: Registry[str] = Registry("thing", group="wwm.test_things", name_of=str)
    things.register("a")                                        # wwm's own 'a' keeps its name
    assert "demo_good" not in sys.modules
    assert set(things) == {"a", "good", "broken"}                # read, not yet loaded
    assert "demo_good" not in sys.modules
    assert things.lookup("good") == "good thing" and things.origin("good") == "demo-things"
    assert things.lookup("a") == "a" and things.origin("a") == "wwm"
    with pytest.raises(PluginError, match="thing 'broken' from demo-things cannot be loaded: "
                                          "ModuleNotFoundError: No module named 'demo_missing'"):
        things.lookup("broken")
    assert things.lookup("good") == "good thing"                 # the others stand
