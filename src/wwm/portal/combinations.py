"""Compose, link and list combinations (issue 14, items 3, 4, 7 and 10; issue 26, item 2;
section 12.2.1): the routes. The draft and its document are :mod:`.drafts`, the fields from a
server's argument schema :mod:`.fields`, the form's parts and the tree :mod:`.trees`, the
scores and Top 10s :mod:`.rankings`.

**Compose** (``/compose``) is one HTML form built from the registered servers' argument
schemas: a World with its arguments and a Mind with its own; a Mind whose schema takes
``minds`` (a Mind_AS, a Mind_M) gets a list of member minds, each with its arguments and, if
it takes minds too, members of its own, to any depth. Each argument is the control its schema
asks for (a list of choices with a sentence each, a number in its range, a checkbox), labelled
in words, the few that matter first and the rest under "Advanced". Without JavaScript every
button (choose, add, remove, move up or down) posts the whole form back and the page comes
back at the part changed (the button's ``formaction`` carries its ``#anchor``); with
``static/compose.js`` the same answer replaces the form in place. Beside the form the society
is drawn as a tree; the document (``{url, args}`` members under ``minds``) is under "YAML".

**Link** (``/combination/<id>``, canonical; ``/user/<author>/combination/<id>`` as the seed
sketches it redirects there): the title, the author's explanation (Markdown rendered by
markdown-it-py, then sanitised by nh3), the servers with their arguments as a tree, the
document (``/combination/<id>/society.yaml``, and the page itself answers YAML to a client
that asks for it, so ``wwm run <page URL>`` works), a Start run form, its runs with scores,
and its lineage. A combination never changes: no route here edits one; "Edit" opens the form
prefilled and saving makes a new combination ``derived_from`` the old.

**Listings**: all combinations by World (``/combinations``); a World's page (``/world/<id>``)
with its combinations, its recent runs and a Top 10 per number of steps asked (:mod:`.rankings`).
"""
from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .drafts import DEFAULT_STEPS, Draft, Registry, apply_action, document_of, draft_from_form, draft_of, to_yaml
from .fields import DraftError
from .models import Combination
from .rankings import FINISHED, Scored, best_of, scored, top_boards
from .store import NotFound, PortalError, PortalStore
from .trees import TreeNode, anchor, draft_tree, tree_of, view_of
from .visitors import Visitor, visitor_of

if TYPE_CHECKING:
    from ..store import RunStore

__all__ = ["FINISHED", "MAX_EXPLANATION", "Combinations", "Portal", "render_markdown", "routes"]

MAX_EXPLANATION = 20_000        # characters of Markdown
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
                     message: str | None = None, focus: str = "") -> Response:
        """The form for ``draft``, its tree and its document so far; ``focus`` is the path of
        the part just changed (the script moves the keyboard focus there)."""
        preview, missing = None, None
        try:
            preview = to_yaml(document_of(draft, registry))
        except DraftError as exc:
            missing = str(exc)
        world = view_of(draft.world, registry, "world", "The World", "world", 0)
        mind = view_of(draft.mind, registry, "mind", "The Mind", "mind", 0)
        return self.portal.page(request, "compose.html", status, draft=draft, world=world, mind=mind,
                                worlds=registry.of_role("world"), minds=registry.of_role("mind"),
                                tree=[draft_tree(world), draft_tree(mind)], preview=preview, missing=missing,
                                message=message, max_explanation=MAX_EXPLANATION,
                                focus=anchor(focus) if focus else "")

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
            focus = apply_action(draft, action)
        except DraftError as exc:
            return self.compose_page(request, draft, registry, status=400, message=str(exc))
        if action != "save":
            return self.compose_page(request, draft, registry, focus=focus)
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
        tree = {"world": tree_of(doc.get("world"), registry, "World"),
                "mind": tree_of(doc.get("mind"), registry, "Mind")}
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
