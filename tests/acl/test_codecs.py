"""The three message codecs: FIPA SC00070 strings (reference examples, generated round
trips, malformed input naming the position), JSON, and the WWM XML/JSON envelope."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from acl_strategies import messages as _messages
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.acl import envelope, fipa, jsonform
from wwm.acl.message import AID, AclError, ACLMessage
from wwm.protocol import jsoncodec, xmlcodec

# JADE's ACLMessage.toString() output (upper-case performative, padded spacing) and the
# examples of the FIPA specifications.
JADE_REQUEST = """(REQUEST
 :sender  ( agent-identifier :name da0@myhost:1099/JADE  :addresses (sequence http://myhost:7778/acc ))
 :receiver  (set ( agent-identifier :name ams@myhost:1099/JADE  :addresses (sequence http://myhost:7778/acc )) )
 :content  "((action (agent-identifier :name ams@myhost:1099/JADE) (register-agent)))"
 :language  fipa-sl0  :ontology  FIPA-Agent-Management  :protocol  fipa-request
 :conversation-id  C123_456 :reply-with  R1 :reply-by 20020604T101500000Z )"""

FIPA_INFORM = """(inform
  :sender (agent-identifier :name i)
  :receiver (set (agent-identifier :name j))
  :content "weather (today, raining)"
  :language Prolog)"""

FIPA_CFP = """(cfp
 :sender (agent-identifier :name j)
 :receiver (set (agent-identifier :name i))
 :content "((action (agent-identifier :name i) (sell plum 50)) (any ?x (and (= (price plum) ?x) (< ?x 10))))"
 :ontology fruit-market
 :language fipa-sl)"""

JADE_NOT_UNDERSTOOD = """(NOT-UNDERSTOOD
 :sender ( agent-identifier :name b@p :X-JADE-agent-classname Seller )
 :receiver (set ( agent-identifier :name a@p ) ( agent-identifier :name c@p ) )
 :reply-to (set ( agent-identifier :name a2@p ) )
 :content #9"(not "x")
 :encoding  UTF-8
 :in-reply-to R1 :X-JADE-Priority 3 )"""


def test_jade_request_parses_to_every_field() -> None:
    m = fipa.loads(JADE_REQUEST)
    assert m.performative == "request"
    assert m.sender == AID("da0@myhost:1099/JADE", ("http://myhost:7778/acc",))
    assert [r.name for r in m.receivers] == ["ams@myhost:1099/JADE"]
    assert m.content == "((action (agent-identifier :name ams@myhost:1099/JADE) (register-agent)))"
    assert (m.language, m.ontology, m.protocol) == ("fipa-sl0", "FIPA-Agent-Management", "fipa-request")
    assert (m.conversation_id, m.reply_with) == ("C123_456", "R1")
    assert m.reply_by == datetime(2002, 6, 4, 10, 15, tzinfo=UTC)


def test_byte_length_strings_user_parameters_and_reply_to() -> None:
    m = fipa.loads(JADE_NOT_UNDERSTOOD)
    assert m.performative == "not-understood"
    assert m.content == '(not "x")'
    assert m.sender.user == (("X-JADE-agent-classname", "Seller"),)
    assert [a.name for a in m.receivers] == ["a@p", "c@p"] and m.reply_to[0].name == "a2@p"
    assert m.get("X-JADE-Priority") == "3" and m.get("jade-priority") == "3"
    assert m.encoding == "UTF-8" and m.in_reply_to == "R1"


@pytest.mark.parametrize("text", [JADE_REQUEST, FIPA_INFORM, FIPA_CFP, JADE_NOT_UNDERSTOOD])
def test_reference_examples_round_trip(text: str) -> None:
    m = fipa.loads(text)
    assert fipa.loads(fipa.dumps(m)) == m
    assert jsonform.loads(jsonform.dumps(m)) == m
    assert fipa.dumps(fipa.loads(fipa.dumps(m))) == fipa.dumps(m)


def test_a_transcript_of_several_messages() -> None:
    assert [m.performative for m in fipa.loads_all(FIPA_INFORM + "\n" + FIPA_CFP)] == ["inform", "cfp"]


@settings(max_examples=120, deadline=None)
@given(_messages)
def test_fipa_string_round_trip(m: ACLMessage) -> None:
    assert fipa.loads(fipa.dumps(m)) == m


@settings(max_examples=80, deadline=None)
@given(_messages)
def test_json_round_trip(m: ACLMessage) -> None:
    assert jsonform.loads(jsonform.dumps(m)) == m


def _strip(m: ACLMessage) -> ACLMessage:
    """What the XML envelope keeps: values without white space at their edges."""
    def s(v):
        return v.strip() if isinstance(v, str) else v
    return m.with_(content=s(m.content), encoding=s(m.encoding), ontology=s(m.ontology),
                   conversation_id=s(m.conversation_id), user=tuple((k, s(v)) for k, v in m.user))


@settings(max_examples=80, deadline=None)
@given(_messages)
def test_wwm_envelope_round_trip_in_both_encodings(m: ACLMessage) -> None:
    query = envelope.to_query(m, "run-1")
    back = jsoncodec.decode(jsoncodec.encode(query))
    assert envelope.from_items(back.data) == m
    try:
        raw = xmlcodec.encode(query)
    except ValueError:
        return
    if any(ord(c) < 32 and c not in "\t\n" for c in raw.decode()):
        return  # XML 1.0 cannot carry these (and turns \r into \n): JSON is exact for them
    assert envelope.from_items(xmlcodec.decode(raw).data) == _strip(m)


# ---- malformed input --------------------------------------------------------------------------
@pytest.mark.parametrize("text, position, words", [
    ("(inform", 7, "not closed"),
    ("(infrom :content \"x\")", 1, "unknown performative 'infrom'"),
    ("(inform :content \"x)", 17, "string literal is not closed"),
    ("(inform :sender (agent-identifier))", 16, "needs :name"),
    ("(inform :reply-by 2002)", 18, "YYYYMMDDThhmmssmmm"),
    ("(inform :content #5\"ab)", 17, "promises 5 bytes"),
    ("(inform :colour red)", 8, "unknown message parameter ':colour'"),
    ("(inform :content \"a\" :content \"b\")", 21, "appears twice"),
    ("(inform) trailing", 9, "after the end"),
    ("inform", 0, "expected '('"),
    ("", 0, "expected '('"),
    ("(inform :receiver (list (agent-identifier :name a)))", 19, "expected 'set'"),
    ("(inform :reply-by 20021301T000000000Z)", 18, "not a valid time"),
])
def test_malformed_strings_name_the_position(text: str, position: int, words: str) -> None:
    with pytest.raises(fipa.FipaSyntaxError) as err:
        fipa.loads(text)
    assert err.value.position == position
    assert f"position {position}" in str(err.value) and words in str(err.value)


@pytest.mark.parametrize("text, position, words", [
    ("(inform :content " + "(" * 5000, 117, "nested more than 100 deep"),
    ("(inform :X-a " + "(" * 3000 + ")" * 3000 + ")", 113, "nested more than 100 deep"),
    ("(inform :sender " + "(agent-identifier :name a :resolvers (sequence " * 800, 4717,
     "agent identifiers nested more than 100 deep"),
])
def test_deep_nesting_is_a_syntax_error_not_a_crash(text: str, position: int, words: str) -> None:
    with pytest.raises(fipa.FipaSyntaxError, match=words) as err:
        fipa.loads(text)
    assert err.value.position == position
    nested = "(inform :X-a " + "(" * 100 + ")" * 100 + ")"      # as deep as allowed: read
    assert fipa.loads(nested).get("X-a") == "(" * 100 + ")" * 100


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='()":#-x0123456789 abcinformqueryTZ\\', max_size=60))
def test_arbitrary_text_never_crashes_the_parser(text: str) -> None:
    try:
        fipa.loads(text)
    except AclError:
        pass


@pytest.mark.parametrize("doc, words", [
    ({"content": "x"}, "needs \"performative\""),
    ({"performative": "shout"}, "unknown performative"),
    ({"performative": "inform", "receiver": "b"}, "must be a list"),
    ({"performative": "inform", "sender": {"addresses": []}}, "non-empty \"name\""),
    ({"performative": "inform", "reply-by": "tomorrow"}, "not an ISO 8601 time"),
    ({"performative": "inform", "colour": "red"}, "unknown message parameter 'colour'"),
    ({"performative": "inform", "X-n": 3}, "must be text"),
])
def test_bad_json_is_named(doc: dict, words: str) -> None:
    with pytest.raises(AclError, match=words):
        jsonform.from_dict(doc)


def test_bad_envelope_items_are_named() -> None:
    with pytest.raises(AclError, match='"sender"'):
        envelope.from_items({"performative": "inform", "sender": "(agent-identifier :nom a)"})
    with pytest.raises(AclError, match="needs the item \"performative\""):
        envelope.from_items({"content": "x"})
    with pytest.raises(AclError, match="reply-by"):
        envelope.from_items({"performative": "inform", "reply_by": "soon"})


def test_reply_keeps_the_conversation() -> None:
    a, b = AID("a", ("http://a/",)), AID("b")
    m = ACLMessage("request", a, (b,), content="x", conversation_id="c1", reply_with="r1", protocol="fipa-request")
    r = m.reply("agree", sender=b, act="promise")
    assert (r.receivers, r.conversation_id, r.in_reply_to, r.protocol, r.act) == (
        (a,), "c1", "r1", "fipa-request", "promise")


def test_a_relative_reply_by_is_read_as_an_absolute_time() -> None:
    before = datetime.now(UTC)
    m = fipa.loads("(request :reply-by +00000001T010000500)")      # in a day, an hour and 0.5 s
    later = fipa.loads("(request :reply-by +00010200T000000000Z)")  # a year and two 30-day months
    past = fipa.loads("(request :reply-by -00000000T000010000)")
    after = datetime.now(UTC)
    wanted = timedelta(days=1, hours=1, milliseconds=500)
    assert before + wanted - timedelta(milliseconds=1) <= m.reply_by <= after + wanted
    assert before + timedelta(days=425, milliseconds=-1) <= later.reply_by <= after + timedelta(days=425)
    assert before - timedelta(seconds=10, milliseconds=1) <= past.reply_by <= after - timedelta(seconds=10)
    assert fipa.loads(fipa.dumps(m)) == m                           # written back as absolute UTC
    with pytest.raises(fipa.FipaSyntaxError, match="outside the years 1 to 9999") as err:
        fipa.loads("(request :reply-by +99999999T000000000)")
    assert err.value.position == 19


def test_a_reply_by_before_year_1000_keeps_four_digits() -> None:
    m = ACLMessage("inform", reply_by=datetime(999, 1, 2, 3, 4, 5, 6000, tzinfo=UTC))
    assert ":reply-by 09990102T030405006Z" in fipa.dumps(m)
    assert fipa.loads(fipa.dumps(m)) == m
    assert envelope.from_items(envelope.to_items(m)) == m
