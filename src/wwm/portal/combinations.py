"""Compose, link and list combinations (issue 14, items 3, 4, 7 and 10; section 12.2.1).

**Compose** (``/compose``) is one HTML form built from the registered servers' argument
schemas (their cards' ``arguments``): a World with its arguments and a Mind with its own; a
Mind whose schema takes ``minds`` (a Mind_AS, a Mind_M) gets a list of member minds, each a
server with its arguments and, if it takes minds too, members of its own, to any depth. The
form works without JavaScript: its fields are named by their place in the tree
(``mind.members.1.args.region``), and "Add a member", "Remove", "Update the form" post the
whole form back, which is drawn again with the document so far. (The package's script only
posts it back when a server is chosen.) The result is a society document
(:mod:`wwm.client.society`), checked with its model and previewed as YAML; members are
``{url, args}`` under ``minds``::

    mind: {url: AS, args: {method: w=q, minds: [{url: M1},
           {url: MindM, args: {region: "x<4", minds: [{url: AS2, args: {strengths: "2,0.5",
                                                 minds: [{url: M4}, {url: M5}]}}]}}]}}

**Link** (``/combination/<id>``, canonical; ``/user/<author>/combination/<id>`` as the seed
sketches it redirects there): the title, the author's explanation (Markdown rendered by
markdown-it-py, then sanitised by nh3), the servers with their arguments as a tree, the
document (``/combination/<id>/society.yaml``, and the page itself answers YAML to a client
that asks for it, so ``wwm run <page URL>`` works), a Start run form, its runs with scores,
and its lineage. A combination never changes: no route here edits one; "Edit" opens the form
prefilled and saving makes a new combination ``derived_from`` the old.

**Listings**: all combinations by World (``/combinations``); a World's page (``/world/<id>``)
with its combinations, its recent runs and a **Top 10 per number of steps asked**, ranked by
the score the *World* reported at the run's end (the run store's ``world_score``, written by
the run loop from End run). Nothing here accepts a score from a client; only portal runs
(``PortalRun`` with a ``run_store_id``) that completed the steps they asked for (or that the
World ended) are ranked, each combination once, at its best run.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import nh3
import yaml
from markdown_it import MarkdownIt
from markupsafe import Markup
from sqlalchemy import select
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..client.society import SocietyError, parse
from .models import Combination, PortalRun, Server
from .store import NotFound, PortalError, PortalStore
from .visitors import Visitor, visitor_of

if TYPE_CHECKING:
    from ..store import RunStore

MAX_TITLE = 200
MAX_EXPLANATION = 20_000        # characters of Markdown
MAX_ARGUMENT = 2_000            # characters of one argument's value
MAX_MEMBERS = 12                # member minds of one mind
MAX_DEPTH = 5                   # levels of members under the top-level Mind
DEFAULT_STEPS = 100
MAX_STEPS = 1_000_000
TOP = 10
FINISHED = ("completed", "ended by world")       # a run that made the steps it asked for
MEMBERS = "minds"                                  # the argument that takes member minds
ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")


class Portal(Protocol):
    """What these pages need of the application (:class:`wwm.portal.app.Portal`)."""

    store: PortalStore
    run_store: RunStore | None

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> Response: ...

    async def db(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    async def user_id(self, visitor: Visitor) -> int: ...

    def posted(self, handler: Callable[[Request, FormData], Awaitable[Response]]
               ) -> Callable[[Request], Awaitable[Response]]: ...


class DraftError(PortalError):
    """The compose form cannot become a document; the text says what to fix."""


# ---- Markdown ---------------------------------------------------------------------------------

_markdown = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})
_TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre",
         "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"}


@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> Markup:
    """The author's Markdown as inert HTML: raw HTML in it is shown as text (markdown-it's
    ``html: False``), and nh3 then keeps only the tags above, ``href`` on links to http(s)
    and mailto (no ``javascript:``), no event attributes, no style, every link ``nofollow``.
    Kept for the latest texts: a combination's explanation never changes once saved."""
    rendered = _markdown.render(text)
    clean = nh3.clean(rendered, tags=_TAGS, attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}},
                      url_schemes={"http", "https", "mailto"}, link_rel="nofollow noopener noreferrer",
                      strip_comments=True)
    return Markup(clean)  # noqa: S704 - sanitised by nh3 just above


# ---- the form's draft: a tree of nodes ----------------------------------------------------------


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


def _put(node: Node, parts: list[str], value: str, depth: int, name: str) -> None:
    head = parts[0] if parts else ""
    if head == "server" and len(parts) == 1:
        node.server = value.strip()
    elif head == "args" and len(parts) == 2 and ARG_NAME.fullmatch(parts[1]):
        if len(value) > MAX_ARGUMENT:
            raise DraftError(f"the value of {parts[1]!r} is longer than {MAX_ARGUMENT} characters")
        node.args[parts[1]] = value
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
        raise DraftError(f"the form has a field this portal does not know ({name[:80]!r}); reload the form")


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
            raise DraftError(f"the form has a field this portal does not know ({name[:80]!r}); reload the form")
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


def apply_action(draft: Draft, action: str) -> None:
    """Add or remove a member as the pressed button says."""
    verb, _, path = action.partition(":")
    if verb == "add":
        node = find(draft, path)
        if path.count("members") >= MAX_DEPTH:
            raise DraftError(f"members nest at most {MAX_DEPTH} levels deep here")
        if len(node.members) >= MAX_MEMBERS:
            raise DraftError(f"a mind has at most {MAX_MEMBERS} members here")
        node.members.append(Node())
    elif verb == "remove":
        parent_path, _, index = path.rpartition(".members.")
        parent = find(draft, parent_path)
        if not index.isdigit() or int(index) >= len(parent.members):
            raise DraftError("that button names no member of the form; reload the form")
        del parent.members[int(index)]
    elif verb not in ("update", "save", ""):
        raise DraftError("the form was sent with a button this portal does not know; reload the form")


# ---- argument schemas ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ArgField:
    name: str
    kind: str              # "integer", "number", "boolean", "list", "text"
    item: str              # a list's items: "number" or "text"
    default: str
    title: str


def _types(spec: dict[str, Any]) -> list[str]:
    found = [spec["type"]] if isinstance(spec.get("type"), str) else []
    for option in spec.get("anyOf") or []:
        if isinstance(option, dict) and isinstance(option.get("type"), str):
            found.append(option["type"])
    return found


def arg_fields(server: Server | None) -> list[ArgField]:
    """The arguments a server's card publishes, as fields of the form (``minds`` aside: that
    is the member list)."""
    card = server.card if server is not None and isinstance(server.card, dict) else {}
    schema = card.get("arguments")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    out = []
    for name, spec in (properties if isinstance(properties, dict) else {}).items():
        if not isinstance(name, str) or name == MEMBERS or not ARG_NAME.fullmatch(name):
            continue
        spec = spec if isinstance(spec, dict) else {}
        types = _types(spec)
        if "string" in types or not types:
            kind = "text"
        elif types[0] == "array" or "array" in types and "null" in types:
            kind = "list"
        else:
            kind = types[0] if types[0] in ("integer", "number", "boolean") else "text"
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        item = "number" if isinstance(items, dict) and items.get("type") in ("number", "integer") else "text"
        default = spec.get("default")
        shown = "" if default is None else (json.dumps(default) if not isinstance(default, str) else default)
        title = spec.get("description") or spec.get("title") or ""
        out.append(ArgField(name, kind, item, shown[:200], str(title)[:200]))
    return out[:60]


def takes_members(server: Server | None) -> bool:
    card = server.card if server is not None and isinstance(server.card, dict) else {}
    schema = card.get("arguments")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return server is not None and server.role == "mind" and isinstance(properties, dict) and MEMBERS in properties


def convert(arg: ArgField, text: str, where: str) -> Any:
    """A typed value as the document holds it, or :class:`DraftError` naming the field."""
    text = text.strip()
    try:
        if arg.kind == "integer":
            return int(text)
        if arg.kind == "number":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
    except ValueError:
        what = "a whole number" if arg.kind == "integer" else "a number"
        raise DraftError(f"{where}: argument {arg.name!r} must be {what}, not {text[:40]!r}") from None
    if arg.kind == "boolean":
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise DraftError(f"{where}: argument {arg.name!r} is true or false, not {text[:40]!r}")
    if arg.kind == "list":
        items = [p.strip() for p in text.split(",") if p.strip()]
        if arg.item == "number":
            try:
                return [float(p) for p in items]
            except ValueError:
                raise DraftError(f"{where}: argument {arg.name!r} is numbers separated by commas, "
                                 f"not {text[:40]!r}") from None
        return items
    return text


def shown_value(value: Any) -> str:
    """A document's argument value as the form shows it (the inverse of :func:`convert`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value)


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
            args[name] = convert(fields[name], text, where)
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


def _args_and_members(spec: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
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
    args, members = _args_and_members(spec)
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


# ---- what the pages show -------------------------------------------------------------------------


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


def view_of(node: Node, registry: Registry, path: str, label: str, role: str, depth: int) -> NodeView:
    server = registry.by_id.get(node.server)
    if server is not None and server.role != role:
        server = None
    members = None
    if takes_members(server):
        members = [view_of(m, registry, f"{path}.members.{i}", f"{label}, member {i + 1}", "mind", depth + 1)
                   for i, m in enumerate(node.members)]
    return NodeView(path, label, role, node, server, arg_fields(server), members,
                    depth < MAX_DEPTH and len(node.members) < MAX_MEMBERS)


@dataclass
class TreeNode:
    """A saved document's server, as the combination page shows it."""

    url: str
    server: Server | None
    args: list[tuple[str, str]]
    members: list[TreeNode]


def tree_of(spec: Any, registry: Registry) -> TreeNode | None:
    if isinstance(spec, str):
        spec = {"url": spec}
    if not isinstance(spec, dict):
        return None
    url = str(spec.get("url") or f"local class {spec.get('class')}")
    args, members = _args_and_members(spec)
    return TreeNode(url, registry.by_url.get(url),
                    [(str(k), shown_value(v)) for k, v in args.items() if k != MEMBERS],
                    [t for t in (tree_of(m, registry) for m in members) if t is not None])


@dataclass(frozen=True)
class Scored:
    """A portal run with what the run store recorded of it."""

    run: PortalRun
    status: str
    steps: int | None
    world_score: float | None

    @property
    def ranked(self) -> bool:
        """Whether it may enter a Top 10: finished its steps (or ended by the World), with a
        score the World gave."""
        return (self.status in FINISHED and self.world_score is not None and math.isfinite(self.world_score)
                and self.run.steps_asked is not None)


def run_rows(run_store: RunStore | None, ids: list[int]) -> dict[int, dict[str, Any]]:
    """The run store's record (status, steps, world_score) of each run ID."""
    if run_store is None or not ids:
        return {}
    from ..store import schema

    runs = schema.runs
    query = select(runs.c.id, runs.c.status, runs.c.steps, runs.c.world_score).where(runs.c.id.in_(ids))
    with run_store.reading() as conn:
        return {int(r["id"]): dict(r) for r in conn.execute(query).mappings()}


def scored(runs: list[PortalRun], run_store: RunStore | None) -> list[Scored]:
    rows = run_rows(run_store, [r.run_store_id for r in runs if r.run_store_id is not None])
    out = []
    for run in runs:
        row = rows.get(run.run_store_id) if run.run_store_id is not None else None
        if row is None:
            out.append(Scored(run, run.status, None, None))
        else:
            out.append(Scored(run, str(row["status"]), row["steps"], row["world_score"]))
    return out


@dataclass
class Board:
    """A Top 10 over one number of steps: (combination, its best run) pairs, best first."""

    steps: int
    entries: list[tuple[Combination, Scored]]


def top_boards(combinations: list[Combination], runs: list[Scored]) -> list[Board]:
    """Per number of steps asked, the combinations ranked by their best World score."""
    by_id = {c.id: c for c in combinations}
    best: dict[int, dict[int, Scored]] = {}
    for s in runs:
        if not s.ranked or s.run.combination_id not in by_id:
            continue
        steps = int(s.run.steps_asked or 0)
        group = best.setdefault(steps, {})
        held = group.get(s.run.combination_id)
        assert s.world_score is not None
        if held is None or s.world_score > (held.world_score or -math.inf) or (
                s.world_score == held.world_score and s.run.id < held.run.id):
            group[s.run.combination_id] = s
    boards = []
    for steps in sorted(best):
        ranked = sorted(best[steps].values(), key=lambda s: (-(s.world_score or 0.0), s.run.id))[:TOP]
        boards.append(Board(steps, [(by_id[s.run.combination_id], s) for s in ranked]))
    return boards


def best_of(runs: list[Scored]) -> dict[int, Scored]:
    """Each combination's best ranked run (any number of steps)."""
    best: dict[int, Scored] = {}
    for s in runs:
        if s.ranked:
            held = best.get(s.run.combination_id)
            if held is None or (s.world_score or 0.0) > (held.world_score or 0.0):
                best[s.run.combination_id] = s
    return best


# ---- the routes ------------------------------------------------------------------------------------


def _wants_yaml(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return any(t in accept for t in YAML_TYPES) and "text/html" not in accept


class Combinations:
    def __init__(self, portal: Portal) -> None:
        self.portal = portal

    @property
    def run_store(self) -> RunStore | None:
        return self.portal.run_store

    async def registry(self) -> Registry:
        return Registry(await self.portal.db(self.portal.store.servers))

    def compose_page(self, request: Request, draft: Draft, registry: Registry, *, status: int = 200,
                     message: str | None = None) -> Response:
        preview, missing = None, None
        try:
            preview = to_yaml(document_of(draft, registry))
        except DraftError as exc:
            missing = str(exc)
        world = view_of(draft.world, registry, "world", "The World", "world", 0)
        mind = view_of(draft.mind, registry, "mind", "The Mind", "mind", 0)
        return self.portal.page(request, "compose.html", status, draft=draft, world=world, mind=mind,
                                worlds=registry.of_role("world"), minds=registry.of_role("mind"),
                                preview=preview, missing=missing, message=message,
                                max_explanation=MAX_EXPLANATION)

    async def compose(self, request: Request) -> Response:
        registry = await self.registry()
        draft, message = Draft(), None
        source = request.query_params.get("from", "")
        if source:
            if not source.isdigit():
                return self._missing(request, f"there is no combination {source[:20]!r}")
            try:
                combination = await self.portal.db(self.portal.store.combination, int(source))
            except NotFound as exc:
                return self._missing(request, str(exc))
            draft, gone = draft_of(combination, registry)
            message = (f"Editing makes a new combination derived from “{combination.title}”; that one "
                       "stays as it is.")
            if gone:
                message += " Not registered any more, choose another: " + ", ".join(gone) + "."
        world = request.query_params.get("world", "")
        if world in registry.by_id and registry.by_id[world].role == "world":
            draft.world.server = world
        return self.compose_page(request, draft, registry, message=message)

    async def compose_post(self, request: Request, form: FormData) -> Response:
        registry = await self.registry()
        action = str(form.get("action") or "update")
        try:
            draft = draft_from_form(form)
        except DraftError as exc:
            return self.compose_page(request, Draft(), registry, status=400, message=str(exc))
        try:
            apply_action(draft, action)
        except DraftError as exc:
            return self.compose_page(request, draft, registry, status=400, message=str(exc))
        if action != "save":
            return self.compose_page(request, draft, registry)
        try:
            if not draft.title.strip():
                raise DraftError("give the combination a title")
            if len(draft.explanation) > MAX_EXPLANATION:
                raise DraftError(f"the explanation is {len(draft.explanation):,} characters; at most "
                                 f"{MAX_EXPLANATION:,}".replace(",", " "))
            derived = None
            if draft.derived_from.strip():
                if not draft.derived_from.strip().isdigit():
                    raise DraftError("the combination this one is derived from is not a number; reload the form")
                derived = int(draft.derived_from.strip())
            document = document_of(draft, registry)
            author = await self.portal.user_id(visitor_of(request))
            combination = await self.portal.db(
                self.portal.store.save_combination, author_id=author, title=draft.title, document=document,
                world_url=document["world"]["url"], explanation=draft.explanation, derived_from=derived)
        except PortalError as exc:
            return self.compose_page(request, draft, registry, status=400, message=str(exc))
        return RedirectResponse(f"/combination/{combination.id}", 303)

    def _missing(self, request: Request, text: str) -> Response:
        return self.portal.page(request, "message.html", 404, title="Not found", message=text)

    async def combination(self, request: Request) -> Response:
        combination_id = request.path_params["id"]
        store = self.portal.store
        try:
            combination = await self.portal.db(store.combination, combination_id)
        except NotFound as exc:
            return self._missing(request, str(exc))
        if _wants_yaml(request):
            return self.yaml_of(combination)
        registry, author, parent, children, history, found_by = await self.portal.db(self._read, combination)
        doc = combination.document if isinstance(combination.document, dict) else {}
        tree = {"world": tree_of(doc.get("world"), registry), "mind": tree_of(doc.get("mind"), registry)}
        gone = sorted(url for url in _urls(tree) if url not in registry.by_url)
        run = doc.get("run") if isinstance(doc.get("run"), dict) else {}
        steps = run.get("steps") if isinstance(run, dict) and isinstance(run.get("steps"), int) else DEFAULT_STEPS
        yaml_url = str(request.url_for("combination_yaml", id=combination.id))
        page = self.portal.page(request, "combination.html", combination=combination, author=author,
                                explanation=render_markdown(combination.explanation), tree=tree,
                                gone=gone, parent=parent, children=children, history=history,
                                best=best_of(history).get(combination.id), steps=steps,
                                yaml_url=yaml_url, world_server=registry.by_url.get(combination.world_url),
                                found_by=found_by)
        page.headers["vary"] = "Accept"        # the same URL answers YAML to wwm run
        return page

    def _read(self, combination: Combination) -> tuple[Registry, Any, Combination | None, list[Combination],
                                                       list[Scored], Any]:
        """What a combination's page shows besides the combination, read in one trip to a
        worker thread (under load each trip waits for a turn of the event loop and the GIL)."""
        store = self.portal.store
        registry = Registry(store.servers())
        author = store.user(combination.author_id)
        parent = None if combination.derived_from is None else store.combination(combination.derived_from)
        children = store.derived_from_this(combination.id)
        history = scored(store.runs_of(combination.id), self.run_store)
        return registry, author, parent, children, history, store.found_by(combination.id)

    def yaml_of(self, combination: Combination) -> Response:
        return Response(to_yaml(combination.document), media_type="application/yaml", headers={
            "content-disposition": f'inline; filename="combination-{combination.id}.yaml"', "vary": "Accept"})

    async def society_yaml(self, request: Request) -> Response:
        try:
            combination = await self.portal.db(self.portal.store.combination, request.path_params["id"])
        except NotFound as exc:
            return self._missing(request, str(exc))
        return self.yaml_of(combination)

    async def user_combination(self, request: Request) -> Response:
        """The seed's ``/user/<id>/combination/<id>``: the same page, at its canonical URL."""
        try:
            combination = await self.portal.db(self.portal.store.combination, request.path_params["id"])
        except NotFound as exc:
            return self._missing(request, str(exc))
        if combination.author_id != request.path_params["user"]:
            return self._missing(request, f"user {request.path_params['user']} has no combination "
                                          f"{combination.id}")
        return RedirectResponse(f"/combination/{combination.id}", 308)

    async def listing(self, request: Request) -> Response:
        registry = await self.registry()
        combinations = await self.portal.db(self.portal.store.recent_combinations, 500)
        runs = await self.portal.db(self.portal.store.runs_of_combinations, [c.id for c in combinations])
        best = best_of(await self.portal.db(scored, runs, self.run_store))
        groups: dict[str, list[Combination]] = {}
        for c in combinations:
            groups.setdefault(c.world_url, []).append(c)
        worlds = [(url, registry.by_url.get(url), found) for url, found in
                  sorted(groups.items(), key=lambda item: (registry.by_url[item[0]].name.lower()
                                                           if item[0] in registry.by_url else "~" + item[0]))]
        return self.portal.page(request, "combinations.html", worlds=worlds, best=best)

    async def world(self, request: Request) -> Response:
        try:
            server = await self.portal.db(self.portal.store.server, request.path_params["id"])
        except NotFound as exc:
            return self._missing(request, str(exc))
        if server.role != "world":
            return self._missing(request, f"server {server.id} ({server.name}) is a {server.role}, not a World")
        combinations = await self.portal.db(self.portal.store.combinations_of_world, server.url)
        runs = await self.portal.db(self.portal.store.runs_of_combinations, [c.id for c in combinations])
        history = await self.portal.db(scored, runs, self.run_store)
        by_id = {c.id: c for c in combinations}
        return self.portal.page(request, "world.html", server=server, combinations=combinations,
                                boards=top_boards(combinations, history), best=best_of(history),
                                recent=[(by_id[s.run.combination_id], s) for s in history[:20]])

    async def mine(self, user_id: int) -> dict[str, Any]:
        """What ``/me`` shows of a user's own: combinations and runs."""
        combinations = await self.portal.db(self.portal.store.combinations_by, user_id)
        runs = await self.portal.db(self.portal.store.runs_by, user_id)
        titles = {c.id: c.title for c in combinations}
        for run in runs:
            if run.combination_id not in titles:
                titles[run.combination_id] = (await self.portal.db(self.portal.store.combination,
                                                                   run.combination_id)).title
        return {"my_combinations": combinations, "my_runs": await self.portal.db(scored, runs, self.run_store),
                "titles": titles}

    async def best_scores(self, combinations: list[Combination]) -> dict[int, Scored]:
        """Each combination's best ranked run (for a server's page)."""
        runs = await self.portal.db(self.portal.store.runs_of_combinations, [c.id for c in combinations])
        return best_of(await self.portal.db(scored, runs, self.run_store))

    def routes(self) -> list[BaseRoute]:
        posted = self.portal.posted
        return [
            Route("/compose", self.compose, methods=["GET"]),
            Route("/compose", posted(self.compose_post), methods=["POST"]),
            Route("/combinations", self.listing, methods=["GET"]),
            Route("/combination/{id:int}", self.combination, methods=["GET"]),
            Route("/combination/{id:int}/society.yaml", self.society_yaml, methods=["GET"],
                  name="combination_yaml"),
            Route("/user/{user:int}/combination/{id:int}", self.user_combination, methods=["GET"]),
            Route("/world/{id:int}", self.world, methods=["GET"]),
        ]


def _urls(tree: dict[str, TreeNode | None]) -> set[str]:
    found: set[str] = set()

    def walk(node: TreeNode | None) -> None:
        if node is not None:
            found.add(node.url)
            for m in node.members:
                walk(m)

    for node in tree.values():
        walk(node)
    return found


def routes(portal: Portal) -> list[BaseRoute]:
    """The routes of compose, link and listings, on ``portal`` (mounted by :func:`.app.make_app`)."""
    return Combinations(portal).routes()
