"""A visitor's identity on the portal (issue 26, item 5): the pages that make, show, recover,
sign up, sign in to and leave it, so that no one loses work by not knowing how identity works.

An identity is anonymous (a user row reached by a recovery link, made on first need) or an
account (a username and a password, hashed in the portal's one hashing thread). ``/me`` shows
it (a GET makes no user); ``/me/recovery`` gives a new recovery link; ``/me/new`` leaves it,
confirmed first when an anonymous identity has work only its link brings back;
``/recover/{token}`` takes it up again; ``/signup``, ``/signin`` and ``/signout`` do what they
say, failed sign-ins counted per address and name (:mod:`.signins`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from . import look
from .combinations import Combinations
from .combinations import Portal as PagesPortal
from .signins import SigninGuard, TooManyFailures
from .store import NotFound, PortalError, Taken
from .visitors import visitor_of

__all__ = ["Identities", "Portal", "client_address"]


class Portal(PagesPortal, Protocol):
    """What these pages need of the application (:class:`wwm.portal.app.Portal`)."""

    signins: SigninGuard

    async def hashed(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def recovery_url(self, request: Request, token: str | None) -> str | None: ...


def client_address(request: Request) -> str:
    """The address the request came from (behind a reverse proxy, the proxy's unless the
    server is told to trust its forwarded headers)."""
    return request.client.host if request.client is not None else "unknown"


class Identities:
    """The identity pages, on ``portal``; :meth:`routes` mounts them."""

    def __init__(self, portal: Portal) -> None:
        self.portal = portal

    async def me(self, request: Request) -> Response:
        """The visitor's identity; a visitor without one is told how one is made (a GET makes
        no user)."""
        portal = self.portal
        visitor = visitor_of(request)
        user = None
        if visitor.user_id is not None:
            try:
                user = await portal.db(portal.store.user, visitor.user_id)
            except NotFound:
                user = None     # a cookie from another database
        if user is None:
            return portal.page(request, "me.html", user=None, recovery=None, my_combinations=[], my_runs=[],
                               titles={})
        if visitor.account != (user.username is not None):
            visitor.account, visitor.changed = user.username is not None, True
        return portal.page(request, "me.html", user=user, recovery=None, **await Combinations(portal).mine(user.id))

    async def new_recovery(self, request: Request, form: FormData) -> Response:
        portal = self.portal
        user_id = await portal.user_id(visitor_of(request))
        visitor_of(request).take_recovery()         # shown here, as the new one
        token = await portal.db(portal.store.new_recovery, user_id)
        user = await portal.db(portal.store.user, user_id)
        return portal.page(request, "me.html", user=user, recovery=portal.recovery_url(request, token),
                           **await Combinations(portal).mine(user_id),
                           message="A new recovery link: the old one no longer works.")

    async def new_identity(self, request: Request, form: FormData) -> Response:
        """Leave this identity for a fresh one. An anonymous identity with work is left only
        once the visitor has confirmed, after being shown a new recovery link for it (without
        one its work could not be reached again); an account can always be signed in to."""
        portal = self.portal
        visitor = visitor_of(request)
        user = None
        if visitor.user_id is not None:
            with contextlib.suppress(NotFound):
                user = await portal.db(portal.store.user, visitor.user_id)
        if user is not None and user.username is None and form.get("confirm") != "yes":
            mine = await Combinations(portal).mine(user.id)
            if mine["my_combinations"] or mine["my_runs"]:
                token = await portal.db(portal.store.new_recovery, user.id)
                return portal.page(request, "me.html", user=user, recovery=portal.recovery_url(request, token),
                                   leaving=True, **mine,
                                   message="Before you leave this identity: its combinations and runs stay with "
                                           "it, and only its recovery link below brings them back. Keep the link, "
                                           "then confirm.")
        visitor.become(None)
        return RedirectResponse("/me", 303)

    async def recover_page(self, request: Request) -> Response:
        return self.portal.page(request, "recover.html", token=request.path_params["token"])

    async def recover(self, request: Request, form: FormData) -> Response:
        portal = self.portal
        try:
            user = await portal.db(portal.store.user_by_recovery, request.path_params["token"])
        except NotFound as exc:
            return portal.page(request, "message.html", 404, title="Recovery link not valid", message=str(exc))
        visitor_of(request).become(user.id, account=user.username is not None)
        return RedirectResponse(look.done("/me", "recovered"), 303)

    async def signup_page(self, request: Request) -> Response:
        return self.portal.page(request, "signup.html")

    async def signup(self, request: Request, form: FormData) -> Response:
        """An account; a sign-up that finds its username taken counts as a failed sign-in of
        the address (it tells that the name exists), and a refused address is refused here too."""
        portal = self.portal
        username, password = str(form.get("username") or "").strip(), str(form.get("password") or "")
        address = client_address(request)
        try:
            await portal.db(portal.signins.check_address, address)
            user_id = await portal.user_id(visitor_of(request))
            await portal.hashed(portal.store.sign_up, user_id, username, password)
        except TooManyFailures as exc:
            return self.too_many(request, "signup.html", exc, username)
        except Taken as exc:
            await portal.db(portal.signins.address_failed, address)
            return portal.page(request, "signup.html", 400, message=str(exc), username=username)
        except PortalError as exc:
            return portal.page(request, "signup.html", 400, message=str(exc), username=username)
        visitor = visitor_of(request)
        visitor.account, visitor.recovery, visitor.changed = True, None, True
        return RedirectResponse(look.done("/me", "signed-up"), 303)

    async def signin_page(self, request: Request) -> Response:
        return self.portal.page(request, "signin.html")

    async def signin(self, request: Request, form: FormData) -> Response:
        portal = self.portal
        username, password = str(form.get("username") or "").strip(), str(form.get("password") or "")
        try:
            user = await portal.hashed(portal.signins.sign_in, username, password, client_address(request))
        except TooManyFailures as exc:
            return self.too_many(request, "signin.html", exc, username)
        except PortalError as exc:
            return portal.page(request, "signin.html", 400, message=str(exc), username=username)
        visitor_of(request).become(user.id, account=True)
        return RedirectResponse(look.done("/me", "signed-in"), 303)

    def too_many(self, request: Request, name: str, exc: TooManyFailures, username: str) -> Response:
        """HTTP 429, the form again with why and how long, and Retry-After."""
        response = self.portal.page(request, name, 429, message=str(exc), username=username)
        response.headers["retry-after"] = str(exc.retry_after)
        return response

    async def signout(self, request: Request, form: FormData) -> Response:
        visitor_of(request).become(None)
        return RedirectResponse(look.done("/", "signed-out"), 303)

    def routes(self) -> list[BaseRoute]:
        posted = self.portal.posted
        return [
            Route("/me", self.me),
            Route("/me/recovery", posted(self.new_recovery), methods=["POST"]),
            Route("/me/new", posted(self.new_identity), methods=["POST"]),
            Route("/recover/{token}", self.recover_page, methods=["GET"], name="recover"),
            Route("/recover/{token}", posted(self.recover), methods=["POST"]),
            Route("/signup", self.signup_page, methods=["GET"]),
            Route("/signup", posted(self.signup), methods=["POST"]),
            Route("/signin", self.signin_page, methods=["GET"]),
            Route("/signin", posted(self.signin), methods=["POST"]),
            Route("/signout", posted(self.signout), methods=["POST"]),
        ]
