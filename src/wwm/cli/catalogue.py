"""The catalogue of worlds and minds, one source for ``wwm list --long`` and
docs/catalogue.md (``wwm list --markdown``): for each, what it is in one line, where the seed
(or its source paper) describes it, its state and action formats and, where declared, their
machine-readable spaces, and its arguments with their defaults."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# where the seed describes a family, for a class that names no section of its own
PACKAGE_SECTIONS = {
    "wwm.selection": "10 (Action Selection)", "wwm.tyrrell": "12.3, 5.4 (Tyrrell 1993)",
    "wwm.lambdastar": "Λ* (Chmait et al.)", "wwm.tileworld": "T-World (Burdisso et al.)",
    "wwm.acl": "speech acts (Smith & Cohen); 10.20", "wwm.meta": "meta-execution (Christiano)",
    "wwm.people": "5.5 (bring every agent online)", "wwm.kit": "",
    "wwm.gym": "5.4 (3rd-party researchers' own environments: Gymnasium, PettingZoo)",
}
EACH_RUN = "(each run gives it)"


@dataclass
class Entry:
    name: str
    role: str
    target: str
    about: str
    section: str
    state_format: str
    action_format: str
    state_space: str = ""
    action_space: str = ""
    arguments: dict[str, str] = field(default_factory=dict)


def entry(name: str, cls: type) -> Entry:
    """What the catalogue says of the class registered as ``name``."""
    from ..portal.prose import plain
    from ..protocol.arguments import Arguments

    section = getattr(cls, "seed_section", "") or next(
        (s for package, s in PACKAGE_SECTIONS.items() if cls.__module__.startswith(package + ".")), "")
    try:
        in_force = Arguments(cls).in_force({})
    except Exception:  # a plugin whose signature pydantic cannot read: listed without arguments
        in_force = {}
    arguments = {k: (EACH_RUN if v["set"] == "run" else _value(v.get("value"))) for k, v in in_force.items()}
    return Entry(name=name, role=str(getattr(cls, "role", "")), target=f"{cls.__module__}:{cls.__qualname__}",
                 about=first_sentence(plain(cls.__doc__ or "")), section=section,
                 state_format=_one_line(getattr(cls, "state_format", "")),
                 action_format=_one_line(getattr(cls, "action_format", "")),
                 state_space=space(getattr(cls, "state_space", None)),
                 action_space=space(getattr(cls, "action_space", None)), arguments=arguments)


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph (up to a full stop followed by a capital or the end)."""
    found = re.match(r"(.+?[.!?])(?=\s+[A-Z(*`]|\s*$)", text.strip())
    return (found.group(1) if found else text).strip()


def space(declared: Any) -> str:
    """A declared space (the JSON form of wwm.gym.spaces) in a few words, e.g.
    ``Dict(x: Discrete(100), y: Discrete(100))`` or ``Discrete(5): north, south, ...``."""
    if not isinstance(declared, dict):
        return ""
    kind = declared.get("type")
    if kind == "Discrete":
        start = f", start {declared['start']}" if declared.get("start") else ""
        labels = declared.get("labels")
        return f"Discrete({declared.get('n')}{start})" + (f": {', '.join(map(str, labels))}" if labels else "")
    if kind == "Box":
        shape = "x".join(map(str, declared.get("shape") or [])) or "scalar"
        return f"Box({declared.get('low')}..{declared.get('high')}, {shape})"
    if kind == "Dict":
        spaces = declared.get("spaces") or {}
        inner = ", ".join(f"{key}: {space(value)}" for key, value in spaces.items())
        form = declared.get("form")
        return f"Dict({inner})" + (f" read from {form} items" if form else "")
    return str(kind or "")


def markdown(worlds: list[Entry], minds: list[Entry]) -> str:
    """The catalogue as the Markdown page docs/catalogue.md."""
    out = ["# Catalogue of worlds and minds", "",
           "Every World and Mind `wwm serve NAME` serves, as `wwm list --long` prints it (this page is",
           "written by `wwm list --markdown > docs/catalogue.md`; a test keeps the two the same).",
           "Arguments are given to a run (`--world-arg`, `--mind-arg`, a society's `args`) or at",
           "start (`wwm serve NAME --arg K=V`). Spaces are what `wwm.gym` reads for Gymnasium.", ""]
    for title, entries in (("Worlds", worlds), ("Minds", minds)):
        out += [f"## {title}", ""]
        for e in entries:
            out += [f"### `{e.name}`", "", e.about or "(no description)", ""]
            rows = [("served as", f"`wwm serve {e.name}` (`{e.target}`)"), ("seed", e.section or "—"),
                    ("state", e.state_format), ("action", e.action_format)]
            if e.state_space:
                rows.append(("state space", f"`{e.state_space}`"))
            if e.action_space:
                rows.append(("action space", f"`{e.action_space}`"))
            rows.append(("arguments", ", ".join(f"`{k}` = {v}" for k, v in e.arguments.items()) or "none"))
            out += ["| | |", "|---|---|", *(f"| {k} | {_cell(v)} |" for k, v in rows), ""]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _value(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())
