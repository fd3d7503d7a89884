"""Refusals: every error condition of the protocol, with a machine-readable code and a text a
person understands (section 12.1 asks to "define all error conditions, error codes, error
text messages").

The first group are the refusal reasons section 9 names; the second are the conditions any
real server meets. A refusal travels in the response of the query it refuses, in either
encoding, and surfaces in Python as the exception :class:`Refusal`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RefusalCode:
    code: str
    meaning: str
    http_status: int
    source: str  # where the condition comes from


_CODES = [
    # --- refusal reasons named in section 9 of the seed -------------------------------------
    RefusalCode("client-blocked", "This server does not accept queries from this client.", 403, "9.1, 9.2"),
    RefusalCode("client-url-invalid", "The client URL given is not a valid URL.", 400, "9.1, 9.2"),
    RefusalCode("credit-trail-failed", "The trail of credit from a given URL could not be followed.",
                400, "9.1, 9.2, 9.2.4"),
    RefusalCode("payment-required", "Payment is required to use this server.", 402, "9.1, 9.2"),
    RefusalCode("authentication-required", "Authentication is required to use this server.", 401, "9.1, 9.2"),
    RefusalCode("in-use", "This world allows one client at a time and another client holds it.",
                409, "9.1 (robot already in use), 4.3"),
    RefusalCode("bad-parameters", "An argument is missing, unknown, or of the wrong type.",
                400, "9.1, 9.2, 9.2.1, 9.2.2, 9.2.4"),
    RefusalCode("world-display-url-invalid", "The world display URL given is not a valid URL.", 400, "9.2"),
    RefusalCode("mind-url-invalid", "A Mind server URL given is not valid or does not answer as a Mind.", 400, "9.2.4"),
    RefusalCode("too-few-minds", "Fewer of an Action Selection server's minds started a run than its "
                "min_members asks for.", 503, "9.2.4, 6 (broken links)"),
    RefusalCode("other-client-unknown", "No knowledge is saved relative to the other client URL given.", 404, "9.2.1"),
    # --- conditions every server meets -----------------------------------------------------
    RefusalCode("unknown-run", "No run with this run ID is in progress on this server.", 404, "8.2.1"),
    RefusalCode("run-ended", "This run has ended; start a new run.", 410, "9.1 End run"),
    RefusalCode("unknown-query", "This query is not part of the World-Wide-Mind protocol.", 400, "9"),
    RefusalCode("unsupported-query", "This server does not support the query set this query belongs to.",
                501, "9.2.1-9.2.4"),
    RefusalCode("malformed-message", "The message could not be parsed as a World-Wide-Mind query.", 400, "11.2.1"),
    RefusalCode("forbidden-xml", "The XML uses a forbidden construct (DTD, entity declaration or external reference).",
                400, "11.2"),
    RefusalCode("too-large", "The message is larger than this server accepts.", 413, "11.1"),
    RefusalCode("unsupported-version", "This server does not speak the protocol version the message declares.",
                400, "12.1"),
    RefusalCode("unsupported-encoding", "The message is in an encoding this server does not read (use XML or JSON).",
                415, "11.2"),
    RefusalCode("busy", "The server has too many runs in progress to start another.", 503, "8.2.1"),
    RefusalCode("server-error", "The server failed while answering this query; the run is still in progress.",
                500, "12.1"),
    RefusalCode("timeout", "The server did not answer within the time allowed.", 504, "8.2.2"),
    RefusalCode("unreachable", "The server could not be reached.", 502, "8.2.2"),
]

CODES: dict[str, RefusalCode] = {c.code: c for c in _CODES}


class Refusal(Exception):
    """A query was refused. ``code`` is one of :data:`CODES`; ``text`` says what was wrong."""

    def __init__(self, code: str, text: str | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown refusal code {code!r}")
        self.code = code
        self.text = text or CODES[code].meaning
        super().__init__(f"{code}: {self.text}")

    @property
    def http_status(self) -> int:
        return CODES[self.code].http_status

    def __reduce__(self) -> tuple[type[Refusal], tuple[str, str]]:
        # keep it picklable across process boundaries (Ray, multiprocessing)
        return (Refusal, (self.code, self.text))
