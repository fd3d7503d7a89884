"""schemathesis hooks for tests/server/test_fuzz.py (``SCHEMATHESIS_HOOKS=fuzz_hooks``, with
``WWM_FUZZ_URL`` the server's URL and ``WWM_FUZZ_ROLE`` its role): every other generated query
but New run is sent in a live run of the server, so the fuzzed items reach the run's World or
Mind instead of stopping at ``unknown-run``. A run is started by a plain New run; after an End run the next query gets a
fresh one. Bodies of the ``application/xml`` request type are written in the XML of section
11.2.1 (:mod:`xml_bodies`), so the XML reader is fuzzed from the same description."""

from __future__ import annotations

import itertools
import json
import os
import urllib.error
import urllib.request
from typing import Any

import schemathesis
from xml_bodies import to_xml

_turn = itertools.count()
_runs: dict[str, str] = {}  # the run ID item -> a live run


def _new_run(field: str) -> str | None:
    """A live run, or None where a plain New run is refused (a server needing arguments)."""
    request = urllib.request.Request(os.environ["WWM_FUZZ_URL"], json.dumps({"query": "New run"}).encode(),
                                     {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return str(json.load(reply)["data"][field])
    except urllib.error.HTTPError:
        return None


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: Any) -> None:
    body = case.body
    if isinstance(body, str):  # an XML document (the description's examples): its sample run ID
        field = f'{os.environ["WWM_FUZZ_ROLE"]} run ID'
        if "RUN-ID" in body and next(_turn) % 2 == 0:
            run = _runs.get(field) or _new_run(field)
            if run is not None:
                _runs[field] = run
                case.body = body.replace("RUN-ID", run)
                if '"End run"' in body:
                    _runs.pop(field, None)
        return
    if not isinstance(body, dict) or body.get("query") in (None, "New run") or not isinstance(body.get("data"), dict):
        return
    field = f'{os.environ["WWM_FUZZ_ROLE"]} run ID'
    if field not in body["data"] or next(_turn) % 2:
        return
    run = _runs.get(field) or _new_run(field)
    if run is None:
        return
    _runs[field] = body["data"][field] = run
    if body["query"] == "End run":
        del _runs[field]


@schemathesis.check
def no_server_failure(ctx: Any, response: Any, case: Any) -> None:
    """No HTTP 500: the server's own failure (a ``server-error`` refusal or an uncaught exception).
    Other 5xx statuses are documented refusals (``unsupported-query`` is 501, ``busy`` 503), which
    schemathesis's ``not_a_server_error`` would count as failures too."""
    if response.status_code == 500:
        raise AssertionError(f"HTTP 500: {response.text[:300]}")


@schemathesis.serializer("application/xml")
def wwm_xml(ctx: Any, value: Any) -> bytes:
    """An XML body as the description gives it (a document: its examples, or any text the
    fuzzer made of its string schema), sent as it is; anything else, as the XML of section
    11.2.1."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return to_xml(value)
