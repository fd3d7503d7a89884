"""ACL messages carried as text by a multi-agent world: two T-World teammates coordinate a
request through ``team_message`` actions, and each side's engine tracks the commitments."""

from __future__ import annotations

from acl_strategies import messages as _messages
from hypothesis import given, settings

from wwm.acl.carry import from_text, is_acl, to_text
from wwm.acl.engine import Engine
from wwm.acl.message import AID, ACLMessage
from wwm.tileworld import Config, Team
from wwm.tileworld import Engine as Tileworld


@settings(max_examples=80, deadline=None)
@given(_messages)
def test_one_line_text_round_trip(m: ACLMessage) -> None:
    text = to_text(m)
    assert "\n" not in text and "\r" not in text
    assert from_text(text) == m


def test_not_acl_text_is_told_apart() -> None:
    assert not is_acl("north") and not is_acl("(inform") and is_acl("(inform)")


def test_tworld_teammates_agree_on_a_task_through_team_messages() -> None:
    world = Tileworld(Config(agents=2, teams=(Team("blue", (0, 1)),), seed=3))
    engines = {0: Engine("leader"), 1: Engine("helper")}
    leader, helper = AID("leader"), AID("helper")
    script = [
        (0, ACLMessage("request", leader, (helper,), content="(fill hole 1)", conversation_id="t1",
                       reply_with="m1", protocol="fipa-request")),
        (1, ACLMessage("agree", helper, (leader,), conversation_id="t1", reply_with="m2", in_reply_to="m1",
                       protocol="fipa-request")),
        (1, ACLMessage("inform", helper, (leader,), content="(done)", conversation_id="t1", reply_with="m3",
                       in_reply_to="m2", protocol="fipa-request")),
        (0, ACLMessage("inform", leader, (helper,), content="(thanks)", conversation_id="t1", reply_with="m4",
                       in_reply_to="m3", protocol="fipa-request", user=(("X-act", "declare"),))),
    ]
    teams_seen = []
    for sender, msg in script:
        engines[sender].handle(msg)
        result = world.act(sender, "team_message:" + to_text(msg))
        assert result.kind == "message"
        [(to, text)] = result.deliveries
        [verdict] = engines[to].handle(from_text(text))
        assert verdict.accepted, verdict.reason
        teams_seen.append(engines[to].tracker.team("t1"))
    assert teams_seen == [set(), {"leader", "helper"}, {"leader", "helper"}, set()]
    for e in engines.values():
        assert e.talk("t1", "leader", "helper").state == "acknowledged"
        assert [r for r in e.tracker.records("t1") if r.active] == []
