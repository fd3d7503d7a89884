"""From a sampler's trial to a society document: which candidates go in (``use.NAME``, 0 or
1), the AS method (``method``), each candidate's strength (``strength.NAME``) and every other
argument of ``choose.args`` (by its own name).

Every parameter is asked in every trial, used or not (a strength of a mind left out is
ignored), so the space is the same fixed box in every trial: CMA-ES and multivariate TPE
model it whole, and two trials compare parameter by parameter.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import optuna

from .space import Range, Space


@dataclass
class Proposal:
    """A society to evaluate: its document, the candidates in it, and the trial's parameters."""

    document: dict[str, Any]
    members: list[str]
    method: str
    params: dict[str, Any]

    @property
    def servers(self) -> int:
        """How many distinct servers a run of it calls (World, AS, members)."""
        from ..client.society import parse

        return len(set(parse(self.document).servers()))


class TooFewMembers(Exception):
    """The trial left in fewer members than ``choose.members.min``."""


def _suggest(trial: optuna.Trial, name: str, r: Range) -> Any:
    if r.choices is not None:
        return trial.suggest_categorical(name, r.choices)
    assert r.low is not None and r.high is not None
    if r.int_:
        return trial.suggest_int(name, int(r.low), int(r.high), log=r.log)
    return trial.suggest_float(name, r.low, r.high, log=r.log)


def propose(trial: optuna.Trial, space: Space) -> Proposal:
    """The society ``trial`` asks for; :class:`TooFewMembers` when it chose too few."""
    chosen = [c for c in space.candidates if trial.suggest_int(f"use.{c.name}", 0, 1)]
    methods = space.methods
    method = trial.suggest_categorical("method", methods) if len(methods) > 1 else methods[0]
    strengths: dict[str, float] = {}
    if space.choose.strengths is not None:
        for c in space.candidates:
            strengths[c.name] = float(_suggest(trial, f"strength.{c.name}", space.choose.strengths))
    extra = {key: _suggest(trial, key, r) for key, r in space.choose.args.items()}
    if len(chosen) < space.choose.members.min:
        raise TooFewMembers(f"{len(chosen)} members chosen, at least {space.choose.members.min} wanted")
    limit = space.choose.members.max
    if limit is not None and len(chosen) > limit:
        raise TooFewMembers(f"{len(chosen)} members chosen, at most {limit} wanted")
    return society_of(space, [c.name for c in chosen], method, strengths, extra, dict(trial.params))


def society_of(space: Space, members: list[str], method: str, strengths: dict[str, float] | None = None,
               extra: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> Proposal:
    """The society document with ``members`` (candidate names) under the AS, with ``method``."""
    by_name = {c.name: c for c in space.candidates}
    extra = extra or {}
    minds = []
    for name in members:
        spec = copy.deepcopy(by_name[name].spec)
        for key, value in extra.items():
            owner, dot, arg = key.rpartition(".")
            if dot and owner == name:
                spec.setdefault("args", {})[arg] = value
        minds.append(spec)
    doc = space.base.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)
    doc.setdefault("mind", {})
    as_args = doc["mind"].setdefault("args", {})
    as_args["minds"] = minds
    as_args["method"] = method
    as_args.pop("strengths", None)
    if strengths:
        as_args["strengths"] = [round(strengths[name], 6) for name in members]
    for key, value in extra.items():
        if "." not in key:
            as_args[key] = value
    doc["name"] = f"{space.name}: {method} over {', '.join(members)}"
    return Proposal(doc, list(members), method, params or {})
