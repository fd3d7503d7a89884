"""The FIPA XML representation (SC00071E) beside the string one (SC00070): the same messages
round-trip through both, and through one into the other; the specification's example reads;
what XML cannot carry, or malformed and hostile XML, is refused with the reason."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from acl_strategies import xml_messages
from hypothesis import given, settings

from wwm.acl import fipa, fipaxml
from wwm.acl.message import AID, AclError, ACLMessage

# The shape of SC00071E's example (sender, receivers, content, language, ontology,
# reply-by, a user-defined parameter), written with spaces and new lines as a person would.
SPEC_LIKE = """<?xml version="1.0"?>
<fipa-message act="inform" conversation-id="c-42">
  <sender>
    <agent-identifier>
      <name id="i@example.org"/>
      <addresses><url href="http://example.org:7778/acc"/></addresses>
    </agent-identifier>
  </sender>
  <receiver>
    <agent-identifier><name id="j@example.org"/></agent-identifier>
    <agent-identifier><name id="k@example.org"/></agent-identifier>
  </receiver>
  <content>weather (today, raining) &amp; cold</content>
  <language>Prolog</language>
  <ontology>weather</ontology>
  <reply-by time="20261125T013000000Z"/>
  <user-defined href="X-priority">3</user-defined>
</fipa-message>"""


def test_a_document_in_the_specifications_shape_reads_to_every_field() -> None:
    m = fipaxml.loads(SPEC_LIKE)
    assert m.performative == "inform" and m.conversation_id == "c-42"
    assert m.sender == AID("i@example.org", ("http://example.org:7778/acc",))
    assert [r.name for r in m.receivers] == ["j@example.org", "k@example.org"]
    assert (m.content, m.language, m.ontology) == ("weather (today, raining) & cold", "Prolog", "weather")
    assert m.reply_by == datetime(2026, 11, 25, 1, 30, tzinfo=UTC) and m.get("priority") == "3"
    assert fipa.loads(fipa.dumps(m)) == m == fipaxml.loads(fipaxml.dumps(m))


@settings(max_examples=300, deadline=None)
@given(xml_messages)
def test_the_same_messages_round_trip_through_both_encodings(m: ACLMessage) -> None:
    as_string, as_xml = fipa.dumps(m), fipaxml.dumps(m)
    assert fipa.loads(as_string) == m
    assert fipaxml.loads(as_xml) == m
    assert fipaxml.loads(fipaxml.dumps(fipa.loads(as_string))) == m   # string, then XML
    assert fipa.loads(fipa.dumps(fipaxml.loads(as_xml))) == m          # XML, then string
    assert fipaxml.loads(as_xml.encode("utf-8")) == m


def test_edges_xml_would_normalise_come_back_exactly() -> None:
    m = ACLMessage("request", sender=AID("a\tb\nc"), receivers=(AID(" spaced "),),
                   content="  line one\r\nline two\r  ", user=(("X-k", "\n"),))
    assert fipaxml.loads(fipaxml.dumps(m)) == m


def test_a_character_xml_cannot_carry_is_refused_by_name() -> None:
    with pytest.raises(AclError, match=r"content: XML 1.0 cannot carry the character U\+0000 \(at character 2\)"):
        fipaxml.dumps(ACLMessage("inform", content="ab\x00"))
    assert fipa.loads(fipa.dumps(ACLMessage("inform", content="ab\x00"))).content == "ab\x00"


@pytest.mark.parametrize(("text", "reason"), [
    ("<fipa-message act='inform'><content>x</fipa-message>", "not well-formed XML at line 1, column"),
    ("<message act='inform'/>", "expected a <fipa-message> element, got <message>"),
    ("<fipa-message/>", 'needs the attribute act="..."'),
    ("<fipa-message act='shout'/>", "unknown performative 'shout'"),
    ("<fipa-message act='inform'><colour>red</colour></fipa-message>", "unknown element <colour>"),
    ("<fipa-message act='inform'><content>a</content><content>b</content></fipa-message>",
     "<content> appears twice"),
    ("<fipa-message act='inform'><sender><agent-identifier/></sender></fipa-message>",
     'sender: an <agent-identifier> needs <name id="..."/>'),
    ("<fipa-message act='inform'><reply-by time='tomorrow'/></fipa-message>", "expected a time"),
    ("<fipa-message act='inform'><user-defined>1</user-defined></fipa-message>", 'needs href="X-..."'),
    ("<!DOCTYPE x [<!ENTITY a 'aaaa'>]><fipa-message act='inform'><content>&a;</content></fipa-message>",
     "refused XML"),
])
def test_malformed_or_hostile_xml_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(AclError, match=reason.replace("(", r"\(").replace(")", r"\)").replace("$", r"\$")):
        fipaxml.loads(text)
