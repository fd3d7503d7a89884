"""The values the portal keeps for itself (its secret key among them), in table ``settings``:
a repository of their own so the secret's make-once rule lives in one place.
"""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError

from ..models import Setting
from .base import Sessions


class Settings:
    """The portal's own key-value settings."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def secret_key(self) -> str:
        """The portal's secret (signs cookies and CSRF tokens), made on first use and kept, so
        cookies stay valid across restarts."""
        found = self.setting("secret_key")
        if found is not None:
            return found
        try:
            with self._session() as s:
                s.add(Setting(key="secret_key", value=secrets.token_urlsafe(32)))
        except IntegrityError:
            pass  # another process made it first
        made = self.setting("secret_key")
        assert made is not None
        return made

    def setting(self, key: str) -> str | None:
        """A value the portal keeps for itself under ``key`` (None: never set)."""
        with self._session() as s:
            found = s.get(Setting, key)
            return None if found is None else found.value

    def set_setting(self, key: str, value: str) -> None:
        with self._session() as s:
            s.merge(Setting(key=key, value=value))
