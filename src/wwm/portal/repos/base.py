"""What every portal repository shares: the errors a visitor reads, the session factory's type,
the one get-or-404 helper, and the small helpers (digests, URLs in a document) they all use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from sqlalchemy.orm import Session

Sessions = Callable[[], AbstractContextManager[Session]]
"""One transaction per call: committed whole at the end, rolled back whole on any error."""

Row = TypeVar("Row")


class PortalError(Exception):
    """What the portal cannot do, in one sentence a visitor can read."""


class NotFound(PortalError, LookupError):
    pass


class Conflict(PortalError):
    pass


class Taken(Conflict):
    """A username someone has already (sign-up): it tells that the name exists."""


def get_or_404(session: Session, model: type[Row], key: Any, message: str) -> Row:
    """The ``model`` row with primary key ``key``, or :class:`NotFound` saying ``message``."""
    found = session.get(model, key)
    if found is None:
        raise NotFound(message)
    return found


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def urls_in(document: Any) -> set[str]:
    """Every http(s) URL a society document names, at any depth."""
    found: set[str] = set()
    if isinstance(document, str):
        if document.startswith(("http://", "https://")):
            found.add(document)
    elif isinstance(document, dict):
        for value in document.values():
            found |= urls_in(value)
    elif isinstance(document, list):
        for value in document:
            found |= urls_in(value)
    return found


def reason(exc: BaseException) -> str:
    """The first line of a database error's own message."""
    return str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
