"""Checks that a server understands the seed's own words (``wwm check``, beside
:mod:`.conformance`): a query with an element it does not know is answered, not refused
(section 11.2: "extend the tag definitions ... without breaking the old definitions"); query
and item names are matched without regard to case and as the seed's section 9 spells them
(``Q-Temperature``, ``mind strength``, ``Proposed length of next Q learning run``); and
"Get values for this action" on an action the mind cannot value is refused, not answered
with neither Q nor W (the seed lists both as its returns).

Each check runs inside a run the caller started (``run_id``) and leaves it as it found it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from xml.sax.saxutils import escape, quoteattr

from ..protocol import jsoncodec, xmlcodec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from .bindings import open_transport
from .inprocess import InProcessTransport
from .transport import HttpTransport

Step = Callable[[str, Callable[[], Awaitable[str]]], Awaitable[bool]]

#: An action no mind has a value for (a check's own words, in no world's vocabulary).
NO_SUCH_ACTION = "wwm-check: an action in no world"


async def seed_word_checks(url: str, role: str, query_sets: list[str], run_id: str, step: Step,
                           *, state: str = "x", timeout: float = 5.0) -> None:
    """The checks of the module's text, on the run ``run_id`` of the server at ``url``."""
    run_field = f"{role} run ID"
    transport = open_transport(url, timeout=timeout)

    async def answered(query: Query) -> Response:
        return await transport.exchange(query)

    raw_xml = open_transport(url, encoding="xml", timeout=timeout)
    raw_json = open_transport(url, encoding="json", timeout=timeout)
    if isinstance(raw_xml, HttpTransport | InProcessTransport) and isinstance(raw_json, HttpTransport |
                                                                               InProcessTransport):

        async def unknown_element() -> str:
            body = (f"<xml>\n<query name=\"No operation\">\n<data name={quoteattr(run_field)}>{escape(run_id)}</data>\n"
                    f"<extension name=\"wwm check\"><note>added later</note></extension>\n</query>\n"
                    f"<extension/>\n</xml>\n").encode()
            reply = await raw_xml.post_raw(body, "No operation")
            return _answered(xmlcodec.decode(reply.body), reply.status)

        async def unknown_member() -> str:
            body = json.dumps({"wwm": "1.0", "query": "No operation", "data": {run_field: run_id},
                               "extension": {"by": "wwm check"}}).encode()
            reply = await raw_json.post_raw(body, "No operation")
            return _answered(jsoncodec.decode(reply.body), reply.status)

        await step("an element it does not know is ignored (11.2)", unknown_element)
        await step("a JSON member it does not know is ignored", unknown_member)
    await raw_xml.close()
    await raw_json.close()

    async def any_case() -> str:
        await answered(Query("no OPERATION", {run_field.upper(): run_id}))
        return '"no OPERATION" with the item "' + run_field.upper() + '": answered'

    await step("query and item names in any case", any_case)
    if role == "mind" and "Mind_L" in query_sets:
        async def q_temperature() -> str:
            got = await answered(Query("Get Q-Temperature", {"mind run ID": run_id}))
            now = next((v for k, v in got.data.items() if k.casefold() == "q-temperature"), None)
            if now is None:
                return "no Q-Temperature to send back (optional)"
            await answered(Query("Send explicit Q-Temperature", {"mind run ID": run_id, "Q-Temperature": now,
                                                                 "Proposed length of next Q learning run": "100"}))
            return f"Q-Temperature {now} sent back in the seed's words"

        await step("the seed's spellings: Q-Temperature, Proposed length of next Q learning run", q_temperature)
    if role == "mind" and "Mind_i" in query_sets:
        async def strength() -> str:
            got = await answered(Query("Get mind strength", {"mind run ID": run_id}))
            now = next((v for k, v in got.data.items() if "strength" in k.casefold()), None)
            if now is None:
                return "no mind strength to send back (optional)"
            await answered(Query("Change mind strength", {"mind run ID": run_id, "mind strength": now}))
            return f"mind strength {now} sent back in the seed's words"

        async def cannot_value() -> str:
            try:
                got = await answered(Query("Get values for this action", {"mind run ID": run_id, "state": state,
                                                                          "action": NO_SUCH_ACTION}))
            except Refusal as refusal:
                assert refusal.code not in ("server-error", "unknown-query"), f"refused with {refusal.code}"
                return f"refused: {refusal.code}: {refusal.text}"
            assert got.data.get("Q") is not None or got.data.get("W") is not None, \
                "answered with neither Q nor W: refuse an action the mind cannot value"
            return "valued it (Q or W)"

        await step("the seed's spelling: mind strength", strength)
        await step("Get values for an action it cannot value is refused", cannot_value)
    await transport.close()


def _answered(message: Query | Response, status: int) -> str:
    """What a check says of a reply that must be an answer, not a refusal."""
    assert isinstance(message, Response), "answered with a query"
    refusal = message.refusal
    if refusal is not None:
        raise AssertionError(f"refused: {refusal.code}: {refusal.text}")
    return f"answered (HTTP {status})"
