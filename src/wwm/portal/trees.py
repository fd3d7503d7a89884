"""The society as the pages draw it: the compose form's parts (one per server, its fields
and its members) and the tree beside it, or on a combination's page, of servers, their
arguments in words and their members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .drafts import MAX_DEPTH, MAX_MEMBERS, Node, Registry, args_and_members
from .fields import MEMBERS, ArgField, arg_fields, humanise, shown_value, takes_members
from .models import Server


def anchor(path: str) -> str:
    """The id of the form's part for ``path`` (``mind.members.1`` is ``at-mind-members-1``)."""
    return "at-" + path.replace(".", "-")


@dataclass
class NodeView:
    """A node of the compose form as the template draws it."""

    path: str
    label: str
    role: str
    node: Node
    server: Server | None
    fields: list[ArgField]
    members: list[NodeView] | None      # None: the server takes no members
    can_add: bool
    index: int = 0                       # among its parent's members
    siblings: int = 1

    @property
    def anchor(self) -> str:
        return anchor(self.path)

    @property
    def parent(self) -> str:
        return self.path.rpartition(".members.")[0]

    def at(self, offset: int) -> str:
        """The anchor of the member ``offset`` places after this one (where it lands when moved)."""
        return anchor(f"{self.parent}.members.{self.index + offset}")

    @property
    def members_anchor(self) -> str:
        """The anchor of this node's member list (where the page comes back after a removal)."""
        return anchor(self.path + ".members")

    @property
    def parent_members_anchor(self) -> str:
        return anchor(self.parent + ".members")

    @property
    def added_anchor(self) -> str:
        return anchor(f"{self.path}.members.{len(self.node.members)}")

    @property
    def basic(self) -> list[ArgField]:
        return [f for f in self.fields if not f.advanced]

    @property
    def advanced(self) -> list[ArgField]:
        return [f for f in self.fields if f.advanced]

    @property
    def advanced_set(self) -> bool:
        """Whether an advanced argument has a value other than its default (its section opens)."""
        return any(self.node.args.get(f.name, "").strip() not in ("", f.default) for f in self.advanced)


def view_of(node: Node, registry: Registry, path: str, label: str, role: str, depth: int,
            index: int = 0, siblings: int = 1) -> NodeView:
    server = registry.by_id.get(node.server)
    if server is not None and server.role != role:
        server = None
    members = None
    if takes_members(server):
        members = [view_of(m, registry, f"{path}.members.{i}", f"Member {i + 1}", "mind", depth + 1,
                           i, len(node.members))
                   for i, m in enumerate(node.members)]
    return NodeView(path, label, role, node, server, arg_fields(server), members,
                    depth < MAX_DEPTH and len(node.members) < MAX_MEMBERS, index, siblings)


@dataclass
class TreeNode:
    """One server of a society as its tree shows it: its role or place ("World", "Mind",
    "member 2"), the registered server (None: not registered here now), its arguments in
    words, its members; ``link`` is the form's part it stands for (on the compose page)."""

    label: str
    url: str
    server: Server | None
    args: list[tuple[str, str]]
    members: list[TreeNode]
    link: str = ""
    chosen: bool = True                  # False: a member of the draft with no server chosen yet


def _labels(server: Server | None) -> dict[str, str]:
    return {f.name: f.label for f in arg_fields(server)}


def tree_of(spec: Any, registry: Registry, label: str = "") -> TreeNode | None:
    """A saved document's server and its members."""
    if isinstance(spec, str):
        spec = {"url": spec}
    if not isinstance(spec, dict):
        return None
    url = str(spec.get("url") or f"local class {spec.get('class')}")
    server = registry.by_url.get(url)
    labels = _labels(server)
    args, members = args_and_members(spec)
    found = (tree_of(m, registry, f"member {i + 1}") for i, m in enumerate(members))
    return TreeNode(label, url, server,
                    [(labels.get(str(k), humanise(str(k))), shown_value(v)) for k, v in args.items() if k != MEMBERS],
                    [t for t in found if t is not None])


def draft_tree(view: NodeView) -> TreeNode:
    """The form's part as the tree beside the form draws it: what is chosen and typed so far
    (a value left empty is the server's default, not shown)."""
    labels = {f.name: f for f in view.fields}
    args = []
    for name, text in view.node.args.items():
        f = labels.get(name)
        if f is None or not text.strip():
            continue
        if f.kind == "boolean" and f.default == text.strip():
            continue                                    # a checkbox left as drawn
        choice = f.choice(text.strip()) if f.kind == "choice" else None
        args.append((f.label, choice.value if choice else text.strip()))
    return TreeNode(view.label if view.path in ("world", "mind") else view.label.lower(),
                    view.server.url if view.server else "", view.server, args,
                    [draft_tree(m) for m in view.members or []], anchor(view.path), view.server is not None)
