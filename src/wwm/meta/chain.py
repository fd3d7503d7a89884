"""An immutable prefix of a shared append-only list: O(1) extension at the tip.

Transcripts and environments only ever grow, and mostly along one line, so each value keeps
(list, length); extending the newest value appends in place, extending an older one (a fork)
copies its prefix. Every value still reads as the same sequence forever.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class Chain(Sequence[T]):
    __slots__ = ("_items", "_n")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items = list(items)
        self._n = len(self._items)

    @classmethod
    def _of(cls, items: list[T], n: int) -> Chain[T]:
        chain = cls.__new__(cls)
        chain._items, chain._n = items, n
        return chain

    def extended(self, new: Iterable[T]) -> Chain[T]:
        new = list(new)
        if not new:
            return self
        if not self._n:  # the empty chain is shared by everyone: never append to it
            return Chain._of(new, len(new))
        if len(self._items) == self._n:  # the tip: share the list
            self._items.extend(new)
            return Chain._of(self._items, self._n + len(new))
        items = self._items[:self._n] + new  # a fork from an older value: copy its prefix
        return Chain._of(items, len(items))

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._items[i] for i in range(*index.indices(self._n))]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError("index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        items = self._items
        for i in range(self._n):
            yield items[i]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Sequence) and len(other) == self._n
                and all(a == b for a, b in zip(self, other, strict=True)))

    def __repr__(self) -> str:
        return f"Chain({list(self)!r})"
