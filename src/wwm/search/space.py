"""The search space: a YAML document beside a society document, saying what a search may
change (10.10 "automated search").

A space starts from a society whose top Mind is an Action Selection server (its World, its AS
and the AS's own arguments, its run settings): a society document by path (``society:``), or
``world`` and ``mind`` written in the space itself. The AS's members in that society are
candidates, and ``minds`` adds more. Then ``choose`` says what varies::

    name: Find the society for the Signal World
    society: signal.yaml               # or world: {...} and mind: {...} here
    minds:                             # more candidates, by name (a URL, or {url, args})
      specialist-ab: {url: "http://127.0.0.1:8003/", args: {knows: "a,b"}}
      saboteur: "http://127.0.0.1:8004/"
    choose:
      members: {min: 1, max: 8}        # which candidates go in (every subset by default)
      methods: [w=q, static-w, most-popular, random]   # the AS method (default: the society's)
      strengths: {low: 0.1, high: 10}  # each member's strength (10.10), log scale; omit: none
      args:                            # any further argument, of the AS or of a member (name.arg)
        q_temperature: {low: 0.01, high: 1.0, log: true}
        period: {low: 1, high: 20, int: true}
        specialist-ab.q: {choices: [0.5, 1.0, 2.0]}
    seeds: [0, 1, 2]                   # each candidate runs once per seed (the World's seed_arg)
    seed_arg: seed
    objectives: [score]                # or [score, servers]: fewer servers called is better
    run: {steps: 100, timeout: 2.0}    # overrides the society's run settings

The document is checked when read; an error names the field that is wrong.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..client.society import ServerSpec, Society, SocietyError, parse
from ..selection.methods import method_class


class SpaceError(ValueError):
    """A search space that cannot be used, with the reason."""


class Members(BaseModel):
    model_config = ConfigDict(extra="forbid")
    min: int = Field(default=1, ge=1)
    max: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _order(self) -> Members:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self


class Range(BaseModel):
    """A number between ``low`` and ``high`` (``log`` scale, ``int`` steps), or one of ``choices``."""

    model_config = ConfigDict(extra="forbid")
    low: float | None = None
    high: float | None = None
    log: bool = False
    int_: bool = Field(default=False, alias="int")
    choices: list[Any] | None = None

    @model_validator(mode="after")
    def _shape(self) -> Range:
        if self.choices is not None:
            if self.low is not None or self.high is not None:
                raise ValueError("give either choices or low and high, not both")
            if not self.choices:
                raise ValueError("choices is empty")
            if not all(isinstance(c, str | int | float | bool) or c is None for c in self.choices):
                raise ValueError("choices must be numbers, text, true/false or null")
            return self
        if self.low is None or self.high is None:
            raise ValueError("give low and high (or choices)")
        if self.high <= self.low:
            raise ValueError(f"high ({self.high}) must be above low ({self.low})")
        if self.log and self.low <= 0:
            raise ValueError("a log scale needs low above 0")
        return self


class Choose(BaseModel):
    model_config = ConfigDict(extra="forbid")
    members: Members = Field(default_factory=Members)
    methods: list[str] | None = None
    strengths: Range | None = None
    args: dict[str, Range] = Field(default_factory=dict)

    @field_validator("methods")
    @classmethod
    def _methods(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("methods is empty; leave it out to keep the society's method")
        try:
            return list(dict.fromkeys(method_class(m).name for m in value))
        except (KeyError, ValueError) as exc:
            raise ValueError(str(exc).strip("'\"")) from None

    @field_validator("strengths")
    @classmethod
    def _strengths(cls, value: Range | None) -> Range | None:
        if value is not None and (value.choices is not None or (value.low or 0) <= 0):
            raise ValueError("strengths is a range with low above 0 (10.10: a strength c > 0)")
        return value


class SpaceDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "search"
    description: str = ""
    society: str | None = None
    world: dict[str, Any] | None = None
    worlds: list[dict[str, Any]] = Field(default_factory=list)
    mind: dict[str, Any] | None = None
    minds: dict[str, str | dict[str, Any]] = Field(default_factory=dict)
    choose: Choose = Field(default_factory=Choose)
    seeds: list[int] = Field(default_factory=list)
    seed_arg: str = "seed"
    objectives: list[Literal["score", "servers"]] = Field(default_factory=lambda: ["score"])  # type: ignore[arg-type]
    run: dict[str, Any] = Field(default_factory=dict)

    @field_validator("objectives")
    @classmethod
    def _objectives(cls, value: list[str]) -> list[str]:
        if not value or value[0] != "score" or len(set(value)) != len(value):
            raise ValueError("objectives is [score] or [score, servers]")
        return value


@dataclass(frozen=True)
class Candidate:
    """A mind a search may put in the society: its name and its server spec."""

    name: str
    spec: dict[str, Any]    # {url: ...} or {class: ...}, with args

    @property
    def url(self) -> str | None:
        return self.spec.get("url")


@dataclass
class Space:
    """A checked search space: the base society, the candidates and what varies."""

    name: str
    base: Society                  # its mind is the AS; its members are replaced per candidate
    candidates: list[Candidate]
    choose: Choose
    seeds: list[int | None]
    seed_arg: str
    objectives: list[str]
    source: str = "space"
    worlds: list[dict[str, Any]] = field(default_factory=list)   # a battery: each candidate runs in each

    @property
    def battery(self) -> list[dict[str, Any]]:
        """The Worlds a candidate runs in (the base society's alone, without a battery)."""
        return self.worlds or [self.base.world.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)]

    @property
    def methods(self) -> list[str]:
        return self.choose.methods or [str(self.base.mind.args.get("method", "w=q"))]

    @property
    def multi_objective(self) -> bool:
        return len(self.objectives) > 1

    def as_dict(self) -> dict[str, Any]:
        """The space as a document again (kept with a study, so every worker reads the same)."""
        return {"name": self.name, "world": self.base.world.model_dump(by_alias=True, exclude_none=True),
                "mind": self.base.mind.model_dump(by_alias=True, exclude_none=True),
                "minds": {c.name: c.spec for c in self.candidates},
                "choose": self.choose.model_dump(by_alias=True, exclude_none=True),
                "seeds": self.seeds, "seed_arg": self.seed_arg, "objectives": self.objectives,
                "run": self.base.run.model_dump(), "worlds": self.worlds}


async def preflight(space: Space) -> list[str]:
    """Before a search: the World(s) and the AS must answer with a card of the right role (a
    :class:`SpaceError` says which does not, rather than every trial failing alike); a
    candidate that does not answer is only reported (its trials fail, and a search learns to
    leave it out). Local classes are not checked here."""
    from ..client.cards import fetch_card
    from ..protocol.errors import Refusal

    async def role(url: str) -> str | None:
        try:
            return str((await fetch_card(url)).get("role"))
        except Refusal:
            return None

    needed = [(w.get("url"), "world", "the World") for w in space.battery] + [
        (space.base.mind.url, "mind", "the Action Selection server")]
    for url, wanted, what in needed:
        if url is None:
            continue
        found = await role(url)
        if found is None:
            raise SpaceError(f"{space.source}: {what} at {url} does not answer; start it, or correct its URL")
        if found != wanted:
            raise SpaceError(f"{space.source}: {what} at {url} is a {found} server, not a {wanted}")
    warnings = []
    for c in space.candidates:
        if c.url is not None and await role(c.url) is None:
            warnings.append(f"candidate {c.name} at {c.url} does not answer: its societies will fail")
    return warnings


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'document'}: {e['msg']}" for e in exc.errors())


def _name_of(spec: dict[str, Any], taken: set[str]) -> str:
    """A short name for a candidate: its ``name`` argument, else its URL's host:port (or class)."""
    raw = str(spec.get("name") or spec.get("url") or spec.get("class") or "mind")
    raw = raw.split("://", 1)[-1].rstrip("/").replace("/", "_")
    name, k = raw, 2
    while name in taken:
        name, k = f"{raw}#{k}", k + 1
    return name


def _as_spec(value: str | dict[str, Any], where: str) -> dict[str, Any]:
    spec = {"url": value} if isinstance(value, str) else dict(value)
    spec.pop("name", None)
    try:
        return ServerSpec.model_validate(spec).model_dump(by_alias=True, exclude_none=True,
                                                          exclude_defaults=True) | {"args": spec.get("args", {})}
    except ValidationError as exc:
        raise SpaceError(f"{where}: {_problems(exc)}") from None


def build(doc: Any, source: str = "space", base_dir: Path | None = None,
          base: Society | None = None) -> Space:
    """A :class:`Space` from a parsed document (``base``: the society to start from, such as a
    portal combination's, instead of the document's own)."""
    if not isinstance(doc, dict):
        raise SpaceError(f"{source}: a search space is a mapping (see wwm search --help)")
    try:
        space = SpaceDocument.model_validate(doc)
    except ValidationError as exc:
        raise SpaceError(f"{source}: {_problems(exc)}") from None
    if base is None:
        base = _base_society(space, source, base_dir)
    elif space.society or space.world or space.mind:
        raise SpaceError(f"{source}: the search starts from a given society; leave out society, world and mind")
    if space.run:
        try:
            base = base.model_copy(update={"run": base.run.model_copy(update=space.run)})
            base = parse(base.model_dump(by_alias=True), source)
        except (SocietyError, ValidationError) as exc:
            raise SpaceError(f"{source}: run: {exc}") from None

    candidates: list[Candidate] = []
    taken: set[str] = set()
    members = base.mind.args.get("minds") or []
    if isinstance(members, str):
        members = [m for m in members.replace(",", " ").split() if m]
    for i, member in enumerate(members):
        spec = _as_spec(member, f"{source}: mind.args.minds[{i}]")
        name = _name_of(member if isinstance(member, dict) else spec, taken)
        taken.add(name)
        candidates.append(Candidate(name, spec))
    for name, value in space.minds.items():
        if name in taken:
            raise SpaceError(f"{source}: minds.{name}: a candidate of that name is already in the society")
        taken.add(name)
        candidates.append(Candidate(name, _as_spec(value, f"{source}: minds.{name}")))
    if not candidates:
        raise SpaceError(f"{source}: no candidate minds: give the AS members in the society, or 'minds'")
    choose = space.choose
    if choose.members.min > len(candidates):
        raise SpaceError(f"{source}: choose.members.min is {choose.members.min} but there are only "
                         f"{len(candidates)} candidates")
    names = {c.name for c in candidates}
    for key in choose.args:
        owner, dot, _arg = key.rpartition(".")
        if dot and owner not in names:
            raise SpaceError(f"{source}: choose.args.{key}: no candidate named {owner!r} "
                             f"(candidates: {', '.join(sorted(names))})")
        if key in ("minds", "method", "strengths"):
            raise SpaceError(f"{source}: choose.args.{key}: use choose.members, methods or strengths for that")
    if space.world and space.worlds:
        raise SpaceError(f"{source}: give world or worlds (a battery), not both")
    for i, w in enumerate(space.worlds):
        try:
            parse({"world": w, "mind": base.mind.model_dump(by_alias=True, exclude_none=True)}, source)
        except SocietyError as exc:
            raise SpaceError(f"{source}: worlds[{i}]: {exc}") from None
    return Space(name=space.name, base=base, candidates=candidates, choose=choose,
                 seeds=list(space.seeds) or [None], seed_arg=space.seed_arg,
                 objectives=list(space.objectives), source=source, worlds=list(space.worlds))


def _base_society(space: SpaceDocument, source: str, base_dir: Path | None) -> Society:
    if space.society and (space.world or space.mind):
        raise SpaceError(f"{source}: give either society (a document) or world and mind, not both")
    if space.society:
        from ..client.society import load

        path = Path(space.society)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            return load(path)
        except SocietyError as exc:
            raise SpaceError(f"{source}: society: {exc}") from None
    world = space.world or (space.worlds[0] if space.worlds else None)
    if world is None or space.mind is None:
        raise SpaceError(f"{source}: say where the search starts: society: FILE, or world (or worlds) and "
                         "mind (the Action Selection server)")
    mind = copy.deepcopy(space.mind)
    mind.setdefault("args", {})
    try:
        return parse({"name": space.name, "world": world, "mind": mind}, source)
    except SocietyError as exc:
        raise SpaceError(str(exc)) from None


def load_space(path: str | Path) -> Space:
    from ..client.society import read_document

    try:
        doc = read_document(path)
    except SocietyError as exc:
        raise SpaceError(str(exc)) from None
    return build(doc, str(path), Path(path).parent)
