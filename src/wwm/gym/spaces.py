"""Gymnasium spaces as JSON, for a card's ``state_space`` / ``action_space``, and values of a
space as the text of a state or an action.

**A space** is a JSON object with a ``type``:

=================  ==========================================================================
``Discrete``       ``n``, ``start`` (default 0); optional ``labels``: one text per value, the
                   action or state text of value ``start + i`` is ``labels[i]``
``Box``            ``shape`` (list), ``dtype`` ("float32", "int64", ...), ``low`` and ``high``:
                   nested lists of that shape (or one number for all), ``"inf"`` / ``"-inf"``
                   for infinities
``MultiDiscrete``  ``nvec`` (nested list), ``start`` (same shape, default zeros)
``MultiBinary``    ``n``: a number or a shape
``Dict``           ``spaces``: an object of spaces, in order
``Tuple``          ``spaces``: a list of spaces
``Text``           ``max_length``, ``min_length`` (default 1), ``charset`` (a string)
=================  ==========================================================================

A top-level ``Dict`` space may also say how its values are written as ``key``/``value``
items: ``"form": "pairs"`` -- ``key=value`` items separated by white space (the grid world's
and the Ant World's states) -- or ``"form": "key:value;"`` -- ``key:value`` items each ended
by ``;`` (w2mind's form: Tyrrell's world). The keys the Dict names are read, other items are
ignored. An item's space is a ``Discrete`` (the value a number, or one of its ``labels``) or
a ``Box`` of one number (shape ``[]`` or ``[1]``) or of a row of numbers (shape ``[k]``,
written ``a,b,c``); an item's space may say ``"absent": "-"``: that text stands for the
space's lowest value (the key-and-door world's ``key=-`` once the key is held). A top-level
``Text`` space may say ``"form": "text"``: the text is the value itself (a world whose
state has no fixed shape: JSON, XML...). Otherwise (``"form": "json"``, the default) **a
value's text** is its JSON: a number for Discrete (or its label), nested lists for Box,
MultiDiscrete and MultiBinary, an object for Dict, a list for Tuple, a string for Text.

A top-level space may say ``"new_run"``: an object of New run arguments a client sends to
have the world's states (or actions) in that space (the Tileworld's ``{"form": "numbers"}``:
its numeric form beside T-World's JSON percepts).
"""

from __future__ import annotations

import json
import math
from typing import Any

import gymnasium as gym
import numpy as np

Encoded = dict[str, Any]


class SpaceError(ValueError):
    """A space description, or a value's text, that does not fit the documented form."""


def encode_space(space: gym.Space[Any]) -> Encoded:
    """The JSON form of a Gymnasium space (the types the module's text lists)."""
    if isinstance(space, gym.spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, gym.spaces.Box):
        return {"type": "Box", "shape": list(space.shape), "dtype": str(space.dtype),
                "low": _finite(space.low), "high": _finite(space.high)}
    if isinstance(space, gym.spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": space.nvec.tolist(), "start": space.start.tolist()}
    if isinstance(space, gym.spaces.MultiBinary):
        n = space.n
        return {"type": "MultiBinary", "n": int(n) if isinstance(n, (int, np.integer)) else [int(k) for k in n]}
    if isinstance(space, gym.spaces.Dict):
        return {"type": "Dict", "spaces": {k: encode_space(s) for k, s in space.spaces.items()}}
    if isinstance(space, gym.spaces.Tuple):
        return {"type": "Tuple", "spaces": [encode_space(s) for s in space.spaces]}
    if isinstance(space, gym.spaces.Text):
        return {"type": "Text", "max_length": space.max_length, "min_length": space.min_length,
                "charset": "".join(sorted(space.character_set))}
    raise SpaceError(f"no JSON form for a {type(space).__name__} space "
                     f"(Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple and Text have one)")


def decode_space(data: Any, where: str = "space") -> gym.Space[Any]:
    """The Gymnasium space a JSON form describes; a SpaceError naming what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise SpaceError(f"{where}: expected an object with a \"type\", got {json.dumps(data)[:60]}")
    kind = data["type"]
    try:
        if kind == "Discrete":
            return gym.spaces.Discrete(int(data["n"]), start=int(data.get("start", 0)))
        if kind == "Box":
            shape = tuple(int(k) for k in data.get("shape", ()))
            dtype = np.dtype(data.get("dtype", "float32"))
            return gym.spaces.Box(low=_numbers(data["low"], dtype, shape), high=_numbers(data["high"], dtype, shape),
                                  shape=shape, dtype=dtype)
        if kind == "MultiDiscrete":
            nvec = np.asarray(data["nvec"], dtype=np.int64)
            return gym.spaces.MultiDiscrete(nvec, start=np.asarray(data.get("start", np.zeros_like(nvec)),
                                                                   dtype=np.int64))
        if kind == "MultiBinary":
            return gym.spaces.MultiBinary(data["n"])
        if kind == "Dict":
            return gym.spaces.Dict({str(k): decode_space(s, f"{where}.{k}") for k, s in data["spaces"].items()})
        if kind == "Tuple":
            return gym.spaces.Tuple([decode_space(s, f"{where}[{i}]") for i, s in enumerate(data["spaces"])])
        if kind == "Text":
            return gym.spaces.Text(int(data["max_length"]), min_length=int(data.get("min_length", 1)),
                                   charset=data.get("charset", gym.spaces.text.alphanumeric))
    except SpaceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SpaceError(f"{where}: not a {kind} space ({type(exc).__name__}: {exc})") from None
    raise SpaceError(f"{where}: unknown space type {kind!r} (Box, Discrete, MultiDiscrete, MultiBinary, "
                     f"Dict, Tuple, Text)")


def labels(data: Encoded) -> list[str] | None:
    """A Discrete space's labels (the texts of its values), if it has them."""
    found = data.get("labels")
    return [str(x) for x in found] if isinstance(found, list) else None


#: The key/value forms of a Dict: how items are split, how a key is joined to its value.
ITEM_FORMS: dict[str, tuple[str | None, str]] = {"pairs": (None, "="), "key:value;": (";", ":")}


def to_text(data: Encoded, space: gym.Space[Any], value: Any) -> str:
    """The text of ``value`` of ``space`` (described by ``data``), in the form it says."""
    form = data.get("form")
    if form in ITEM_FORMS:
        split, join = ITEM_FORMS[form]
        items = [f"{k}{join}{_item_text(data['spaces'][k], v)}" for k, v in value.items()]
        return " ".join(items) if split is None else "".join(f"{item}{split}" for item in items)
    if data.get("form") == "text":
        return str(value)
    names = labels(data)
    if names is not None:
        return names[int(value) - int(data.get("start", 0))]
    return json.dumps(_plain(value), separators=(",", ":"))


def from_text(data: Encoded, space: gym.Space[Any], text: str) -> Any:
    """The value of ``space`` that ``text`` encodes; a SpaceError naming what is wrong."""
    if data.get("form") in ITEM_FORMS:
        return _from_items(data, space, text)
    if data.get("form") == "text":
        if not space.contains(text):
            raise SpaceError(f"{text[:60]!r} is outside the space {space}")
        return text
    names = labels(data)
    if names is not None:
        try:
            return np.int64(names.index(text.strip()) + int(data.get("start", 0)))
        except ValueError:
            raise SpaceError(f"{text.strip()[:40]!r} is none of {', '.join(names)}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpaceError(f"not JSON ({exc.msg}): {text[:60]!r}") from None
    value = _from_json(space, raw)
    if not space.contains(value):
        raise SpaceError(f"{text[:60]!r} is outside the space {space}")
    return value


def _from_json(space: gym.Space[Any], raw: Any) -> Any:
    try:
        if isinstance(space, gym.spaces.Discrete):
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or int(raw) != raw:
                raise SpaceError(f"expected an integer, got {json.dumps(raw)[:40]}")
            return np.int64(raw)
        if isinstance(space, (gym.spaces.Box, gym.spaces.MultiDiscrete, gym.spaces.MultiBinary)):
            array = np.asarray(raw, dtype=space.dtype)
            if array.shape != space.shape:
                raise SpaceError(f"expected shape {space.shape}, got {array.shape}")
            return array
        if isinstance(space, gym.spaces.Dict):
            if not isinstance(raw, dict) or set(raw) != set(space.spaces):
                raise SpaceError(f"expected an object with {sorted(space.spaces)}")
            return {k: _from_json(s, raw[k]) for k, s in space.spaces.items()}
        if isinstance(space, gym.spaces.Tuple):
            if not isinstance(raw, list) or len(raw) != len(space.spaces):
                raise SpaceError(f"expected a list of {len(space.spaces)}")
            return tuple(_from_json(s, r) for s, r in zip(space.spaces, raw, strict=True))
        if isinstance(space, gym.spaces.Text):
            if not isinstance(raw, str):
                raise SpaceError("expected a string")
            return raw
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, SpaceError):
            raise
        raise SpaceError(f"not a value of {space} ({exc})") from None
    raise SpaceError(f"no text form for a {type(space).__name__} space")


def _from_items(data: Encoded, space: gym.Space[Any], text: str) -> dict[str, Any]:
    """A Dict's value from its ``key=value`` (or ``key:value;``) items."""
    form = str(data["form"])
    if not isinstance(space, gym.spaces.Dict):
        raise SpaceError(f"the {form} form is for Dict spaces")
    split, join = ITEM_FORMS[form]
    items = {k.strip(): v.strip() for k, _, v in (part.partition(join) for part in text.split(split)) if k.strip()}
    out: dict[str, Any] = {}
    for key, sub in space.spaces.items():
        if key not in items:
            raise SpaceError(f"no {key}{join} in {text[:60]!r}")
        out[key] = _item_value(data["spaces"][key], sub, key, items[key])
        if not sub.contains(out[key]):
            raise SpaceError(f"{key}{join}{items[key][:20]} is outside {sub}")
    return out


def _item_value(data: Encoded, space: gym.Space[Any], key: str, text: str) -> Any:
    """One item's value: a Discrete's number or label, a Box's number or numbers ``a,b,c``."""
    names = labels(data)
    if isinstance(space, gym.spaces.Discrete) and names is not None and text in names:
        return np.int64(names.index(text) + int(space.start))
    if isinstance(space, gym.spaces.Box) and data.get("absent") is not None and text == data["absent"]:
        return space.low.copy()
    try:
        numbers = [float(part) for part in text.split(",")]
    except ValueError:
        raise SpaceError(f"{key}: {text[:20]!r} is not a number" + (" nor one of " + ", ".join(names)
                                                                     if names else "")) from None
    if isinstance(space, gym.spaces.Discrete):
        if len(numbers) != 1 or numbers[0] != int(numbers[0]):
            raise SpaceError(f"{key}: {text[:20]!r} is not an integer")
        return np.int64(numbers[0])
    if isinstance(space, gym.spaces.Box) and space.shape in ((), (1,), (len(numbers),)):
        if space.shape != (len(numbers),) and len(numbers) != 1:
            raise SpaceError(f"{key}: expected one number, got {len(numbers)}")
        return np.asarray(numbers if space.shape else numbers[0], dtype=space.dtype).reshape(space.shape)
    if isinstance(space, gym.spaces.Box):
        raise SpaceError(f"{key}: expected {int(np.prod(space.shape))} numbers, got {len(numbers)}")
    raise SpaceError(f"{key}: an item's space is a Discrete or a Box of numbers, not a {type(space).__name__}")


def _item_text(data: Encoded, value: Any) -> str:
    """One item's text (the inverse of :func:`_item_value`)."""
    names = labels(data)
    if names is not None:
        return names[int(value) - int(data.get("start", 0))]
    plain = _plain(value)
    return ",".join(map(str, plain)) if isinstance(plain, list) else str(plain)


def _plain(value: Any) -> Any:
    """A value of a space as plain JSON-able Python (arrays as nested lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _finite(array: np.ndarray) -> Any:
    """An array of bounds as JSON: one number when all are equal, infinities as text."""
    flat = array.ravel()
    if flat.size and (flat == flat[0]).all():
        return _bound(flat[0].item())
    return np.vectorize(_bound, otypes=[object])(array).tolist() if array.size else []


def _bound(x: float | int) -> float | int | str:
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _numbers(value: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> np.ndarray:
    """Bounds from their JSON (one number stands for all), as an array of ``shape``."""
    def one(x: Any) -> float:
        if x in ("inf", "-inf"):
            return float(x)
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise SpaceError(f"a bound must be a number, \"inf\" or \"-inf\", got {json.dumps(x)[:40]}")
        return x

    def walk(x: Any) -> Any:
        return [walk(y) for y in x] if isinstance(x, list) else one(x)

    walked = np.asarray(walk(value))
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        walked = np.clip(walked, info.min, info.max)
    return np.broadcast_to(walked.astype(dtype), shape).copy()
