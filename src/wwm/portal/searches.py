"""Searches on the portal (section 12.3: selection by machine, in the crowd's place). Every
search recorded with ``wwm search --portal-db`` is listed at ``/searches``, each with its
trials at ``/search/<id>`` (state, score, the combination each candidate was saved as).

A person with an account starts a search from any combination's page ("Search from here"):
the portal runs ``wwm search --from-combination`` on its own database as a separate process
(its members are the candidates; the AS methods, and strengths if asked, vary), one search at
a time, and its candidates appear as combinations derived from the one it started from. The
portal never imports the search: it runs the command, as a person would.

Under ``--public`` the servers of the combination are checked when the search is asked for
(a clear refusal on the page), and the search process runs under :mod:`.guarded`: every TCP
connection it makes, to any candidate's servers at any trial, is checked against the address
policy as it is made, the portal's own database excepted (its host and port).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy.engine import make_url
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..client.society import SocietyError, parse
from .combinations import Portal
from .fetching import FetchRefused, Policy, society_guard
from .store import NotFound
from .visitors import visitor_of

SAMPLERS = ("cmaes", "tpe", "random")
METHODS = ["w=q", "static-w", "max-collective-happiness", "most-popular", "random"]
MAX_TRIALS = 200


def database_endpoints(url: str) -> list[tuple[str, int]]:
    """The (host, port) pairs the portal's database is reached at over TCP (none for a file or
    a Unix socket): its host as named and each address the name resolves to now."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" or not parsed.host:
        return []
    port = parsed.port or 5432
    found = [(parsed.host, port)]
    with contextlib.suppress(OSError):
        found += [(str(info[4][0]), port) for info in socket.getaddrinfo(parsed.host, port, type=socket.SOCK_STREAM)]
    return list(dict.fromkeys(found))


class Searches:
    def __init__(self, portal: Portal, database_url: str) -> None:
        self.portal = portal
        self.database_url = database_url
        self.running: subprocess.Popen[bytes] | None = None
        self._folder = tempfile.TemporaryDirectory(prefix="wwm-portal-searches-")

    def close(self) -> None:
        if self.running is not None and self.running.poll() is None:
            self.running.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.running.wait(10)
        self._folder.cleanup()

    async def listing(self, request: Request, *, message: str | None = None, status: int = 200) -> Response:
        store = self.portal.store
        searches = await self.portal.db(store.searches)
        trials = {s.id: await self.portal.db(store.search_trials, s.id) for s in searches}
        return self.portal.page(request, "searches.html", status, searches=searches, trials=trials,
                                running=self.running is not None and self.running.poll() is None, message=message)

    async def page(self, request: Request) -> Response:
        store = self.portal.store
        try:
            search = await self.portal.db(store.search, request.path_params["id"])
        except NotFound as exc:
            return self.portal.page(request, "message.html", 404, title="Not found", message=str(exc))
        trials = await self.portal.db(store.search_trials, search.id)
        start = None
        if search.start_id is not None:
            with contextlib.suppress(NotFound):
                start = await self.portal.db(store.combination, search.start_id)
        done = [t for t in trials if t.state == "complete" and t.score is not None]
        best = max(done, key=lambda t: t.score or 0.0) if done else None
        return self.portal.page(request, "search.html", search=search, trials=trials, start=start, best=best)

    async def start(self, request: Request, form: FormData) -> Response:
        """Search from the combination of the page: its AS's members are the candidates."""
        store = self.portal.store
        combination_id = request.path_params["id"]
        try:
            combination = await self.portal.db(store.combination, combination_id)
        except NotFound as exc:
            return self.portal.page(request, "message.html", 404, title="Not found", message=str(exc))
        visitor = visitor_of(request)
        user = None if visitor.user_id is None else await self.portal.db(store.user, visitor.user_id)
        if user is None or user.username is None:
            return await self.listing(request, status=403, message="Starting a search takes an account: "
                                      "sign up or sign in first (a search runs many runs on other people's servers).")
        if self.running is not None and self.running.poll() is None:
            return await self.listing(request, status=409, message="A search is under way on this portal; "
                                      "start yours when it has finished.")
        try:
            trials = int(str(form.get("trials") or 30))
        except ValueError:
            trials = 0
        sampler = str(form.get("sampler") or "cmaes")
        if not 1 <= trials <= MAX_TRIALS or sampler not in SAMPLERS:
            return await self.listing(request, status=400, message=f"trials is 1 to {MAX_TRIALS} and the sampler "
                                      f"one of {', '.join(SAMPLERS)}")
        doc = combination.document if isinstance(combination.document, dict) else {}
        policy = getattr(self.portal, "policy", None)
        try:                # its servers, resolved now, under the portal's address policy
            if policy is not None:
                await society_guard(policy)(parse(doc, f"combination {combination.id}"))
        except (FetchRefused, SocietyError) as exc:
            return await self.listing(request, status=400, message=f"The search was not started: {exc}")
        members = ((doc.get("mind") or {}).get("args") or {}).get("minds")
        if not members:
            return await self.listing(request, status=400, message=f"combination {combination.id}'s mind has no "
                                      "member minds to search over: a search starts from an Action Selection society")
        choose: dict[str, Any] = {"methods": METHODS}
        if form.get("strengths"):
            choose["strengths"] = {"low": 0.1, "high": 10.0}
        study = f"portal: from combination {combination.id} ({user.username}, {secrets.token_hex(3)})"
        space = Path(self._folder.name) / f"{secrets.token_hex(6)}.yaml"
        space.write_text(yaml.safe_dump({"choose": choose}))
        command = [*self._runner(policy), "wwm.cli.main", "search", str(space), "--portal-db", self.database_url,
                   "--from-combination", str(combination.id), "--trials", str(trials), "--sampler", sampler,
                   "--study", study, "-q"]
        self.running = await asyncio.to_thread(subprocess.Popen, command, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL, start_new_session=True)
        return RedirectResponse("/searches", 303)

    def _runner(self, policy: Policy | None) -> list[str]:
        """How the search's command is run: as a module, under the address policy when public."""
        if policy is None or not policy.public:
            return [sys.executable, "-m"]
        command = [sys.executable, "-m", "wwm.portal.guarded"]
        for network in policy.allow:
            command += ["--allow", str(network)]
        for host, port in database_endpoints(self.database_url):
            command += ["--pass", f"{host}:{port}"]
        return [*command, "--", "-m"]

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/searches", self.listing, methods=["GET"]),
            Route("/search/{id:int}", self.page, methods=["GET"]),
            Route("/combination/{id:int}/search", self.portal.posted(self.start), methods=["POST"]),
        ]
