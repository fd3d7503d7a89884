"""Society documents: one top-level Mind with its arguments (which may name further minds,
recursively) and one World with its arguments, the run's steps and time-outs. The same
document runs with ``wwm run society.yaml`` and is what a link to a combination stores
(section 12.2.1). YAML or JSON::

    name: Region switch in the grid world
    world: {url: "http://127.0.0.1:8001/", args: {size: 8}}
    mind:
      url: "http://127.0.0.1:8003/"            # a Mind_M server ...
      args:
        region: "x<4"
        minds:                                  # ... whose minds are further servers
          - {url: "http://127.0.0.1:8002/"}
          - {url: "http://127.0.0.1:8004/"}
    run: {steps: 200, timeout: 2.0, policy: requery}

``transport`` (``http``, ``ws`` or ``tcp``) picks the binding a remote server is queried over;
``run.pipeline: false`` sends Inform and the next Get action one round trip each;
``run.mind_errors`` is how many failed answers in a row (``server-error``) end the run,
``run.start_wait`` how long a server that is not listening yet is waited for before the run.

A server is a ``url`` (a remote server) or a ``class`` (``module:Class``, made in this
process). Arguments whose values are server specs are resolved: to URLs under a remote
mind (which connects to them itself), to objects or remote objects under a local class.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..protocol.interfaces import Mind, World
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
        return build_mind(self.mind), build_world(self.world)

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


def load(path: str | Path) -> Society:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SocietyError(f"cannot read {path}: {exc.strerror}") from None
    try:
        doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise SocietyError(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}") from None
    return parse(doc, source=str(path))


def parse(doc: Any, source: str = "society") -> Society:
    if not isinstance(doc, dict):
        raise SocietyError(f"{source}: a society document is a mapping with 'mind' and 'world'")
    try:
        return Society.model_validate(doc)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SocietyError(f"{source}: {problems}") from None


def _is_spec(value: Any) -> bool:
    return isinstance(value, dict) and ("url" in value or "class" in value) and set(value) <= {
        "url", "class", "args", "transport", "encoding"}


def _resolve(value: Any, remote_parent: bool) -> Any:
    if _is_spec(value):
        spec = ServerSpec.model_validate(value)
        if remote_parent:
            if spec.url is None:
                raise SocietyError(f"a remote mind's minds must be URLs, not a class ({spec.class_})")
            if spec.args:
                raise SocietyError(f"{spec.url}: arguments of a mind under a remote mind are set by that mind")
            return spec.url
        return build_mind(spec)
    if isinstance(value, list):
        return [_resolve(v, remote_parent) for v in value]
    return value


def build_mind(spec: ServerSpec) -> Mind:
    if spec.url is not None:
        args = {k: _resolve(v, True) for k, v in spec.args.items()}
        return RemoteMind(spec.url, transport=spec.transport, encoding=spec.encoding, **args)
    return _local(spec, Mind)


def build_world(spec: ServerSpec) -> World:
    if spec.url is not None:
        return RemoteWorld(spec.url, transport=spec.transport, encoding=spec.encoding, **spec.args)
    return _local(spec, World)


def _local(spec: ServerSpec, base: type[T]) -> T:
    from ..protocol.errors import Refusal
    from ..server.arguments import Arguments
    from ..targets import TargetError, load_target

    try:
        cls = load_target(spec.class_ or "")
    except TargetError as exc:
        raise SocietyError(str(exc)) from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise SocietyError(f"{spec.class_} is not a {base.__name__} class")
    args = {k: _resolve(v, False) for k, v in spec.args.items()}
    try:
        return cls(**Arguments(cls).build(args))
    except Refusal as exc:
        raise SocietyError(f"{spec.class_}: {exc.text}") from None
