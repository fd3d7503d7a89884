"""Every server role fuzzed from its own description: a World, a Mind and a Mind_AS, each a
real ``wwm serve`` process on loopback, serve ``/openapi.json``; schemathesis (fixed seed,
bounded examples) sends what that description allows and what it forbids, in JSON and in
XML bodies (the description's two request types, :mod:`xml_bodies`), half of its queries in
a live run (:mod:`fuzz_hooks`). No 500, no hang, every answer as described, every refusal a
documented code with its documented HTTP status. (The WebSocket and TCP bindings:
test_wire_fuzz.py.)

Not checked: that the description is exact both ways (schemathesis's
``positive_data_acceptance`` / ``negative_data_rejection``): an argument's constructor may
refuse values its type allows (a negative step count), and pydantic's lax mode reads ``false``
as 0, so a description can only be as tight as the types it is generated from."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate

from wwm.protocol import xmlcodec
from wwm.protocol.errors import CODES
from wwm.protocol.messages import Response
from wwm.server.process import ServerProcess

# not_a_server_error counts every 5xx as a failure; a 501 (unsupported-query) or a 503 (busy)
# is a documented refusal, so fuzz_hooks.no_server_failure checks for 500 instead
CHECKS = ",".join(["no_server_failure", "status_code_conformance", "content_type_conformance",
                   "response_schema_conformance", "response_headers_conformance",
                   "unsupported_method", "allow_header_conformance"])
HERE = Path(__file__).resolve().parent
SERVERS = {"world": "grid", "mind": "q-learning", "mind_as": "action-selection"}
# The coverage phase (boundary and malformed values of every item, ~1000 cases) for one role
# only: the front door it mostly exercises (codecs, versions, item kinds) is the same code in
# all three, and its thousand cases per server cost seconds.
PHASES = {"world": "examples,coverage,fuzzing,stateful", "mind": "examples,fuzzing,stateful",
          "mind_as": "examples,fuzzing,stateful"}


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.load(reply)


def fuzz(url: str, role: str, har: Path, phases: str, examples: int = 10) -> subprocess.Popen[str]:
    """schemathesis against the server at ``url``, started (the three servers are fuzzed at once)."""
    schemathesis = Path(sys.executable).with_name("schemathesis")
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "SCHEMATHESIS_HOOKS": "fuzz_hooks", "WWM_FUZZ_URL": url,
           "WWM_FUZZ_ROLE": role}
    return subprocess.Popen(
        [str(schemathesis), "run", f"{url}openapi.json", "--checks", CHECKS, "--mode", "all", "--phases", phases,
         "--max-examples", str(examples), "--seed", "16", "--generation-database", "none",
         "--max-response-time", "5", "--request-timeout", "10", "--workers", "1", "--no-color",
         "--report", "har", "--report-har-path", str(har)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        cwd=har.parent)  # (schemathesis keeps a .schemathesis/ cache where it runs)


def check_description(url: str, card: dict[str, Any]) -> None:
    """/openapi.json is valid OpenAPI naming the card's queries; /asyncapi.json names them too."""
    description = _get(url + "openapi.json")
    validate(description)
    mapping = description["paths"]["/"]["post"]["requestBody"]["content"]["application/json"]["schema"][
        "discriminator"]["mapping"]
    assert sorted(mapping) == sorted([*card["queries"], *card["query_aliases"]])  # (the seed's names too)
    # the XML body: a document, not the JSON schema, with an example of each query that the
    # XML codec reads back as that query
    xml = description["paths"]["/"]["post"]["requestBody"]["content"]["application/xml"]
    assert xml["schema"]["type"] == "string" and xml["schema"]["contentMediaType"] == "application/xml"
    read = [xmlcodec.decode(example["value"].encode()) for example in xml["examples"].values()]
    assert sorted(q.name for q in read) == sorted(card["queries"])
    channel = _get(url + "asyncapi.json")["channels"]["queries"]["messages"]
    assert {m for m in channel if m.endswith("_query")} == {ref.rsplit("/", 1)[1] for ref in mapping.values()}


def answers_in(har: Path) -> Counter[tuple[str, str | None, str]]:
    """(query, refusal code or None, encoding) of every answer to a query in the fuzzer's HAR
    file, each checked: never a 500, every refusal with its documented HTTP status, an XML
    query answered in XML."""
    answers: Counter[tuple[str, str | None, str]] = Counter()
    for entry in json.loads(har.read_text())["log"]["entries"]:
        status, text = entry["response"]["status"], entry["response"]["content"].get("text", "")
        assert status != 500, text
        if entry["request"]["method"] != "POST":
            continue
        asked = {h["name"].lower(): h["value"] for h in entry["request"]["headers"]}.get("content-type", "")
        if text.startswith("{"):
            answer = json.loads(text)
            name, code, encoding = answer["response"], (answer.get("refusal") or {}).get("code"), "json"
        elif text.startswith("<"):
            message = xmlcodec.decode(text.encode())
            assert isinstance(message, Response), text
            name, code, encoding = message.name, message.refusal.code if message.refusal else None, "xml"
        else:
            continue
        # an XML query is answered in XML (a refusal of an unreadable body in what it declared)
        assert (encoding == "xml") == ("xml" in asked), (asked, text[:200])
        assert code is None or CODES[code].http_status == status, (code, status)
        answers[(name, code, encoding)] += 1
    return answers


def _ask(url: str, query: str, **data: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, json.dumps({"query": query, "data": data}).encode(),
                                     {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def check_non_finite_numbers_refused(url: str) -> None:
    """A number item or argument of "nan" or "inf" (decimal text, as XML carries every number)
    is refused as bad-parameters; it used to be taken, and poisoned the run: the q-learning
    mind's next Get action failed with HTTP 500 ("Total of weights must be finite")."""
    run = _ask(url, "New run")[1]["data"]["mind run ID"]
    for query, data in [("Inform it about state", {"state": "t", "score": "nan"}),
                        ("Send explicit Q-Temperature", {"Q-temperature": "inf"}),
                        ("Get current score", {"score": "-1e999"})]:
        status, answer = _ask(url, query, **{"mind run ID": run}, **data)
        assert (status, answer["refusal"]["code"]) == (400, "bad-parameters"), answer
        assert "finite number" in answer["refusal"]["text"]
    status, answer = _ask(url, "Get action", **{"mind run ID": run, "state": "s", "Q-temperature": "nan"})
    assert (status, answer["refusal"]["code"]) == (400, "bad-parameters"), answer  # a per-step item
    status, answer = _ask(url, "New run", w_initial="nan")
    assert (status, answer["refusal"]["code"]) == (400, "bad-parameters"), answer
    assert _ask(url, "Get action", **{"mind run ID": run}, state="s")[0] == 200


@pytest.mark.slow
def test_fuzzed_servers_answer_as_described(tmp_path):
    with contextlib.ExitStack() as stack:
        servers = {role: stack.enter_context(ServerProcess(target)) for role, target in SERVERS.items()}
        check_non_finite_numbers_refused(servers["mind"].url)
        fuzzers = {}
        for role, server in servers.items():
            card = server.card()
            check_description(server.url, card)
            fuzzers[role] = fuzz(server.url, card["role"], tmp_path / f"{role}.har", PHASES[role])
        for role, fuzzer in fuzzers.items():
            output, _ = fuzzer.communicate(timeout=120)
            assert fuzzer.returncode == 0, f"{role}: {output[-4000:]}"
            assert servers[role].alive, role
    for role in SERVERS:
        answers = answers_in(tmp_path / f"{role}.har")
        # the fuzzer got past the front door: runs started, and queries answered within them;
        # and XML bodies were read, not only refused
        assert answers[("New run", None, "json")] > 0, (role, answers)
        assert sum(n for (name, code, _), n in answers.items() if name != "New run" and code is None) > 0, \
            (role, answers)
        assert sum(n for (_, code, enc), n in answers.items() if code is None and enc == "xml") > 0, (role, answers)
