"""T-World's three percept forms: JSON, XML and a Prolog fact, each one line per message.

An agent chooses its form when it connects (``CONNECT:<magic>:xml`` to the proxy, the
``form`` argument of a WWM run); the world builds every message as JSON data and
:func:`encode` writes it in the chosen form. :func:`decode` reads any of the three back
(the form is told by the first character: ``{``, ``<`` or ``t``; XML through defusedxml, which
refuses DTDs and entity declarations).

JSON is T-World's own: ``{"header": H, "data": D}``.

XML follows T-World's ``tw_msg.xsd``: ``<tw_msg><header>H</header><data>…</data></tw_msg>``,
or ``<desc>text</desc>`` instead of ``<data>`` when the data is not a percept (a message's
text, an error, ``pause``). Inside ``data``:

* an object is an element named by its key; in a *thing* (a list's item, and every
  ``agent`` and ``location``) each scalar member is an attribute (``<tile id="7" row="0"
  column="1"/>``); in any other object each scalar member is a child ``<name value="v"/>``
  (``<time value="52"/>``); a null member is left out;
* the lists ``grid``, ``holes``, ``tiles``, ``obstacles``, ``agents``, ``battery_chargers``,
  ``teams``, ``agents_location`` and ``messages`` are wrapped in an element of their name,
  each item an element named in the singular (``<holes><hole …>``; ``battery_chargers`` holds
  ``location`` items; a grid row is ``<row>`` of ``<cell_data value="T"/>``); every other
  list (``cells``, ``members``, ``range``, ``prob``) is its items repeated in place, named
  ``cell``, ``member``, ``range`` and ``prob``; a scalar item is ``<name value="v"/>``;
* a scalar is written as text (``true``/``false`` for booleans) and read back as a whole
  number, a decimal, a boolean or else text (``text`` and ``desc`` always stay text).

Prolog is ``tw_msg(header(H), data(…)).``: an object member ``key: value`` is the term
``key(V)`` for a scalar or a list and ``key(M1,M2,…)`` for an object (its members in turn);
a list is a Prolog list whose object items are terms named in the singular as in XML
(``holes([hole(id(3),cells([cell(row(4),column(1))]),size(3),value(30))])``); text is a
quoted atom (``'T'``, ``' '``), numbers are numbers, ``null``, ``true`` and ``false`` atoms;
``data('text')`` when the data is not a percept.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from xml.etree import ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as safe_fromstring

Form = Literal["json", "xml", "prolog"]
FORMS: tuple[Form, ...] = ("json", "xml", "prolog")

WRAPPED = {"grid": "row", "holes": "hole", "tiles": "tile", "obstacles": "obstacle", "agents": "agent",
           "battery_chargers": "location", "teams": "team", "agents_location": "location", "messages": "message"}
IN_PLACE = {"cells": "cell", "members": "member", "range": "range", "prob": "prob"}
SINGULAR = {**WRAPPED, **IN_PLACE, "row": "cell_data"}
THINGS = {"agent", "location"}
TEXT_KEYS = {"text", "desc"}
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
_ESCAPE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;",
                        "\t": "&#9;"})  # in attributes and text alike: a percept stays one line


class FormError(ValueError):
    """A message that is not in any of the three forms, or a form that does not exist."""


def check_form(form: str) -> Form:
    """``form`` if it is one of :data:`FORMS` (any case), else FormError naming the choices."""
    name = form.strip().lower()
    if name not in FORMS:
        raise FormError(f"unknown percept form {form!r}: choose json, xml or prolog")
    return name


StateForm = Literal["json", "xml", "prolog", "numbers"]
#: The forms a WWM run's states may take: T-World's three and the numeric one
#: (:mod:`.numeric`, for learners; states only: it is never decoded back).
STATE_FORMS: tuple[StateForm, ...] = (*FORMS, "numbers")


def check_state_form(form: str) -> StateForm:
    """``form`` if it is one of :data:`STATE_FORMS` (any case), else FormError naming the choices."""
    name = form.strip().lower()
    if name == "numbers":
        return "numbers"
    try:
        return check_form(name)
    except FormError:
        raise FormError(f"unknown percept form {form!r}: choose json, xml, prolog or numbers") from None


def split_magic(magic: str) -> tuple[str, Form]:
    """A magic string and the form it asks for: ``robot-1:xml`` is ``("robot-1", "xml")``;
    without a known form suffix the form is JSON and the magic string is kept whole."""
    head, sep, tail = magic.rpartition(":")
    if sep and head and tail.strip().lower() in FORMS:
        return head, check_form(tail)
    return magic, "json"


def encode(message: dict[str, Any], form: Form) -> str:
    """``message`` (``{"header": H, "data": D, ...}``) as one newline-terminated line."""
    if form == "json":
        return json.dumps(message, separators=(",", ":")) + "\n"
    if form == "xml":
        return _xml_message(message) + "\n"
    if form == "prolog":
        return _prolog_message(message) + "\n"
    raise FormError(f"unknown percept form {form!r}: choose json, xml or prolog")


def convert(line: str, form: Form) -> str:
    """A JSON message line in ``form`` (lines that are not JSON objects are left as they are)."""
    if form == "json":
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    return encode(message, form) if isinstance(message, dict) and "header" in message else line


def decode(text: str) -> dict[str, Any]:
    """A message in any form back to ``{"header": H, "data": D, ...}`` (null members of
    objects, which XML leaves out, are absent)."""
    body = text.strip()
    try:
        if body.startswith("{"):
            message = json.loads(body)
            if isinstance(message, dict):
                return message
        elif body.startswith("<"):
            return _xml_read(body)
        elif body.startswith("tw_msg("):
            return _prolog_read(body)
    except DefusedXmlException:
        raise FormError("not a T-World message: the XML declares a DTD or entities, which percepts never do") from None
    except (ValueError, ET.ParseError, IndexError, KeyError) as exc:
        raise FormError(f"not a T-World message: {exc}") from None
    shown = body if len(body) <= 40 else body[:37] + "..."
    raise FormError(f"not a T-World message in JSON, XML or Prolog form: {shown!r}")


# ---- XML -----------------------------------------------------------------------------------------
def _text(value: Any) -> str:
    """A scalar as XML text, escaped (numbers need no escaping: most of a percept is numbers)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return str(value).translate(_ESCAPE)


def _attr(value: Any) -> str:
    return f'"{_text(value)}"'


def _xml_message(message: dict[str, Any]) -> str:
    data = message.get("data")
    parts = [XML_DECLARATION, "<tw_msg>", f"<header>{_text(str(message['header']))}</header>"]
    if isinstance(data, dict):
        parts.append(_xml_object("data", data, thing=False))
    else:
        parts.append(f"<desc>{_text(data)}</desc>")
    for key, value in message.items():
        if key not in ("header", "data"):
            parts.append(_xml_member(key, value, thing=False))
    parts.append("</tw_msg>")
    return "".join(parts)


def _xml_object(name: str, obj: dict[str, Any], thing: bool) -> str:
    attrs, children = [], []
    for key, value in obj.items():
        if value is None:
            continue
        if isinstance(value, (dict, list)):
            children.append(_xml_member(key, value, thing=key in THINGS))
        elif thing:
            attrs.append(f" {key}={_attr(value)}")
        else:
            children.append(f"<{key} value={_attr(value)}/>")
    inner = "".join(children)
    return f"<{name}{''.join(attrs)}>{inner}</{name}>" if inner else f"<{name}{''.join(attrs)}/>"


def _xml_member(key: str, value: Any, thing: bool) -> str:
    if isinstance(value, dict):
        return _xml_object(key, value, thing)
    if isinstance(value, list):
        items = "".join(_xml_item(SINGULAR.get(key, key), item) for item in value)
        return f"<{key}>{items}</{key}>" if key in WRAPPED else items
    return f"<{key} value={_attr(value)}/>"


def _xml_item(name: str, item: Any) -> str:
    if isinstance(item, dict):
        return _xml_object(name, item, thing=True)
    if isinstance(item, list):
        inner = "".join(_xml_item(SINGULAR.get(name, name), x) for x in item)
        return f"<{name}>{inner}</{name}>"
    return f"<{name} value={_attr(item)}/>"


_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d+\.\d*(?:[eE][-+]?\d+)?$|^-?\d+[eE][-+]?\d+$")


def _scalar(text: str, key: str = "") -> Any:
    if key in TEXT_KEYS:
        return text
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text


def _xml_read(body: str) -> dict[str, Any]:
    root = safe_fromstring(body.encode("utf-8"), forbid_dtd=True, forbid_entities=True, forbid_external=True)
    if root.tag != "tw_msg":
        raise FormError(f"the XML root is <{root.tag}>, not <tw_msg>")
    message: dict[str, Any] = {}
    for child in root:
        if child.tag == "header":
            message["header"] = (child.text or "").strip()
        elif child.tag == "desc":
            message["data"] = child.text or ""
        elif child.tag == "data":
            message["data"] = _xml_object_read(child)
        else:
            message[child.tag] = _xml_member_read(child)
    if "header" not in message:
        raise FormError("the XML has no <header>")
    return message


def _xml_object_read(element: ET.Element) -> dict[str, Any]:
    obj: dict[str, Any] = {k: _scalar(v, k) for k, v in element.attrib.items()}
    plural = {v: k for k, v in IN_PLACE.items()}
    for child in element:
        if child.tag in plural:
            obj.setdefault(plural[child.tag], []).append(_xml_item_read(child))
        else:
            obj[child.tag] = _xml_member_read(child)
    return obj


def _xml_member_read(element: ET.Element) -> Any:
    if element.tag in WRAPPED:
        return [_xml_item_read(item) for item in element]
    if len(element) == 0 and set(element.attrib) == {"value"} and element.tag not in THINGS:
        return _scalar(element.attrib["value"], element.tag)
    return _xml_object_read(element)


def _xml_item_read(element: ET.Element) -> Any:
    if element.tag in SINGULAR and element.tag not in THINGS and element.tag != "range" and len(element) and \
            not element.attrib:
        return [_xml_item_read(x) for x in element]  # a list of lists: a grid row
    if len(element) == 0 and set(element.attrib) == {"value"}:
        return _scalar(element.attrib["value"])
    return _xml_object_read(element)


# ---- Prolog --------------------------------------------------------------------------------------
def _atom(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r") + "'"


def _prolog_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return _atom(str(value))


def _prolog_message(message: dict[str, Any]) -> str:
    data = message.get("data")
    body = _prolog_members(data) if isinstance(data, dict) else _prolog_scalar(data)
    extra = "".join(f", {_prolog_member(k, v)}" for k, v in message.items() if k not in ("header", "data"))
    return f"tw_msg(header({message['header']}), data({body}){extra})."


def _prolog_members(obj: dict[str, Any]) -> str:
    return ",".join(_prolog_member(k, v) for k, v in obj.items())


def _prolog_member(key: str, value: Any) -> str:
    if isinstance(value, dict):
        return f"{key}({_prolog_members(value)})" if value else key
    return f"{key}({_prolog_value(SINGULAR.get(key, key), value)})"


def _prolog_value(name: str, value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_prolog_value(SINGULAR.get(name, name), x) for x in value) + "]"
    if isinstance(value, dict):
        return f"{name}({_prolog_members(value)})" if value else name
    return _prolog_scalar(value)


_TOKEN = re.compile(r"\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<quoted>'(?:[^'\\]|\\.)*')"
                    r"|(?P<atom>[a-z][A-Za-z0-9_]*)|(?P<punct>[()\[\],.]))")
_UNESCAPE = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "'": "'"}


class _Term:
    """A compound term or an atom read from Prolog text."""

    __slots__ = ("args", "name")

    def __init__(self, name: str, args: list[Any]) -> None:
        self.name, self.args = name, args


def _prolog_read(body: str) -> dict[str, Any]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None:
            if body[pos:].strip() == "":
                break
            raise FormError(f"unexpected {body[pos:pos + 20]!r} at character {pos} of the Prolog term")
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    try:
        term, at = _term(tokens, 0)
    except IndexError:
        raise FormError("the Prolog term ends before it is complete") from None
    if at >= len(tokens) or tokens[at] != ("punct", ".") or not isinstance(term, _Term) or term.name != "tw_msg":
        raise FormError("a Prolog percept is one fact tw_msg(header(H), data(D)).")
    message: dict[str, Any] = {}
    for arg in term.args:
        if not isinstance(arg, _Term):
            raise FormError("every argument of tw_msg/N is a term key(value)")
        if arg.name == "header":
            message["header"] = arg.args[0].name if isinstance(arg.args[0], _Term) else str(arg.args[0])
        elif arg.name == "data" and arg.args and not all(isinstance(a, _Term) for a in arg.args):
            message["data"] = _plain(arg.args[0])
        else:
            message[arg.name] = _member_value(arg)
    return message


def _term(tokens: list[tuple[str, str]], at: int) -> tuple[Any, int]:
    kind, text = tokens[at]
    if kind == "num":
        return (float(text) if any(c in text for c in ".eE") else int(text)), at + 1
    if kind == "quoted":
        return re.sub(r"\\(.)", lambda m: _UNESCAPE.get(m.group(1), m.group(1)), text[1:-1]), at + 1
    if kind == "punct" and text == "[":
        items: list[Any] = []
        at += 1
        if tokens[at] == ("punct", "]"):
            return items, at + 1
        while True:
            item, at = _term(tokens, at)
            items.append(item)
            if tokens[at] == ("punct", "]"):
                return items, at + 1
            if tokens[at] != ("punct", ","):
                raise FormError(f"expected , or ] in a Prolog list, got {tokens[at][1]!r}")
            at += 1
    if kind != "atom":
        raise FormError(f"unexpected {text!r} in the Prolog term")
    if at + 1 < len(tokens) and tokens[at + 1] == ("punct", "("):
        args: list[Any] = []
        at += 2
        while True:
            arg, at = _term(tokens, at)
            args.append(arg)
            if tokens[at] == ("punct", ")"):
                return _Term(text, args), at + 1
            if tokens[at] != ("punct", ","):
                raise FormError(f"expected , or ) in the Prolog term {text}(...), got {tokens[at][1]!r}")
            at += 1
    return _Term(text, []), at + 1


def _plain(value: Any) -> Any:
    """A value read from Prolog: atoms null/true/false, lists, and terms as objects."""
    if isinstance(value, list):
        return [_plain(x) for x in value]
    if isinstance(value, _Term):
        if not value.args:
            return {"null": None, "true": True, "false": False}.get(value.name, {})
        return {a.name: _member_value(a) for a in value.args if isinstance(a, _Term)}
    return value


def _member_value(term: _Term) -> Any:
    """The value of a member ``key(V)`` or ``key(M1, M2, ...)``."""
    if not term.args:
        return {}
    if len(term.args) == 1 and not (isinstance(term.args[0], _Term) and term.args[0].args):
        return _plain(term.args[0])
    return {a.name: _member_value(a) for a in term.args if isinstance(a, _Term)}
