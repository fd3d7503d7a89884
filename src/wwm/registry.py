"""Registries: the one way pluggable things are named and found, whatever their kind (Action
Selection methods, ACL protocols, Λ* agents, Tileworld agents, minds and worlds to serve).

Inside ``wwm`` a thing registers itself with a decorator or one call::

    @METHODS.register                  # under its own ``name`` attribute
    class Rotation(Method): ...

    PROTOCOLS.register(FIPA_QUERY)     # the same, for an object

Outside, a package adds to a registry through a Python entry point in the registry's group,
the entry point's name being the thing's name and its value the thing (``module:attribute``),
in its ``pyproject.toml``::

    [project.entry-points."wwm.as_methods"]
    loudest = "my_package.methods:Loudest"

Entry points are read the first time a registry is asked for a name it does not hold, or for
all its names, and each is loaded (its module imported) only when its thing is asked for; a
plugin that fails to load is named in the error, and never takes the others down with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from typing import Any, Generic, TypeVar, overload

from .protocol.interfaces import Mind, World

log = logging.getLogger("wwm.registry")

T = TypeVar("T")


DISTRIBUTION = "world-wide-mind"  # this package's name on the package index (imported as wwm)


class UnknownName(LookupError, ValueError):
    """A name that is not in a registry; the text lists the names that are."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class PluginError(ImportError):
    """An entry point whose thing cannot be loaded (its package is broken or missing)."""


class Registry(Mapping[str, T], Generic[T]):
    """Named things of one ``kind``, from ``register`` calls and from the entry points of
    ``group``. ``name_of`` reads the name of a thing registered without one (default: its
    ``name`` attribute); names are matched without regard to case, and ``aliases`` are other
    names for the same thing."""

    def __init__(self, kind: str, group: str | None = None,
                 name_of: Callable[[Any], str] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._name_of = name_of or (lambda thing: thing.name)
        self._items: dict[str, T | metadata.EntryPoint] = {}  # an entry point until looked up
        self._aliases: dict[str, str] = {}
        self._origin: dict[str, str] = {}
        self._plugins_read = group is None

    # ---- adding ---------------------------------------------------------------------------
    @overload
    def register(self, thing: T, /, *, name: str | None = None, aliases: tuple[str, ...] = ()) -> T: ...
    @overload
    def register(self, thing: None = None, /, *, name: str | None = None,
                 aliases: tuple[str, ...] = ()) -> Callable[[T], T]: ...

    def register(self, thing: T | None = None, /, *, name: str | None = None,
                 aliases: tuple[str, ...] = ()) -> T | Callable[[T], T]:
        """Add ``thing`` (as a decorator: ``@REGISTRY.register`` or
        ``@REGISTRY.register(name=..., aliases=...)``); returns it unchanged."""
        if thing is None:
            return lambda later: self.register(later, name=name, aliases=aliases)
        self._add(name or self._name_of(thing), thing, aliases, origin="wwm")
        return thing

    def _add(self, name: str, thing: T | metadata.EntryPoint, aliases: tuple[str, ...], origin: str) -> None:
        key = name.strip().lower()
        if not key:
            raise ValueError(f"a {self.kind} needs a name")
        held = self._items.get(key)
        if held is not None and held is not thing:
            raise ValueError(f"{self.kind} {key!r} is already registered (by {self._origin[key]})")
        self._items[key] = thing
        self._origin[key] = origin
        for alias in aliases:
            self._aliases[alias.strip().lower()] = key

    def alias(self, alias: str, name: str) -> None:
        """Let ``alias`` stand for the thing registered as ``name``."""
        self._aliases[alias.strip().lower()] = self.lookup_key(name)

    def unregister(self, name: str) -> None:
        """Forget ``name`` and its aliases (a thing registered for a while, e.g. in a test)."""
        key = self.lookup_key(name)
        del self._items[key], self._origin[key]
        self._aliases = {a: k for a, k in self._aliases.items() if k != key}

    def lookup_key(self, name: str) -> str:
        """The name ``name`` is registered under (itself, or what it is an alias of)."""
        self.lookup(name)
        key = name.strip().lower()
        return self._aliases.get(key, key)

    # ---- finding --------------------------------------------------------------------------
    def lookup(self, name: str) -> T:
        """The thing called ``name`` (or one of its aliases), or :class:`UnknownName` saying
        which names there are, or :class:`PluginError` if its plugin cannot be loaded."""
        key = name.strip().lower()
        key = self._aliases.get(key, key)
        if key not in self._items:
            self._read_plugins()
            key = self._aliases.get(key, key)
        try:
            thing = self._items[key]
        except KeyError:
            raise UnknownName(f"unknown {self.kind} {name!r}; choose one of {', '.join(self)}") from None
        if isinstance(thing, metadata.EntryPoint):
            try:
                loaded: T = thing.load()  # a plugin's thing is taken to be of the registry's kind
            except Exception as exc:
                raise PluginError(f"{self.kind} {key!r} from {self._origin[key]} cannot be loaded: "
                                  f"{type(exc).__name__}: {exc}") from None
            self._items[key] = loaded
            return loaded
        return thing

    def origin(self, name: str) -> str:
        """Who registered ``name``: ``wwm``, or the distribution whose entry point did."""
        return self._origin[self.lookup_key(name)]

    def __getitem__(self, name: str) -> T:
        try:
            return self.lookup(name)
        except UnknownName as exc:
            raise KeyError(name) from exc

    def __iter__(self) -> Iterator[str]:
        self._read_plugins()
        return iter(list(self._items))

    def __len__(self) -> int:
        self._read_plugins()
        return len(self._items)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self.lookup(name)
        except UnknownName:
            return False
        return True

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, group={self.group!r}, {len(self._items)} registered)"

    # ---- plugins --------------------------------------------------------------------------
    def _read_plugins(self) -> None:
        if self._plugins_read:
            return
        self._plugins_read = True
        for point in metadata.entry_points(group=self.group or ""):
            where = point.dist.name if point.dist is not None else point.value
            where = "wwm" if where == DISTRIBUTION else where  # our own entry points are wwm's
            if point.name.strip().lower() in self._items:  # wwm's own, or an earlier plugin's
                log.warning("%s %r from %s left out: the name is taken by %s", self.kind, point.name,
                            where, self._origin[point.name.strip().lower()])
                continue
            self._add(point.name, point, (), origin=where)  # loaded on lookup

    def reread_plugins(self) -> None:
        """Read the entry points again (after installing a plugin in a running process)."""
        self._plugins_read = self.group is None
        self._read_plugins()


# Classes to serve, by name (``wwm serve NAME``, ``wwm list``): wwm's own are entry points in its
# pyproject.toml, beside any other package's.
MINDS: Registry[type[Mind]] = Registry("mind", group="wwm.minds")
WORLDS: Registry[type[World]] = Registry("world", group="wwm.worlds")
