"""Society documents: one top-level Mind with its arguments (which may name further minds,
each with arguments of its own, at any depth) and one World with its arguments, the run's
steps and time-outs. The same document runs with ``wwm run society.yaml`` and is what a link
to a combination stores (section 12.2.1). YAML or JSON; section 3.5's Mind_M that calls an AS
"with arguments (strong M4, weak M5)", under a top-level AS::

    name: Three levels, each server with its own arguments
    world: {url: "http://127.0.0.1:8001/", args: {size: 8}}
    mind:
      url: "http://127.0.0.1:8002/"            # a Mind_AS server ...
      args:
        method: w=q
        minds:                                  # ... whose minds are further servers
          - {url: "http://127.0.0.1:8003/", args: {greed: 0.3}}
          - url: "http://127.0.0.1:8004/"       # a Mind_M (region) server ...
            args:
              region: "x<4"
              minds:                            # ... that calls another AS ...
                - url: "http://127.0.0.1:8005/"
                  args:
                    method: min-worst-unhappiness
                    minds:                      # ... over a strong M4 and a weak M5
                      - {url: "http://127.0.0.1:8006/", args: {strength: strong}}
                      - {url: "http://127.0.0.1:8007/", args: {strength: weak}}
                - "http://127.0.0.1:8003/"      # a bare URL: a mind with no arguments
    run: {steps: 200, timeout: 2.0, policy: requery}

``transport`` (``http``, ``ws`` or ``tcp``) picks the binding a remote server is queried over;
``run.pipeline: false`` sends Inform and the next Get action one round trip each;
``run.mind_errors`` is how many failed answers in a row (``server-error``) end the run,
``run.start_wait`` how long a server that is not listening yet is waited for before the run.

A server is a ``url`` (a remote server) or a ``class`` (``module:Class``, made in this
process). Arguments whose values are server specs are resolved: under a remote mind, to
members (:mod:`wwm.client.members`): a bare URL, or ``{url, args}`` when it has arguments,
sent in that mind's New run; the remote mind connects to each itself and sends each its own
``args`` in the New run it starts there, and so on down. Under a local class they become
objects or remote objects. Every server is checked when the document is read, at any depth:
an error names the path (``mind.args.minds[1].args.minds[0].args: ...``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..protocol.interfaces import Mind, World
from .members import MEMBER_LISTS, MemberSpec
from .remote import RemoteMind, RemoteWorld
from .runner import RunSettings

T = TypeVar("T")


class SocietyError(ValueError):
    """A society document that cannot be used, with the reason."""


class ServerSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    url: str | None = None
    class_: str | None = Field(default=None, alias="class")
    args: dict[str, Any] = Field(default_factory=dict)
    transport: Literal["http", "ws", "tcp"] = "http"
    encoding: Literal["json", "xml"] = "json"
    # a file holding the server's access token (its owner's secret, wwm serve --token-file):
    # the document names where the secret is, never the secret
    token_file: str | None = Field(default=None, alias="token-file")

    @model_validator(mode="after")
    def _one_of(self) -> ServerSpec:
        if (self.url is None) == (self.class_ is None):
            raise ValueError('give exactly one of "url" and "class"')
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, not {self.url!r}")
        return self


class RunSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    steps: int | None = Field(default=100, ge=1)
    timeout: float = Field(default=5.0, gt=0)
    policy: Literal["requery", "ignore-late"] = "requery"
    keepalive: float | None = Field(default=10.0, gt=0)
    world_wait: float = Field(default=120.0, ge=0)
    mind_wait: float = Field(default=30.0, ge=0)
    mind_errors: int = Field(default=3, ge=1)
    start_wait: float = Field(default=10.0, ge=0)
    pipeline: bool = True
    client_url: str | None = None


class Society(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "society"
    description: str = ""
    mind: ServerSpec
    world: ServerSpec
    run: RunSpec = Field(default_factory=RunSpec)

    def settings(self, **overrides: Any) -> RunSettings:
        values = self.run.model_dump()
        values.update({k: v for k, v in overrides.items() if v is not None})
        return RunSettings(**values)

    def build(self) -> tuple[Mind, World]:
        """The top-level Mind and the World, ready for :func:`wwm.client.runner.run`."""
        try:
            return build_mind(self.mind), build_world(self.world)
        except SocietyError as exc:
            raise SocietyError(f"{self.name}: {exc}") from None

    def servers(self) -> list[str]:
        """Every server URL the document names, top-level first."""
        urls: list[str] = []

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                if isinstance(value.get("url"), str):
                    urls.append(value["url"])
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        walk(self.model_dump(by_alias=True))
        return urls

    def roles(self) -> list[tuple[str, str, str]]:
        """``(where, url, role)`` of every remote server the document names, with the role it
        must have: the top-level ``mind`` and ``world``, and, at any depth, each server an
        argument names (``mind.args.minds[1]``), a mind, as it is built (a remote parent's
        members, a bare URL in its ``minds`` included). A remote world's arguments are sent as
        written, so what they name is not judged."""
        found: list[tuple[str, str, str]] = []

        def inner(spec: ServerSpec, where: str) -> None:
            remote = spec.url is not None
            for key, value in spec.args.items():
                walk(value, f"{where}.args.{key}", remote and key in MEMBER_LISTS)

        def walk(value: Any, where: str, members: bool) -> None:
            if _is_spec(value):
                spec = ServerSpec.model_validate(value)  # checked when the document was read
                if spec.url is not None:
                    found.append((where, spec.url, "mind"))
                inner(spec, where)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    walk(v, f"{where}[{i}]", members)
            elif members and isinstance(value, str):
                found.append((where, value, "mind"))

        for slot, spec in (("mind", self.mind), ("world", self.world)):
            if spec.url is not None:
                found.append((slot, spec.url, slot))
        inner(self.mind, "mind")
        if self.world.class_ is not None:
            inner(self.world, "world")
        return found


def read_document(path: str | Path) -> Any:
    """A YAML (or, for ``.json``, JSON) document read from ``path``; a :class:`SocietyError`
    says why it could not be read."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SocietyError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise SocietyError(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}") from None


def load(path: str | Path) -> Society:
    return parse(read_document(path), source=str(path))


def parse(doc: Any, source: str = "society") -> Society:
    if not isinstance(doc, dict):
        raise SocietyError(f"{source}: a society document is a mapping with 'mind' and 'world'")
    try:
        society = Society.model_validate(doc)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SocietyError(f"{source}: {problems}") from None
    check(society, source)
    return society


def _is_spec(value: Any) -> bool:
    """Whether an argument's value names a server (a mapping with ``url`` or ``class``)."""
    return isinstance(value, dict) and ("url" in value or "class" in value)


def _spec(value: dict[str, Any], where: str) -> ServerSpec:
    try:
        return ServerSpec.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join([where, *map(str, e['loc'])])}: {e['msg']}" for e in exc.errors())
        raise SocietyError(problems) from None


def _resolve(value: Any, remote_parent: bool, where: str, *, build: bool = True, member: bool = False) -> Any:
    """An argument's value with the servers it names resolved (``where``: its path, for the
    errors; ``member``: it is a list of minds, such as ``minds``). Under a remote mind a server
    becomes a member, its URL or ``{url, args}``, whose arguments travel in the New run that
    mind sends it (3.5); under a local class, an object. With ``build`` false nothing is made:
    the value is only checked."""
    if _is_spec(value):
        spec = _spec(value, where)
        if remote_parent:
            if spec.url is None:
                raise SocietyError(f"{where}: a remote mind's minds must be URLs, not a class ({spec.class_})")
            return MemberSpec(spec.url, _resolve_args(spec, f"{where}.args", build=build),
                              _token(spec, where)).wire()
        if not build:
            _resolve_args(spec, f"{where}.args", build=False)
            return value
        return build_mind(spec, where)
    if isinstance(value, list):
        return [_resolve(v, remote_parent, f"{where}[{i}]", build=build, member=member) for i, v in enumerate(value)]
    if member and remote_parent and not isinstance(value, str):
        raise SocietyError(f"{where}: a mind is a URL or a mapping with url (and args), not {value!r:.60}")
    return value


def _resolve_args(spec: ServerSpec, where: str, *, build: bool = True) -> dict[str, Any]:
    remote = spec.url is not None
    return {k: _resolve(v, remote, f"{where}.{k}", build=build, member=k in MEMBER_LISTS)
            for k, v in spec.args.items()}


def check(society: Society, source: str = "society") -> None:
    """Check every server the document names, at any depth, without making any: a
    :class:`SocietyError` names the file and the path of what is wrong
    (``mind.args.minds[1].args.minds[0].args: ...``)."""
    try:
        _resolve_args(society.mind, "mind.args", build=False)
        if society.world.class_ is not None:  # a remote world's arguments are sent as written
            _resolve_args(society.world, "world.args", build=False)
    except SocietyError as exc:
        raise SocietyError(f"{source}: {exc}") from None


def build_mind(spec: ServerSpec, where: str = "mind") -> Mind:
    if spec.url is not None:
        return RemoteMind(spec.url, transport=spec.transport, encoding=_chosen_encoding(spec),
                          run_args=_resolve_args(spec, f"{where}.args"), token=_token(spec, where))
    return _local(spec, Mind, where)


def build_world(spec: ServerSpec) -> World:
    if spec.url is not None:
        return RemoteWorld(spec.url, transport=spec.transport, encoding=_chosen_encoding(spec), run_args=spec.args,
                           token=_token(spec, "world"))
    return _local(spec, World, "world")


def _token(spec: ServerSpec, where: str) -> str | None:
    """The access token in the server's ``token-file``, if it names one."""
    if spec.token_file is None:
        return None
    from ..protocol.context import read_token

    try:
        return read_token(spec.token_file).decode()
    except ValueError as exc:
        raise SocietyError(f"{where}.token-file: {exc}") from None


def _chosen_encoding(spec: ServerSpec) -> str | None:
    """The encoding the document chose for a server, or None: the client then speaks JSON
    unless the server's first answer shows it reads XML only (see :mod:`.transport`)."""
    return spec.encoding if "encoding" in spec.model_fields_set else None


def _local(spec: ServerSpec, base: type[T], where: str) -> T:
    from ..protocol.arguments import Arguments
    from ..protocol.errors import Refusal
    from ..targets import TargetError, load_target

    try:
        cls = load_target(spec.class_ or "")
    except TargetError as exc:
        raise SocietyError(str(exc)) from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise SocietyError(f"{spec.class_} is not a {base.__name__} class")
    args = _resolve_args(spec, f"{where}.args")
    try:
        return cls(**Arguments(cls).build(args))
    except Refusal as exc:
        raise SocietyError(f"{spec.class_}: {exc.text}") from None
