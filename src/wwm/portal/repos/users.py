"""The portal's users (table ``users``): anonymous identities with a recovery link, accounts with
an argon2id password, and the password-less accounts programs (searches) record work under.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import argon2
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..models import User, now
from .base import Conflict, NotFound, PortalError, Sessions, Taken, digest, get_or_404

USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")
MIN_PASSWORD = 8
_hasher = argon2.PasswordHasher()


@dataclass(frozen=True)
class NewUser:
    user: User
    recovery_token: str        # shown once, as the recovery link; only its hash is kept


class Users:
    """Users, their recovery links and their accounts."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def new_user(self) -> NewUser:
        """An anonymous user, and the token of its recovery link."""
        token = secrets.token_urlsafe(24)
        with self._session() as s:
            user = User(recovery_hash=digest(token), created_at=now())
            s.add(user)
        return NewUser(user, token)

    def user(self, user_id: int) -> User:
        with self._session() as s:
            return get_or_404(s, User, user_id, f"there is no user {user_id}")

    def user_by_recovery(self, token: str) -> User:
        with self._session() as s:
            user = s.scalar(select(User).where(User.recovery_hash == digest(token)))
        if user is None:
            raise NotFound("that recovery link is not valid (it may have been replaced by a newer one)")
        return user

    def new_recovery(self, user_id: int) -> str:
        """A new recovery token for the user; the old link stops working."""
        token = secrets.token_urlsafe(24)
        with self._session() as s:
            get_or_404(s, User, user_id, f"there is no user {user_id}").recovery_hash = digest(token)
        return token

    def sign_up(self, user_id: int, username: str, password: str) -> User:
        """Give the (anonymous) user an account: a username and a password, kept as its
        argon2id hash."""
        if not USERNAME.fullmatch(username):
            raise PortalError("a username is 3 to 40 letters, digits, dots, dashes or underscores")
        if len(password) < MIN_PASSWORD:
            raise PortalError(f"a password has at least {MIN_PASSWORD} characters")
        hashed = _hasher.hash(password)
        try:
            with self._session() as s:
                user = get_or_404(s, User, user_id, f"there is no user {user_id}")
                if user.username is not None:
                    raise Conflict(f"you already have an account, {user.username}")
                user.username, user.password_hash = username, hashed
        except IntegrityError:
            raise Taken(f"the username {username!r} is taken; choose another") from None
        return user

    def sign_in(self, username: str, password: str) -> User:
        """The user with that username and password (one message for both kinds of mistake)."""
        with self._session() as s:
            user = s.scalar(select(User).where(User.username == username))
        wrong = PortalError("no account has that username and password")
        if user is None or user.password_hash is None:
            _hasher.hash(password)   # the same work either way: the time does not tell which
            raise wrong
        try:
            _hasher.verify(user.password_hash, password)
        except argon2.exceptions.VerificationError:
            raise wrong from None
        except argon2.exceptions.InvalidHashError:
            raise wrong from None
        return user

    def bot_user(self, username: str) -> int:
        """The ID of the account ``username`` made for a program (no password: it cannot sign
        in), made on first use; an account a person holds under that name is refused."""
        for _ in range(2):
            with self._session() as s:
                user = s.scalar(select(User).where(User.username == username))
                if user is not None:
                    if user.password_hash is not None:
                        raise Conflict(f"the username {username!r} belongs to a person's account")
                    return user.id
            try:
                with self._session() as s:
                    s.add(User(recovery_hash=digest(secrets.token_urlsafe(24)), username=username, created_at=now()))
            except IntegrityError:
                continue  # another worker made it first
        raise PortalError(f"could not make the account {username!r}")
