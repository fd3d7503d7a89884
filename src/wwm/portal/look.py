"""What every page shares in how it looks and tells: a run's status as a badge, and the
confirmation a page shows after a form did its work (the flash: ``?done=CODE``).

The flash never echoes text from the request: ``done`` names one of the fixed messages below
(an unknown code shows nothing), so a link cannot make the portal say what its author wants.
A handler that redirects after a POST appends ``?done=CODE`` with :func:`done`; the base
template shows the message above the page's body.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from markupsafe import Markup, escape

# The confirmations a page can show, by code. Add a code here to use a new one.
DONE: dict[str, str] = {
    "registered": "The server is registered: its card was read and it is listed now.",
    "known": "That server was registered already: here is its page.",
    "signed-up": "Your account is made. Your combinations and runs so far are in it.",
    "signed-in": "You are signed in.",
    "signed-out": "You are signed out.",
    "recovered": "Welcome back: this browser is that visitor again.",
    "challenge-opened": "The challenge is open: entries are welcome.",
    "entered": "Your entry is in: the portal runs it on every seed and ranks it here.",
    "saved": "The combination is saved: its link below is permanent.",
    "started": "The run has started: this page follows it live.",
    "ended": "The run is ended.",
}

# A run status's kind, for its badge's colour: the first prefix that matches.
KINDS: tuple[tuple[str, str], ...] = (
    ("running", "running"), ("starting", "running"), ("resuming", "running"),
    ("complete", "finished"), ("ended", "finished"), ("scored", "finished"), ("finished", "finished"),
    ("degraded", "degraded"),
    ("suspended", "waiting"), ("pending", "waiting"), ("waiting", "waiting"), ("queued", "waiting"),
    ("pruned", "waiting"),
    ("fail", "failed"), ("mind lost", "failed"), ("could not", "failed"), ("interrupted", "failed"), ("lost", "failed"),
    ("error", "failed"), ("timed out", "failed"),
)


def status_kind(status: object) -> str:
    """``running``, ``finished``, ``failed``, ``degraded`` or ``waiting`` (``other`` if none)."""
    text = str(status or "").strip().lower()
    for prefix, kind in KINDS:
        if text.startswith(prefix):
            return kind
    return "other"


def badge(status: object) -> Markup:
    """A run status as ``<span class="badge KIND">status</span>`` (the text escaped)."""
    return Markup('<span class="badge {}">{}</span>').format(status_kind(status), escape(str(status or "")))


def notice_of(code: str | None) -> str | None:
    """The confirmation ``?done=code`` names, or None (an unknown code is ignored)."""
    return DONE.get(code) if code else None


def done(url: str, code: str) -> str:
    """``url`` with ``done=code`` in its query (kept before any ``#fragment``)."""
    if code not in DONE:
        raise KeyError(f"no confirmation {code!r} in look.DONE")
    parts = urlsplit(url)
    query = f"{parts.query}&done={code}" if parts.query else f"done={code}"
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
