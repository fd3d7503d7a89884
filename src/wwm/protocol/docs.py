"""docs/protocol.md, generated from the query tables and the refusal codes so the document
cannot drift from the code: ``python -m wwm.protocol.docs > docs/protocol.md``."""

from __future__ import annotations

from . import limits
from .errors import CODES
from .queries import PROTOCOL_VERSION, QUERIES, QUERY_SETS, Kind
from .schemas import RETURN_ITEMS, load_extensions

INTRO = f"""# The World-Wide-Mind protocol, version {PROTOCOL_VERSION}

Generated from `src/wwm/protocol/queries.py` and `errors.py` by
`python -m wwm.protocol.docs`; do not edit by hand. Schemas: `schemas/wwm-protocol.xsd`
(XML) and `schemas/wwm-protocol.schema.json` (JSON).

## Messages

A query is POSTed to the server's URL; the response comes back in the same encoding.
The encoding is chosen by Content-Type (`application/xml` or `text/xml`; `application/json`),
else by the first byte of the body, so the XML of section 11.2.1 sent with `curl -d` works.
Two persistent bindings take the same messages, for clients that want speed: one per WebSocket
message at `<URL>/ws`, and over plain TCP (a server started with `--tcp-port N` announces
`tcp://host:N` in its card under `bindings`), each message framed as a 4-byte big-endian length
followed by that many bytes. Answers come back in the order the queries were sent, on every
binding, so a client may send several queries without waiting (HTTP/1.1 pipelining on the
query URL, or frames back to back): `wwm run` sends Inform and the next Get action that way.
A TCP frame longer than the server accepts is refused (`too-large`) and the connection closed.
Every server describes its bindings for programs, generated from the same tables as this page
and the schemas (`wwm.protocol.openapi`): `<URL>/openapi.json` is an OpenAPI 3.1 description of
the HTTP binding (one operation, POST of any of its queries, each answer and each refusal code
under its HTTP status; New run with the server's own arguments) and `<URL>/asyncapi.json` an
AsyncAPI 3.0 description of the WebSocket and TCP bindings. Those of a World and of a Mind
server answering every query set are in `schemas/` (`wwm-world.openapi.json`,
`wwm-mind.asyncapi.json`, ...).

XML, exactly as section 11.2.1 prints it (the root may carry `wwm="{PROTOCOL_VERSION}"`):

```xml
<xml>
<query name="Get action">
<data name="mind run ID"> 5505 </data>
<data name="state">
x
</data>
</query>
</xml>
```

```xml
<xml>
<response name="Get action">
<data name="action">a</data>
</response>
</xml>
```

JSON, item for item the same:

```json
{{"wwm": "{PROTOCOL_VERSION}", "query": "Get action", "data": {{"mind run ID": "5505", "state": "x"}}}}
{{"wwm": "{PROTOCOL_VERSION}", "response": "Get action", "data": {{"action": "a"}}}}
```

Conventions:
- States and actions are opaque text, interpreted by the servers that agree on them
  (section 9.1 note 2). In XML, white space around any value is not part of it (the seed pads
  values); a state whose edges matter travels as JSON, which keeps text exactly.
- A repeated `<data>` name is a list (the Mind_AS list of Mind URLs); in JSON, an array.
- Numbers are decimal text in XML; booleans are `true` / `false`.
- Every query may carry `client URL`, the caller's URL: servers learn their credit trail
  from it (section 7.2) and publish it at their URL.
- Items a query does not name are the "open-ended set of arguments" of the seed's tables,
  where the table allows them (marked *open* below). A Python server receives every item as
  a keyword named by lower-casing and replacing other characters with `_`
  (`Q-temperature` → `q_temperature`), except that a method (or constructor) with a
  parameter `wire_items` receives the open items in that one dict under their exact wire
  names (`X-CamelCase` stays `X-CamelCase`).
- A query may also be sent by the seed's own longer name where this protocol's is shorter
  (`Add mind to collection` for `Add mind`, listed with each query below); the answer carries
  the name the query was sent by, and a server's card lists them under `query_aliases`.
  Query and item names are matched without regard to case, and an item may be spelt as the
  seed's section 9 spells it (`Q-Temperature`, `mind strength`, `Proposed length of next Q
  learning run`, `Mind server URL`, `destination state c`: listed with each item below).
- Elements a server does not know, inside `<query>` or beside it in `<xml>`, and JSON members
  it does not know, are ignored, not refused: section 11.2 lets tags be added without breaking
  old servers. A server's card says what it reads and what it ignores under `understands`.
- "Get values for this action" on an action the mind cannot value (it has neither Q nor W
  for it) is refused with `bad-parameters`, not answered empty: the seed lists Q and W as
  its returns.
- The `world display URL` a Mind's New run carries must be an absolute `http://`, `https://`,
  `ws://` or `wss://` URL with a host; anything else is refused with `world-display-url-invalid`
  naming the value (the `client URL` of any query with `client-url-invalid`).
- `New run` answers with the run ID (secret: known only to the client) and a display URL.
- "Cannot suggest action" is the item `cannot suggest action` (with an optional reason),
  which is not the action "Do nothing".
- `Execute action` may answer `run finished` = `true` when the world has ended the run.

## Sequence numbers: each step once

A client cannot tell a server that never got a query from one that acted on it and then lost
the connection, or was killed, before its answer arrived. Sent again, the query would act
twice (one "north" walks two squares); not sent again, the client's record would miss a step
the world took. So every query that changes a run (all but `New run`, `Get state`,
`Get display URL`, `Get current score` and `No operation`) may carry the optional item
`sequence number`: a whole number from 0 to 2^53-1, one more than the last the client gave in
that run, and the **same** number when the query is sent again because its answer was lost.

- A server that keeps sequence numbers says so in its answer to `New run`:
  `sequence numbers` = `true`. A client numbers its queries only then, so a server that does
  not know the item never sees it; a query without a number is answered as always.
- The server keeps the answers of each run's last four numbered queries, with the run (and,
  for a server started with `--state`, in the same row of its state file as the run's state,
  written before the answer leaves: a `kill -9` at any moment keeps both or neither). A query
  whose number is among them is not acted on again: it gets the kept answer, with the item
  `repeated` = `true`. A number being acted on when it comes again waits for that answer. A
  number kept for another query of the run is refused (`bad-parameters`); any other number is
  acted on.
- The numbers need not start at 1: a client carrying on a run it did not start (re-attached
  from a record, restored from a snapshot) does not know the server's last one and starts
  from a random number.

```json
{{"query": "Execute action", "data": {{"world run ID": "r", "action": "north", "sequence number": 12}}}}
{{"wwm": "{PROTOCOL_VERSION}", "response": "Execute action", "data": {{"state": "s", "score": 1, "repeated": true}}}}
```

`wwm`'s client numbers its queries; its HTTP client, which sends a query once more on a fresh
connection when a kept-alive one drops, sends it with the same number, and a run whose World
was down during an Execute action sends that action again, with its number, once the World
answers: the step is recorded once, noted as recovered.

## Refusals

A refused query is answered with its refusal, a code from this list and a text:

```xml
<xml>
<response name="Get state">
<refusal code="unknown-run">no run with ID 'abc' is in progress on this server</refusal>
</response>
</xml>
```

```json
{{"wwm": "{PROTOCOL_VERSION}", "response": "Get state", "refusal": {{"code": "unknown-run", "text": "..."}}}}
```

Over HTTP the status code says the same (listed below); the body is the authority.
"""


def render() -> str:
    load_extensions()
    lines = [INTRO, "| code | HTTP | meaning | from |", "|---|---|---|---|"]
    for code in CODES.values():
        lines.append(f"| `{code.code}` | {code.http_status} | {code.meaning} | {code.source} |")
    lines += ["", "## Queries", "",
              "Run-ID item: `world run ID` on World servers, `mind run ID` on Mind servers; "
              "every query but New run needs it.", ""]
    for query_set, role in QUERY_SETS.items():
        lines += [f"### {query_set} ({role} servers)", "",
                  "| query | items sent | items returned | refusals |", "|---|---|---|---|"]
        for spec in QUERIES.values():
            if spec.query_set != query_set:
                continue
            sent = [f"`{f.wire}`" + (" (optional)" if f.optional else "")
                    + (" (repeated)" if f.kind is Kind.URLS else "")
                    + (" (or " + ", ".join(f"`{a}`" for a in f.aliases) + ")" if f.aliases else "")
                    for f in spec.arguments]
            if spec.open_arguments:
                sent.append("*open*")
            returned = [f"`{r.replace('<role>', role)}`" for r in RETURN_ITEMS[spec.returns]] or ["confirm"]
            refusals = ", ".join(f"`{r}`" for r in spec.refusals) or "-"
            name = spec.name + (f" — {spec.doc}" if spec.doc else "")
            if spec.aliases:
                name += " Also answered as " + ", ".join(f'"{a}"' for a in spec.aliases) + " (the seed's name)."
            lines.append(f"| {name} | {', '.join(sent) or '-'} | {', '.join(returned)} | {refusals} |")
        lines.append("")
    lines += ["Any query may also be refused with `unknown-run`, `run-ended`, `unsupported-query`, "
              "`malformed-message`, `forbidden-xml`, `too-large`, `unsupported-version`, "
              "`unsupported-encoding`, `bad-parameters` or `server-error`.", ""]
    lines += _limits()
    return "\n".join(lines)


def _limits() -> list[str]:
    """The section on what a server takes from a stranger (from :mod:`.limits`)."""
    L = limits
    rows = [
        ("a message (an HTTP body, a TCP frame, a WebSocket message)", "1 MiB (`--max-body`)", "`too-large`"),
        ("a `client URL`", f"{L.CLIENT_URL:,} characters, and a URL (http(s), ws(s), tcp with a host, urn:, mailto:)",
         "`client-url-invalid`"),
        ("a run ID", f"{L.RUN_ID:,} characters (a server's own are 22)", "`unknown-run`"),
        ("data items in one query", f"{L.ITEMS:,}, each name at most {L.ITEM_NAME:,} characters",
         "`bad-parameters`"),
        ("a run's last state and action, kept for its display page", f"{L.KEPT_TEXT:,} characters (cut)", "-"),
        ("runs in progress", f"{L.RUNS:,} (`--max-runs`)", "`busy`"),
        ("runs per client URL, and per network address",
         f"{L.RUNS_PER_CLIENT:,} (`--runs-per-client`) and {L.RUNS_PER_ADDRESS:,} (`--runs-per-address`); "
         "a New run past either ends that client's (address's) least recently queried run, which then "
         "answers `run-ended`", "-"),
        ("open connections from one address", f"{L.CONNECTIONS_PER_ADDRESS:,} (`--connections-per-address`)",
         "HTTP 503 / `busy` frame / WebSocket close 1013"),
        ("time to send a first whole request (HTTP head, TCP frame, WebSocket message)",
         f"{L.SILENT_SECONDS:g} s (`--silent-timeout`)", "connection closed"),
        ("an HTTP request's line and headers", f"{L.HEAD_BYTES // 1024} KiB", "HTTP 431, connection closed"),
        ("HTTP requests read ahead of their answers on one connection", f"{L.PIPELINED}",
         "reading paused"),
        ("persistent-binding messages waiting behind an answer", f"{L.WAITING}", "reading paused"),
    ]
    lines = ["## Limits and quotas", "",
             "A server is meant to be put online for strangers, so what a client can make it hold is",
             "bounded (`wwm.protocol.limits` holds these figures; a server's options change the",
             "ones named):", "", "| what | at most | past it |", "|---|---|---|"]
    lines += [f"| {what} | {most} | {past} |" for what, most, past in rows]
    lines += ["",
              f"- A refusal quotes at most {L.QUOTED} characters of a value sent and names at most "
              f"{L.NAMED} items of a list (then how many more).",
              "- A refused query leaves no trace in the server's credit trail; a `client URL` that is "
              "not a URL is never listed there.",
              "- A client that does not read its answers is not read either: a connection's reading "
              "stops while its answers wait unsent, and a persistent binding answers one read "
              f"{L.TURN} messages at a time before other connections have their turn.",
              "- A query for a run that ended (End run, its idle time-out, a lapsed lease, or giving "
              "way to its client's New run) is refused with `run-ended`, saying which; a run ID never "
              "issued, with `unknown-run`.",
              "- Numbers are finite both ways: a score, Q or W that is not (`inf`, `nan`, `1e999`) is "
              "refused on input (`bad-parameters`) and never sent: a method whose result is not "
              "finite (a sum of scores past the float range) is answered `server-error`.",
              "- A restart with `--state` takes back at most half of `--max-runs` (the runs saved "
              "last, each client's share at most), so it never starts full.", ""]
    return lines


if __name__ == "__main__":
    print(render(), end="")
