"""The compose form's draft: the tree of servers a posted form describes, the buttons that
change it (add, remove, move a member up or down), and the society document it becomes.

The form works without JavaScript: its fields are named by their place in the tree
(``mind.members.1.args.region``) and every button posts the whole form back. The document is
:mod:`wwm.client.society`'s, checked with its model; members are ``{url, args}`` under
``minds``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from starlette.datastructures import FormData

from ..client.society import SocietyError, parse
from .fields import ARG_NAME, MEMBERS, DraftError, arg_fields, convert, is_default, shown_value, takes_members
from .models import Combination, Server

MAX_TITLE = 200
MAX_ARGUMENT = 2_000            # characters of one argument's value
MAX_MEMBERS = 12                # member minds of one mind
MAX_DEPTH = 5                   # levels of members under the top-level Mind
DEFAULT_STEPS = 100
MAX_STEPS = 1_000_000
VERBS = ("add", "remove", "up", "down", "update", "save")


@dataclass
class Node:
    """One server in the form: the registered server's id (as the form gives it), its
    arguments as typed, and its member minds."""

    server: str = ""
    args: dict[str, str] = field(default_factory=dict)
    members: list[Node] = field(default_factory=list)


@dataclass
class Draft:
    title: str = ""
    explanation: str = ""
    steps: str = str(DEFAULT_STEPS)
    derived_from: str = ""
    world: Node = field(default_factory=Node)
    mind: Node = field(default_factory=Node)


def _unknown(name: str) -> DraftError:
    return DraftError(f"the form has a field this portal does not know ({name[:80]!r}); reload the form")


def _put(node: Node, parts: list[str], value: str, depth: int, name: str) -> None:
    head = parts[0] if parts else ""
    if head == "server" and len(parts) == 1:
        node.server = value.strip()
    elif head == "args" and len(parts) == 2 and ARG_NAME.fullmatch(parts[1]):
        if len(value) > MAX_ARGUMENT:
            raise DraftError(f"the value of {parts[1]!r} is longer than {MAX_ARGUMENT} characters")
        node.args[parts[1]] = value          # a later field of the same name wins (a checkbox over its hidden "false")
    elif head == "members" and len(parts) >= 3 and parts[1].isdigit():
        index = int(parts[1])
        if index >= MAX_MEMBERS:
            raise DraftError(f"a mind has at most {MAX_MEMBERS} members here")
        if depth >= MAX_DEPTH:
            raise DraftError(f"members nest at most {MAX_DEPTH} levels deep here")
        while len(node.members) <= index:
            node.members.append(Node())
        _put(node.members[index], parts[2:], value, depth + 1, name)
    else:
        raise _unknown(name)


def draft_from_form(form: FormData) -> Draft:
    """The draft a posted compose form describes; :class:`DraftError` for a malformed one."""
    draft = Draft()
    for name, value in form.multi_items():
        if not isinstance(value, str):
            raise DraftError("the form carries a file; it takes only text")
        if name in ("csrf", "action"):
            continue
        if name in ("title", "explanation", "steps", "derived_from"):
            setattr(draft, name, value)
            continue
        root, _, rest = name.partition(".")
        if root not in ("world", "mind") or not rest:
            raise _unknown(name)
        _put(getattr(draft, root), rest.split("."), value, 0, name)
    draft.world.members = []   # a World has no members
    return draft


def find(draft: Draft, path: str) -> Node:
    """The node at ``path`` ("mind", "mind.members.2", ...)."""
    parts = path.split(".")
    if parts[0] not in ("world", "mind"):
        raise DraftError("that button names no part of the form; reload the form")
    node: Node = getattr(draft, parts[0])
    rest = parts[1:]
    while rest:
        if len(rest) < 2 or rest[0] != "members" or not rest[1].isdigit() or int(rest[1]) >= len(node.members):
            raise DraftError("that button names no part of the form; reload the form")
        node, rest = node.members[int(rest[1])], rest[2:]
    return node


def _member(draft: Draft, path: str) -> tuple[Node, int]:
    """The parent of the member at ``path`` and the member's index."""
    parent_path, _, index = path.rpartition(".members.")
    if not parent_path:
        raise DraftError("that button names no member of the form; reload the form")
    parent = find(draft, parent_path)
    if not index.isdigit() or int(index) >= len(parent.members):
        raise DraftError("that button names no member of the form; reload the form")
    return parent, int(index)


def apply_action(draft: Draft, action: str) -> str:
    """Do what the pressed button says; the answer is the path of the part of the form to
    show next (the member added or moved, the list a member left), "" for none."""
    verb, _, path = action.partition(":")
    if verb == "add":
        node = find(draft, path)
        if path.count("members") >= MAX_DEPTH:
            raise DraftError(f"members nest at most {MAX_DEPTH} levels deep here")
        if len(node.members) >= MAX_MEMBERS:
            raise DraftError(f"a mind has at most {MAX_MEMBERS} members here")
        node.members.append(Node())
        return f"{path}.members.{len(node.members) - 1}"
    if verb == "remove":
        parent, index = _member(draft, path)
        del parent.members[index]
        return path.rpartition(".members.")[0] + ".members"
    if verb in ("up", "down"):
        parent, index = _member(draft, path)
        other = index - 1 if verb == "up" else index + 1
        if not 0 <= other < len(parent.members):
            raise DraftError(f"that member is already the {'first' if verb == 'up' else 'last'}")
        parent.members[index], parent.members[other] = parent.members[other], parent.members[index]
        return f"{path.rpartition('.members.')[0]}.members.{other}"
    if verb in ("update", "save", ""):
        if path:
            find(draft, path)
        return path
    raise DraftError("the form was sent with a button this portal does not know; reload the form")


# ---- from the draft to a document, and back ---------------------------------------------------


class Registry:
    """The registered servers, by id and by URL."""

    def __init__(self, servers: Iterable[Server]) -> None:
        self.servers = list(servers)
        self.by_id = {str(s.id): s for s in self.servers}
        self.by_url = {s.url: s for s in self.servers}

    def of_role(self, role: str) -> list[Server]:
        return [s for s in self.servers if s.role == role]

    def chosen(self, node: Node, role: str, where: str) -> Server:
        if not node.server:
            raise DraftError(f"{where}: choose a server")
        server = self.by_id.get(node.server)
        if server is None:
            raise DraftError(f"{where}: there is no server {node.server[:20]!r} on this portal; choose one "
                             "from the list")
        if server.role != role:
            raise DraftError(f"{where}: {server.name} is a {server.role}, not a {role}")
        return server


def _spec(node: Node, registry: Registry, role: str, where: str, depth: int) -> dict[str, Any]:
    server = registry.chosen(node, role, where)
    fields = {f.name: f for f in arg_fields(server)}
    args: dict[str, Any] = {}
    for name, text in node.args.items():
        if name in fields and text.strip():
            value = convert(fields[name], text, where)
            if not is_default(fields[name], value):
                args[name] = value
    if takes_members(server):
        if not node.members:
            raise DraftError(f"{where}: {server.name} combines member minds; add at least one")
        args[MEMBERS] = [_spec(m, registry, "mind", f"{where}, member {i + 1}", depth + 1)
                         for i, m in enumerate(node.members)]
    spec: dict[str, Any] = {"url": server.url}
    if args:
        spec["args"] = args
    return spec


def document_of(draft: Draft, registry: Registry) -> dict[str, Any]:
    """The society document the draft describes, checked with the society model; or
    :class:`DraftError` saying what to fix."""
    title = draft.title.strip()
    if len(title) > MAX_TITLE:
        raise DraftError(f"the title is {len(title)} characters; at most {MAX_TITLE}")
    steps_text = draft.steps.strip() or str(DEFAULT_STEPS)
    if not steps_text.isdigit() or not 1 <= int(steps_text) <= MAX_STEPS:
        raise DraftError(f"steps is a whole number from 1 to {MAX_STEPS}, not {steps_text[:20]!r}")
    document = {"name": title or "untitled combination",
                "world": _spec(draft.world, registry, "world", "The World", 0),
                "mind": _spec(draft.mind, registry, "mind", "The Mind", 0),
                "run": {"steps": int(steps_text)}}
    try:
        parse(document, source="the combination")
    except SocietyError as exc:
        raise DraftError(str(exc)) from None
    return document


def args_and_members(spec: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    found = spec.get("args")
    args: dict[str, Any] = found if isinstance(found, dict) else {}
    listed = args.get(MEMBERS)
    return args, listed if isinstance(listed, list) else []


def _node_of(spec: Any, registry: Registry, missing: list[str]) -> Node:
    if isinstance(spec, str):
        spec = {"url": spec}
    if not isinstance(spec, dict):
        return Node()
    url = spec.get("url")
    server = registry.by_url.get(url) if isinstance(url, str) else None
    if server is None:
        missing.append(str(url or spec.get("class") or "?"))
    args, members = args_and_members(spec)
    return Node(server="" if server is None else str(server.id),
                args={k: shown_value(v) for k, v in args.items() if k != MEMBERS and isinstance(k, str)},
                members=[_node_of(m, registry, missing) for m in members[:MAX_MEMBERS]])


def draft_of(combination: Combination, registry: Registry) -> tuple[Draft, list[str]]:
    """A saved combination as a draft to edit; and the URLs in it no longer registered."""
    doc = combination.document if isinstance(combination.document, dict) else {}
    missing: list[str] = []
    run = doc.get("run") if isinstance(doc.get("run"), dict) else {}
    steps = run.get("steps") if isinstance(run, dict) else None
    draft = Draft(title=combination.title, explanation=combination.explanation,
                  steps=str(steps if isinstance(steps, int) else DEFAULT_STEPS), derived_from=str(combination.id),
                  world=_node_of(doc.get("world"), registry, missing),
                  mind=_node_of(doc.get("mind"), registry, missing))
    draft.world.members = []
    return draft, missing


def to_yaml(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
