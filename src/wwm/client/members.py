"""Members: the minds a Mind calls (a Mind_AS's competing minds, a Mind_M's minds), each with
the arguments of its own "New run" (section 3.5: a Mind_M calls an AS "with arguments
(strong M4, weak M5)").

A member is a URL, or a mapping ``{"url": URL, "args": {...}}`` whose ``args`` go in the New
run sent to that URL; they may name further members, so a society of any depth travels down
the chain, each server receiving exactly the arguments written for it. On the wire a member
with arguments is one entry of the repeated "mind URL" item holding its JSON text (text on
the XML wire too); a bare URL is sent as it always was. :func:`read_member` reads one entry
in any of these forms and checks its shape all the way down, naming the path of whatever is
wrong (``minds[1].args.minds[0].args: ...``); :func:`connect_member` connects to it.

A member whose server asks for an access token (``wwm serve --token-file``) carries it as
``{"url", "args", "token"}``: the caller sends it with every query to that member. The token
travels to the server that calls the member (the client trusts it with the member's secret, as
it trusts it with the member's run), never further, and is never shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from ..protocol import queries as Q
from ..protocol.messages import Query
from .remote import RemoteMind

# The argument names that hold a list of members: the Python name and the wire name of the
# repeated item (9.2.4 "List of Mind server URLs").
MEMBER_LISTS = frozenset({"minds", "mind URL", "mind_url"})


class MemberError(ValueError):
    """A member that cannot be used; the text starts with its path."""


@dataclass(frozen=True)
class MemberSpec:
    """One mind to call: where, and the arguments of the New run it is sent."""

    url: str
    args: dict[str, Any] = field(default_factory=dict)
    token: str | None = field(default=None, repr=False)  # the member server's access token

    def wire(self) -> str | dict[str, Any]:
        """What a caller sends for it: the bare URL when it has no arguments (nor token)."""
        if self.token is not None:
            return {"url": self.url, "args": self.args, "token": self.token}
        return {"url": self.url, "args": self.args} if self.args else self.url


def member_entries(value: Any) -> list[Any]:
    """A list of members as given: a list, or one text (URLs separated by white space or
    commas, or a JSON list or object of members)."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("[", "{")):
            try:
                parsed = json.loads(text)
            except ValueError:
                return [text]  # read_member says what is wrong with it
            return parsed if isinstance(parsed, list) else [parsed]
        return [u for u in re.split(r"[\s,]+", text) if u]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def read_member(entry: Any, where: str) -> MemberSpec:
    """One member from a URL, a mapping ``{url, args}`` or its JSON text, checked all the way
    down; a :class:`MemberError` names the path of what is wrong. (A URL is only checked to
    be text here: which schemes a caller can reach is the caller's to say.)"""
    if isinstance(entry, str):
        text = entry.strip()
        if not text.startswith("{"):
            if not text:
                raise MemberError(f"{where}: an empty mind URL")
            return MemberSpec(text)
        try:
            entry = json.loads(text)
        except ValueError as exc:
            raise MemberError(f"{where}: not a URL, nor a JSON object {{url, args}} ({exc})") from None
    if not isinstance(entry, Mapping):
        raise MemberError(f"{where}: a mind is a URL or a mapping {{url, args}}, not {_show(entry)}")
    unknown = sorted(set(map(str, entry)) - {"url", "args", "token"})
    if unknown:
        raise MemberError(f"{where}: unknown key {unknown[0]!r} (a mind is {{url, args}}, and a token "
                          "if its server asks for one)")
    url = entry.get("url")
    if not isinstance(url, str) or not url.strip():
        raise MemberError(f"{where}.url: a mind needs its URL as text, not {_show(url)}")
    args = entry.get("args")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise MemberError(f"{where}.args: the mind's New run arguments are a mapping of names to "
                          f"values, not {_show(args)}")
    token = entry.get("token")
    if token is not None and not (isinstance(token, str) and token.strip()):
        got = "blank text" if isinstance(token, str) else type(token).__name__  # (never the value: a secret)
        raise MemberError(f"{where}.token: a member server's access token is text, not {got}")
    return MemberSpec(url.strip(), check_args(dict(args), f"{where}.args"), token.strip() if token else None)


def check_args(args: dict[str, Any], where: str) -> dict[str, Any]:
    """A member's arguments, with every member they name checked (``minds`` or "mind URL": a
    list of members; any other argument whose value is a mapping with a ``url``: one member).
    Returned as given, except that members are in their wire form (a URL or ``{url, args}``)."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if not isinstance(key, str):
            raise MemberError(f"{where}: argument names are text, not {_show(key)}")
        if key in MEMBER_LISTS:
            out[key] = [read_member(e, f"{where}.{key}[{i}]").wire() for i, e in enumerate(member_entries(value))]
        elif isinstance(value, Mapping) and "url" in value:
            out[key] = read_member(value, f"{where}.{key}").wire()
        else:
            out[key] = value
    return out


def on_behalf_of(caller: str, client: str) -> str:
    """The "client URL" a server sends when it calls a mind for one of its own clients: its
    own URL, with that client in the fragment (``http://as.example/#for=http%3A%2F%2Fone...``).
    It still names the calling server (the fragment is not part of where the server is, so the
    credit trail of 7.2 still leads to it), and a learning mind, which keeps what it learns per
    client URL (7.3), keeps a copy per client of the caller: without it every client of a
    society would share one copy, and one could change what another gets."""
    return f"{caller.split('#', 1)[0]}#for={quote(client, safe='')}"


class MemberMind(RemoteMind):
    """A member's remote Mind. Called by a server (a query answered by it is in progress) for
    a run whose client is ``client_url``, it sends :func:`on_behalf_of` as its client URL."""

    def _build(self, method: str, kwargs: dict[str, Any]) -> tuple[Q.QuerySpec, Query]:
        spec, query = super()._build(method, kwargs)
        caller = query.data.get("client URL")
        client = self.client_url
        if isinstance(caller, str) and client and caller != client:
            query.data["client URL"] = on_behalf_of(caller, client)
        return spec, query


def connect_member(member: MemberSpec, **options: Any) -> RemoteMind:
    """A remote Mind for ``member`` whose New run carries the member's own arguments;
    ``options`` are the connection's (``timeout``, ``client_url``, ...)."""
    return MemberMind(member.url, run_args=member.args, token=member.token, **options)


def _show(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
