"""Protocols written as data files: the shipped ones survive the round trip, a new one
(FIPA Request-When, with the acknowledgement) checks clean, a flawed one is reported, and a
malformed file is named."""

from __future__ import annotations

import re

import pytest
import yaml

from wwm.acl.protocols import PROTOCOLS, ProtocolError, check, from_dict, load, to_dict
from wwm.cli.main import main

REQUEST_WHEN = """
name: fipa-request-when
initial: start
states: {start: 1, requested: 2, agreed: 3, done: 4, acknowledged: 5, refused: 8, failed: 7}
arcs:
  - {from: start, to: requested, role: initiator, performative: request-when, act: request}
  - {from: requested, to: agreed, role: participant, performative: agree, act: promise}
  - {from: requested, to: refused, role: participant, performative: refuse, act: refuse}
  - {from: agreed, to: done, role: participant, performative: inform, act: assert}
  - {from: agreed, to: failed, role: participant, performative: failure, act: fail}
  - {from: done, to: acknowledged, role: initiator, performative: inform, act: declare}
"""


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_shipped_protocols_round_trip_through_data(name: str) -> None:
    assert from_dict(yaml.safe_load(yaml.safe_dump(to_dict(PROTOCOLS[name])))) == PROTOCOLS[name]


def test_a_protocol_file_is_checked(tmp_path, capsys) -> None:
    good = tmp_path / "request-when.yaml"
    good.write_text(REQUEST_WHEN)
    assert check(load(str(good))) == []
    # drop the acknowledgement: the performer's duty to reach mutual belief dangles
    flawed = tmp_path / "flawed.yaml"
    flawed.write_text(REQUEST_WHEN.replace("done: 4", "done: 5").split("  - {from: done")[0])
    assert main(["acl", "protocols", str(good), str(flawed)]) == 1
    out = capsys.readouterr().out
    assert "fipa-request-when: 6 arcs, opens with request-when" in out and "leaves obligations" in out


@pytest.mark.parametrize("text, words", [
    ("name: x", "needs 'initial'"),
    ("[1, 2]", "must be a mapping"),
    (REQUEST_WHEN.replace("act: promise", "act: grovel"), "arc 2: unknown act 'grovel'"),
    (REQUEST_WHEN.replace("performative: agree", "performative: nod"), "arc 2: 'nod' is not a FIPA performative"),
    (REQUEST_WHEN.replace("to: agreed", "to: nowhere"), "arc 2: state 'nowhere' is not among the states"),
    (REQUEST_WHEN.replace("role: participant", "role: bystander", 1), "role must be initiator or participant"),
    (REQUEST_WHEN.replace("done: 4", "done: 12"), "a number 1 to 9"),
    ("name: [unclosed", "not YAML or JSON (line 1, column 16): "),
    (REQUEST_WHEN + "opening: request-when\n", "'opening' must be a list of FIPA performatives"),
    (REQUEST_WHEN + "opening: [shout]\n", "'opening' must be a list of FIPA performatives"),
    (REQUEST_WHEN.replace("initial: start", "initial: [start]"), "initial state ['start'] is not among"),
    (REQUEST_WHEN.replace("from: start", "from: [start]"), "arc 1: from must be a name, not a list"),
    (REQUEST_WHEN.replace("act: promise", "act: {a: 1}"), "arc 2: act must be a name, not a list or mapping"),
    (REQUEST_WHEN.replace("start: 1", "start: true"), "a number 1 to 9"),
])
def test_malformed_protocol_files_are_named(tmp_path, text: str, words: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ProtocolError, match=re.escape(words)):
        load(str(path))


def test_a_file_that_is_not_text_is_named(tmp_path) -> None:
    path = tmp_path / "p.yaml"
    path.write_bytes(b"name: \xd0\x00\xff")
    with pytest.raises(ProtocolError, match="not UTF-8 text"):
        load(str(path))


def test_a_registered_protocol_runs_in_the_engine(tmp_path) -> None:
    from wwm.acl.engine import Engine
    from wwm.acl.message import AID, ACLMessage
    from wwm.acl.protocols import register

    path = tmp_path / "rw.yaml"
    path.write_text(REQUEST_WHEN)
    register(load(str(path)))
    try:
        e = Engine()
        a, b = AID("a"), AID("b")
        steps = [("request-when", a, b, None), ("agree", b, a, None), ("inform", b, a, None),
                 ("inform", a, b, "declare")]
        for n, (perf, s, r, act) in enumerate(steps):
            [v] = e.handle(ACLMessage(perf, s, (r,), content="(when rain) (close window)", conversation_id="c",
                                      protocol="fipa-request-when", reply_with=f"m{n}",
                                      user=(("X-act", act),) if act else ()))
            assert v.accepted, v.reason
        assert e.talk("c", "a", "b").state == "acknowledged"
    finally:
        PROTOCOLS.unregister("fipa-request-when")
