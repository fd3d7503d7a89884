"""``wwm search SPACE.yaml``: an automated search over societies (10.10), with a progress bar,
a table of the best, the winning society saved as a document, and plots."""

from __future__ import annotations

import argparse
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .engine import SAMPLERS

    parser.add_argument("space", nargs="?", help="the search space document (YAML); see docs/howto/search.md")
    parser.add_argument("--trials", type=int, default=50,
                        help="the study's budget of trials, shared by all its workers (default 50)")
    parser.add_argument("--sampler", default="cmaes", choices=SAMPLERS,
                        help="how candidates are proposed (default cmaes; nsga2 for the objectives [score, servers])")
    parser.add_argument("--seed", type=int, help="the sampler's seed, for a search that can be repeated")
    parser.add_argument("--parallel", type=int, default=2,
                        help="evaluations under way at once in this worker (default 2)")
    parser.add_argument("--storage", metavar="URL",
                        help="a database for the study (sqlite:///FILE or postgresql://...), so that several "
                             "workers share it and a search can be resumed")
    parser.add_argument("--study", help="the study's name in --storage (default: the space's name)")
    parser.add_argument("--no-prune", action="store_true", help="run every candidate to the end")
    parser.add_argument("--check-every", type=int, default=10,
                        help="steps between two looks at a running candidate, for pruning (default 10)")
    parser.add_argument("--worker", type=int, default=0, help="this worker's number (varies the sampler's seed)")
    parser.add_argument("--portal-db", metavar="URL",
                        help="record every candidate as a combination in this portal database, with its runs")
    parser.add_argument("--from-combination", type=int, metavar="ID",
                        help="start from this public combination of --portal-db (its AS members are candidates)")
    parser.add_argument("--best", metavar="YAML", help="save the best society found as a document here")
    parser.add_argument("--plot", metavar="PNG", help="save a plot of the score by trial here")
    parser.add_argument("--importances", metavar="PNG", help="save a plot of the parameters' importances here")
    parser.add_argument("--json", action="store_true", help="print every trial as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json

    import yaml
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..commands import fail, interrupted
    from ..selection.command import _check_output
    from .engine import Search, SearchError, SearchSettings, TrialDone
    from .report import as_dict, best_table, plot_history, plot_importances, ranked
    from .space import SpaceError, load_space, preflight

    console = Console(stderr=args.json)
    try:
        for option in ("best", "plot", "importances"):
            _check_output(f"--{option}", getattr(args, option))
        if args.from_combination is not None:
            if not args.portal_db:
                raise SpaceError("--from-combination needs --portal-db (the portal's database)")
            from .lineage import space_from_combination

            extra: dict[str, Any] = {}
            if args.space:
                with open(args.space) as text:
                    extra = yaml.safe_load(text) or {}
            space = space_from_combination(args.portal_db, args.from_combination, extra)
        elif args.space:
            space = load_space(args.space)
        else:
            raise SpaceError("give a search space document, or --from-combination ID with --portal-db")
        for warning in asyncio.run(preflight(space)):
            console.print(f"wwm search: {warning}", soft_wrap=True, markup=False)
        settings = SearchSettings(trials=args.trials, sampler=args.sampler, seed=args.seed, parallel=args.parallel,
                                  storage=args.storage, study=args.study, prune=not args.no_prune,
                                  check_every=args.check_every, worker=args.worker)
        recorder_for = None
        lineage = None
        if args.portal_db:
            from .lineage import Lineage

            lineage = Lineage(args.portal_db, space, settings, start=args.from_combination)
            recorder_for = lineage.recorder_for
        search = Search(space, settings, recorder_for=recorder_for)
    except (SpaceError, SearchError, ValueError, OSError) as exc:
        return fail("search", str(exc), 2)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.quiet) as bar:
        task = bar.add_task("searching", total=settings.trials)
        best = [float("-inf")]

        def on_trial(done: TrialDone) -> None:
            if lineage is not None:
                lineage.record(done)
            if done.values:
                best[0] = max(best[0], done.values[0])
            shown = f"best {best[0]:.1f}" if best[0] > float("-inf") else "no complete trial yet"
            bar.update(task, completed=min(settings.trials, len(search.study.trials)),
                       description=f"trial {done.number} {done.state}: {shown}")
            if done.state == "failed" and not args.quiet:
                console.print(f"trial {done.number} failed: {done.reason}", soft_wrap=True, markup=False)

        search.on_trial = on_trial
        try:
            outcome = asyncio.run(search.run())
        except KeyboardInterrupt:
            return interrupted("search", "the study keeps the trials that finished" if args.storage
                               else "no study storage: nothing kept (use --storage to resume)")
    study = outcome.study
    console.print(best_table(study, space))
    top = ranked(study)
    if not top:
        return fail("search", "no candidate completed a run: see the failed trials' reasons above", 1)
    if args.best:
        with open(args.best, "w") as out:
            yaml.safe_dump(top[0].user_attrs["society"], out, sort_keys=False)
        console.print(f"the best society saved to {args.best} (wwm run {args.best})", soft_wrap=True)
    if args.plot:
        console.print(f"plot saved to {plot_history(study, args.plot, space.name)}", soft_wrap=True)
    if args.importances:
        saved = plot_importances(study, args.importances)
        console.print(f"importances saved to {saved}" if saved else "too few trials to tell importances",
                      soft_wrap=True)
    if lineage is not None:
        lineage.close()
        console.print(f"{lineage.recorded} candidates recorded in the portal as combinations "
                      f"(search {lineage.search_id})", soft_wrap=True)
    if args.json:
        print(json.dumps(as_dict(study, space), indent=2, default=str))
    return 0
