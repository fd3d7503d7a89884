"""Challenges (section 12.3, artificial selection by crowd): a World on the portal hosts a
competition with fixed steps, fixed seeds and a deadline, and the Λ* test is offered the same
way. Entries are combinations (a society for the World) or, for the Λ* test, one or more mind
URLs that sit it together. The portal judges every entry itself: it runs each one once per
seed through its own run service (so each run is watchable and recorded like any portal run),
takes the score the World reported, and keeps every evaluation. A client's claim is never
read. An entry whose mind hangs or errs is marked with the reason and ranks below the scored
ones; it never stops the judging of the others.

The judge runs in the portal's process, ``parallel`` entries at a time; entries a stopped
portal left queued or half judged are judged again (afresh) when it starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import math
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..client.society import SocietyError, parse
from ..store import RunDetail, RunStore
from . import look
from .combinations import FINISHED, Portal
from .fetching import Policy, check_url
from .models import Challenge, Entry
from .runs import RunService
from .store import NotFound, PortalError, PortalStore
from .visitors import visitor_of

Judged = tuple[str, float | None, float | None, dict[str, Any]]   # status, mean score, its standard error, details

KINDS = {"society": "a competition: entries are combinations in this World",
         "lambdastar": "the Λ* test: entries are mind URLs (several sit it together)"}
LAMBDASTAR_WORLD = "wwm:lambdastar"   # the Λ* test's world: made by the portal for each sitting
MAX_SEEDS = 20
MAX_MINDS = 8
DEFAULTS = {"timeout": 5.0, "mind_wait": 10.0}


class ChallengeError(PortalError):
    """A challenge or an entry that cannot be made; the text says what to fix."""


@dataclass
class Ranked:
    entry: Entry
    rank: int | None          # None: not scored (failed, or still being judged)


def ranking(entries: list[Entry]) -> list[Ranked]:
    """Scored entries best first (ties: the earlier entry), then the others in entry order."""
    scored = sorted((e for e in entries if e.status == "scored" and e.score is not None),
                    key=lambda e: (-(e.score or 0.0), e.id))
    rest = [e for e in entries if not (e.status == "scored" and e.score is not None)]
    return [Ranked(e, k + 1) for k, e in enumerate(scored)] + [Ranked(e, None) for e in rest]


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise ChallengeError(f"seeds are whole numbers separated by commas, not {text[:40]!r}") from None
    if not 1 <= len(seeds) <= MAX_SEEDS:
        raise ChallengeError(f"give 1 to {MAX_SEEDS} seeds")
    if len(set(seeds)) != len(seeds):
        raise ChallengeError("each seed once")
    return seeds


def parse_deadline(text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ChallengeError(f"the deadline is a date and time such as 2026-12-31 18:00 (UTC), not {text[:40]!r}") \
            from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def lambdastar_settings(form: FormData, episodes: int) -> dict[str, Any]:
    """The Λ* test's own settings from the form (grid: a side or ROWSxCOLUMNS, iterations,
    profile), checked."""
    from ..lambdastar.profiles import PROFILES
    from ..lambdastar.service import check
    from ..lambdastar.torus import grid_arg

    try:
        grid = grid_arg(str(form.get("grid") or 10))
    except ValueError as exc:
        raise ChallengeError(str(exc)) from None
    try:
        iterations = int(str(form.get("iterations") or 100))
    except ValueError:
        raise ChallengeError("iterations is a whole number") from None
    profile = str(form.get("profile") or "paper")
    hints = str(form.get("oracle_hints", "")) in ("on", "true", "1")
    if episodes > 10_000 or iterations > 10_000:
        raise ChallengeError("at most 10000 episodes and 10000 iterations")
    try:
        check(["http://mind/"], dict(grid=grid, iterations=iterations, episodes=episodes, profile=profile, seed=0,
                                     observation_range=1, coordination=False, oracle_hints=False))
    except ValueError as exc:
        raise ChallengeError(f"{exc} (profiles: {', '.join(PROFILES)})") from None
    return {"grid": grid, "iterations": iterations, "profile": profile, "oracle_hints": hints}


def is_open(challenge: Challenge, at: datetime | None = None) -> bool:
    at = at or datetime.now(UTC)
    return challenge.deadline is None or at < challenge.deadline


def mean_and_error(scores: list[float]) -> tuple[float, float]:
    """The mean and its standard error (0 for one score)."""
    mean = statistics.fmean(scores)
    return mean, (statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else 0.0)


class Judge:
    """Judges entries: each a task, ``parallel`` at a time, in the portal's event loop."""

    def __init__(self, store: PortalStore, service: RunService, parallel: int = 2) -> None:
        self.store = store
        self.service = service
        self.run_store: RunStore = service.store
        self._slots = asyncio.Semaphore(parallel)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.policy: Policy | None = None     # the portal's address policy, checked again before judging

    def submit(self, entry_id: int) -> None:
        if entry_id not in self._tasks or self._tasks[entry_id].done():
            self._tasks[entry_id] = asyncio.create_task(self._judge(entry_id), name=f"wwm-judge-{entry_id}")

    async def recover(self) -> int:
        """Judge again what a stopped portal left unfinished; how many entries."""
        left = await asyncio.to_thread(self.store.unfinished_entries)
        for entry in left:
            await asyncio.to_thread(self.store.clear_evaluations, entry.id)
            self.submit(entry.id)
        return len(left)

    async def wait(self, entry_id: int) -> str:
        task = self._tasks.get(entry_id)
        if task is not None:
            await asyncio.shield(task)
        return (await asyncio.to_thread(self.store.entry, entry_id)).status

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _judge(self, entry_id: int) -> None:
        async with self._slots:
            entry = await asyncio.to_thread(self.store.entry, entry_id)
            challenge = await asyncio.to_thread(self.store.challenge, entry.challenge_id)
            await asyncio.to_thread(self.store.set_entry, entry_id, status="running")
            try:
                if challenge.kind == "lambdastar":
                    status, score, error, detail = await self._lambdastar(challenge, entry)
                else:
                    status, score, error, detail = await self._society(challenge, entry)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a judge's own failure is the entry's record, not the portal's crash
                status, score, error, detail = f"failed: {type(exc).__name__}", None, None, {"reason": str(exc)}
            await asyncio.to_thread(self.store.set_entry, entry_id, status=status, score=score, error=error,
                                    detail=detail, finished=True)

    # -- a society in the challenge's World ---------------------------------------------------

    def document_for(self, challenge: Challenge, document: dict[str, Any], seed: int) -> dict[str, Any]:
        """The entry's society as the portal runs it: the challenge's World and seed, steps and time-outs."""
        doc = copy.deepcopy(document)
        doc["world"] = {**doc.get("world", {}), "url": challenge.world_url}
        doc["world"].pop("class", None)
        doc["world"].setdefault("args", {})[challenge.settings.get("seed_arg", "seed")] = seed
        settings = challenge.settings
        doc["run"] = {"steps": challenge.steps, "timeout": settings.get("timeout", DEFAULTS["timeout"]),
                      "mind_wait": settings.get("mind_wait", DEFAULTS["mind_wait"]), "start_wait": 2.0,
                      "mind_errors": 3}
        return doc

    async def _society(self, challenge: Challenge, entry: Entry) -> Judged:
        assert entry.combination_id is not None
        combination = await asyncio.to_thread(self.store.combination, entry.combination_id)
        scores: list[float] = []
        for seed in challenge.seeds:
            doc = self.document_for(challenge, combination.document, seed)
            # a portal run of the entrant's, so that the run has a page (/run/N) like any other
            portal_run = await asyncio.to_thread(self.store.new_run, combination.id, entry.user_id, challenge.steps)
            try:
                started = await self.service.start(parse(doc, f"combination {combination.id}"), steps=challenge.steps,
                                                   owner=f"challenge:{challenge.id}")
            except SocietyError as exc:
                await asyncio.to_thread(self.store.set_run, portal_run.id, status="could not start", ended=True)
                await asyncio.to_thread(self.store.add_evaluation, entry.id, seed=seed, status="could not start",
                                        score=None, reason=str(exc))
                return "failed: could not start", None, None, {"reason": str(exc)}
            await asyncio.to_thread(self.store.link_run, portal_run.id, started.run_id)
            await self.service.wait(started.run_id)
            run = await asyncio.to_thread(self.run_store.get_run, started.run_id, max_steps=0)
            ok = run.status in FINISHED and run.world_score is not None and math.isfinite(run.world_score)
            reason = "" if ok else _why(run)
            await asyncio.to_thread(self.store.add_evaluation, entry.id, seed=seed, status=run.status,
                                    score=run.world_score, run_store_id=started.run_id, reason=reason)
            if not ok:
                return f"failed: {run.status}", None, None, {"reason": reason, "seed": seed, "run": started.run_id}
            scores.append(float(run.world_score))  # type: ignore[arg-type]
        mean, error = mean_and_error(scores)
        return "scored", mean, error, {"scores": scores}

    # -- the Λ* test ------------------------------------------------------------------------------

    async def _lambdastar(self, challenge: Challenge, entry: Entry) -> Judged:
        """The Λ* test, once per seed, in a Λ* world held in this process: Υ over every
        episode of every seed, its standard error, and Υ per band of complexity K."""
        import numpy as np

        from ..lambdastar.battery import bands as k_bands
        from ..lambdastar.service import administer_test  # a declared use: the portal offers the test

        minds = list(entry.minds or [])
        settings = challenge.settings
        scores: list[np.ndarray] = []
        complexity: list[np.ndarray] = []
        per_seed: list[dict[str, Any]] = []
        for seed in challenge.seeds:
            try:
                for mind in minds if self.policy is not None else []:   # re-pointed since it entered?
                    await check_url(mind, self.policy)  # type: ignore[arg-type]
                result = await administer_test(
                    minds, grid=settings.get("grid", 10), iterations=int(settings.get("iterations", 100)),
                    episodes=challenge.steps, profile=str(settings.get("profile", "paper")), seed=seed,
                    oracle_hints=bool(settings.get("oracle_hints", False)),
                    timeout=float(settings.get("timeout", DEFAULTS["timeout"])))
            except Exception as exc:   # a world that cannot be set up: the entry's record
                reason = _text(exc)
                await asyncio.to_thread(self.store.add_evaluation, entry.id, seed=seed, status="failed",
                                        score=None, reason=reason)
                return "failed: error", None, None, {"reason": reason, "seed": seed}
            if result.failures:
                reason = "; ".join(str(f) for f in result.failures)
                timed_out = any("time" in f.reason.lower() or "did not answer" in f.reason for f in result.failures)
                await asyncio.to_thread(self.store.add_evaluation, entry.id, seed=seed, status="failed",
                                        score=None, reason=reason)
                return "failed: " + ("timed out" if timed_out else "error"), None, None, \
                    {"reason": reason, "seed": seed, "partial": result.as_dict()}
            scores.append(result.scores)
            complexity.append(result.complexity)
            per_seed.append({"seed": seed, "upsilon": result.upsilon,
                             "per_mind": [float(x) for x in result.per_mind.mean(axis=0)]})
            await asyncio.to_thread(self.store.add_evaluation, entry.id, seed=seed, status="completed",
                                    score=result.upsilon)
        all_scores, all_k = np.concatenate(scores), np.concatenate(complexity)
        bands = []
        for lo, hi in k_bands(int(all_k.min()), int(all_k.max()), int(settings.get("bins", 4))):
            sel = all_scores[(all_k >= lo) & (all_k <= hi)]
            if len(sel):
                bands.append({"k_min": lo, "k_max": hi, "episodes": len(sel), "upsilon": float(sel.mean()),
                              "stderr": float(sel.std(ddof=1) / np.sqrt(len(sel))) if len(sel) > 1 else None})
        mean, error = mean_and_error([float(x) for x in all_scores])
        return "scored", mean, error, {"agents": len(minds), "episodes": len(all_scores), "seeds": per_seed,
                                       "bands": bands, "profile": str(settings.get("profile", "paper"))}


def _text(exc: BaseException) -> str:
    text = getattr(exc, "text", None) or str(exc) or type(exc).__name__
    code = getattr(exc, "code", None)
    return f"{code}: {text}" if code else text


def _why(run: RunDetail) -> str:
    ended = [e.text for e in run.events if e.kind in ("run-ended", "mind-error", "timeout", "could-not-start")]
    return ended[-1] if ended else run.status


# ---- pages ---------------------------------------------------------------------------------------


class Challenges:
    def __init__(self, portal: Portal, judge: Judge) -> None:
        self.portal = portal
        self.judge = judge

    def _missing(self, request: Request, text: str) -> Response:
        return self.portal.page(request, "message.html", 404, title="Not found", message=text)

    async def listing(self, request: Request, *, message: str | None = None, status: int = 200) -> Response:
        store = self.portal.store
        challenges = await self.portal.db(store.challenges)
        worlds = await self.portal.db(store.worlds)
        return self.portal.page(request, "challenges.html", status, challenges=challenges, worlds=worlds,
                                kinds=KINDS, now=datetime.now(UTC), is_open=is_open, message=message)

    async def create(self, request: Request, form: FormData) -> Response:
        store = self.portal.store
        try:
            kind = str(form.get("kind", "society"))
            if kind not in KINDS:
                raise ChallengeError(f"kind is one of {', '.join(KINDS)}")
            title = str(form.get("title", "")).strip()
            if not title:
                raise ChallengeError("a challenge needs a title")
            world_url = LAMBDASTAR_WORLD
            if kind == "society":
                try:
                    world = await self.portal.db(store.server, int(str(form.get("world", ""))))
                except (ValueError, NotFound):
                    raise ChallengeError("choose a World registered on this portal") from None
                if world.role != "world":
                    raise ChallengeError(f"{world.name} is a {world.role}, not a World")
                world_url = world.url
            try:
                steps = int(str(form.get("steps", "100")))
            except ValueError:
                raise ChallengeError("steps is a whole number") from None
            if not 1 <= steps <= 100_000:
                raise ChallengeError("steps is between 1 and 100000")
            seeds = parse_seeds(str(form.get("seeds", "0")))
            deadline = parse_deadline(str(form.get("deadline", "")))
            try:
                timeout = float(str(form.get("timeout", DEFAULTS["timeout"])))
            except ValueError:
                raise ChallengeError("the time-out is a number of seconds") from None
            if not 0.1 <= timeout <= 60:
                raise ChallengeError("the time-out is between 0.1 and 60 seconds")
        except ChallengeError as exc:
            return await self.listing(request, message=str(exc), status=400)
        user = await self.portal.user_id(visitor_of(request))
        settings: dict[str, Any] = {"timeout": timeout, "mind_wait": max(2 * timeout, 4.0)}
        if kind == "lambdastar":
            try:
                settings |= lambdastar_settings(form, steps)
            except ChallengeError as exc:
                return await self.listing(request, message=str(exc), status=400)
        challenge = await self.portal.db(lambda: store.new_challenge(
            kind=kind, title=title, world_url=world_url, steps=steps, seeds=seeds, settings=settings,
            created_by=user, deadline=deadline))
        return RedirectResponse(look.done(f"/challenge/{challenge.id}", "challenge-opened"), 303)

    async def page(self, request: Request, *, message: str | None = None, status: int = 200) -> Response:
        store = self.portal.store
        try:
            challenge = await self.portal.db(store.challenge, request.path_params["id"])
        except NotFound as exc:
            return self._missing(request, str(exc))
        entries = await self.portal.db(store.entries, challenge.id)
        evaluations = {e.id: await self.portal.db(store.evaluations, e.id) for e in entries}
        titles = {}
        for e in entries:
            if e.combination_id is not None:
                with contextlib.suppress(NotFound):
                    titles[e.combination_id] = (await self.portal.db(store.combination, e.combination_id)).title
        combinations = await self.portal.db(store.combinations_of_world, challenge.world_url) \
            if challenge.kind == "society" else []
        run_ids = [v.run_store_id for found in evaluations.values() for v in found if v.run_store_id is not None]
        pages = await self.portal.db(store.runs_for_store_ids, run_ids)   # run store ID -> portal run (/run/N)
        world = (await self.portal.db(store.server_by_url, challenge.world_url)
                 if challenge.kind == "society" else None)
        return self.portal.page(request, "challenge.html", status, challenge=challenge, board=ranking(entries),
                                evaluations=evaluations, titles=titles, combinations=combinations, run_pages=pages,
                                world=world, open=is_open(challenge), kinds=KINDS, message=message)

    async def enter(self, request: Request, form: FormData) -> Response:
        store = self.portal.store
        try:
            challenge = await self.portal.db(store.challenge, request.path_params["id"])
        except NotFound as exc:
            return self._missing(request, str(exc))
        if not is_open(challenge):
            return await self.page(request, message="This challenge closed at its deadline; no more entries.",
                                   status=403)
        user = await self.portal.user_id(visitor_of(request))
        try:
            if challenge.kind == "society":
                try:
                    combination_id = int(str(form.get("combination", "")))
                    combination = await self.portal.db(store.combination, combination_id)
                except (ValueError, NotFound):
                    raise ChallengeError("choose a combination saved on this portal") from None
                if combination.world_url != challenge.world_url:
                    raise ChallengeError(f"combination {combination.id} is for another World; "
                                         "an entry runs in the challenge's World")
                entry = await self.portal.db(lambda: store.new_entry(challenge.id, user, combination_id=combination.id))
            else:
                minds = [line.strip() for line in str(form.get("minds", "")).splitlines() if line.strip()]
                if not 1 <= len(minds) <= MAX_MINDS:
                    raise ChallengeError(f"give 1 to {MAX_MINDS} mind URLs, one per line")
                bad = [m for m in minds if not m.startswith(("http://", "https://")) or len(m) > 2000]
                if bad:
                    raise ChallengeError(f"not a URL: {bad[0][:80]}")
                await self._check_minds(minds)
                entry = await self.portal.db(lambda: store.new_entry(challenge.id, user, minds=minds))
        except ChallengeError as exc:
            return await self.page(request, message=str(exc), status=400)
        self.judge.submit(entry.id)
        return RedirectResponse(look.done(f"/challenge/{challenge.id}#entry-{entry.id}", "entered"), 303)

    async def _check_minds(self, minds: list[str]) -> None:
        """Each URL must show a Mind's card, fetched under the portal's policy (no private
        addresses on a public portal), as when a server is registered."""
        from .cards import read_card, tidy_url
        from .fetching import FetchError

        policy = getattr(self.portal, "policy", None)
        for url in minds:
            try:
                card = await read_card(tidy_url(url), policy)  # type: ignore[arg-type]
            except FetchError as exc:
                raise ChallengeError(f"{url}: {exc}") from None
            if card.card.get("role") != "mind":
                raise ChallengeError(f"{url} is a {card.card.get('role')}, not a Mind")

    def routes(self) -> list[BaseRoute]:
        posted = self.portal.posted
        return [
            Route("/challenges", self.listing, methods=["GET"]),
            Route("/challenges", posted(self.create), methods=["POST"]),
            Route("/challenge/{id:int}", self.page, methods=["GET"]),
            Route("/challenge/{id:int}/entries", posted(self.enter), methods=["POST"]),
        ]
