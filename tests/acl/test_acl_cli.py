"""``wwm acl``: show and replay a logged conversation, check the protocols, run the demo,
and clear errors for bad input."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from wwm.acl.agent import Agent, LocalBus
from wwm.acl.contractnet import contract_net, worker
from wwm.acl.log import read
from wwm.acl.message import AID, ACLMessage
from wwm.cli.main import main


@pytest.fixture
async def logged(tmp_path):
    bus = LocalBus()
    boss = bus.add(Agent("boss", log_path=str(tmp_path / "boss.jsonl")))
    for name, price, mode in (("a", 1, "renege"), ("b", 2, "honest"), ("c", 3, "honest")):
        bus.add(Agent(name, handler=worker(price, mode, 0.01)))
    await contract_net(boss, [AID("a"), AID("b"), AID("c")], "(lift)", needed=1, deadline=0.5)
    return tmp_path / "boss.jsonl"


async def test_show_prints_each_act_with_the_commitments_after_it(logged, capsys) -> None:
    assert main(["acl", "show", str(logged)]) == 0
    out = capsys.readouterr().out
    assert "boss → a, b, c: cfp  '(lift)'" in out
    # each thread line names the receiver: "to boss", so nobody reads it as boss reneging
    assert "\n       to boss: renege  accepted → reneged" in out and "\n       boss: renege" not in out
    assert "team: a, boss" in out and "reneged (violated)" in out
    assert out.rstrip().endswith("no commitment outstanding")


async def test_show_writes_a_web_page(logged, tmp_path, capsys) -> None:
    page = tmp_path / "conv.html"
    assert main(["acl", "show", str(logged), "--html", str(page)]) == 0
    text = page.read_text()
    assert "<th>boss</th><th>a</th><th>b</th><th>c</th>" in text
    # the call for proposals: a line from the sender's dot through every receiver's arrow
    assert ('<td class="from line l">●</td><td class="to line">▶</td><td class="to line">▶</td>'
            '<td class="to line r">▶</td>') in text
    assert "to a: request start → cfp-sent" in text
    rounds = {e.message.conversation_id for e in read(logged)}
    assert text.count('<div class="conv">conversation ') == len(rounds)   # named where each begins
    assert "renege" in text and "reneged (violated)" in text and "team: a, boss" in text
    assert text.count("<tr") == 1 + len([line for line in logged.read_text().splitlines() if line])


async def test_the_web_page_marks_a_refused_message(tmp_path) -> None:
    bus = LocalBus()
    alice = bus.add(Agent("alice", log_path=str(tmp_path / "a.jsonl")))
    bus.add(Agent("bob"))
    await alice.deliver(ACLMessage("agree", AID("bob"), (alice.aid,), conversation_id="c-rogue",
                                   reply_with="r1", protocol="fipa-request"))
    await asyncio.sleep(0.01)
    page = tmp_path / "a.html"
    assert main(["acl", "show", str(tmp_path / "a.jsonl"), "--html", str(page)]) == 0
    text = page.read_text()
    assert '<span class="refused">to alice: refused: out of sequence' in text
    assert "<b>not-understood</b>" in text and '<div class="conv">conversation c-rogue</div>' in text


async def test_replay_agrees_with_the_log_and_catches_a_forged_one(logged, capsys) -> None:
    assert main(["acl", "replay", str(logged)]) == 0
    assert "0 differ from the log" in capsys.readouterr().out
    text = logged.read_text().replace('"after": "closed"', '"after": "rejected"', 1)
    logged.write_text(text)
    assert main(["acl", "replay", str(logged)]) == 1
    assert "1 differ from the log" in capsys.readouterr().out


def test_protocols_are_listed_and_checked(capsys) -> None:
    assert main(["acl", "protocols"]) == 0
    out = capsys.readouterr().out
    assert "wf-conversation-for-action: 16 arcs" in out and out.count("checked, no problem") == 7


def test_bad_input_is_named(tmp_path, capsys) -> None:
    assert main(["acl", "show", str(tmp_path / "missing.jsonl")]) == 2
    assert "No such file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"time": "t", "observer": "x", "direction": "sent", "message": {"performative": "yell"}}\n')
    assert main(["acl", "replay", str(bad)]) == 2
    assert "line 1" in (err := capsys.readouterr().err) and "unknown performative 'yell'" in err
    assert main(["acl", "demo", "--contractors", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err


M = '"message": {"performative": "request", "sender": {"name": "a"}, "receiver": [{"name": "b"}], ' \
    '"conversation-id": "c", "content": "x"}'


@pytest.mark.parametrize("line, words", [
    ('{"time": "t", "observer": "o", "direction": "sent", ' + M + ', "verdicts": "x"}', '"verdicts" must be a list'),
    ('{"time": "t", "observer": "o", "direction": "sent", ' + M + ', "verdicts": [{"a": 1}]}',
     'each with "receiver" and "accepted"'),
    ('{"time": 5, "observer": "o", "direction": "sent", ' + M + '}', '"time" must be text'),
    ('{"time": "t", "observer": "o", "direction": "sideways", ' + M + '}', '"direction" must be sent'),
    ('{"time": "t", "observer": "o", "direction": "sent", "message": ' + "[" * 5000 + "]" * 5000 + "}",
     "not a conversation log entry"),
])
def test_malformed_log_entries_are_named_by_line(tmp_path, capsys, line: str, words: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n" + line + "\n")
    for action in ("show", "replay"):
        assert main(["acl", action, str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "line 2" in err and words in err, err


def test_a_binary_file_or_an_unknown_conversation_is_named(logged, tmp_path, capsys) -> None:
    binary = tmp_path / "x.jsonl"
    binary.write_bytes(b'{"time": "\xd0\xff"}\n')
    assert main(["acl", "show", str(binary)]) == 2
    assert "not a conversation log: not UTF-8 text" in capsys.readouterr().err
    assert main(["acl", "show", str(logged), "-c", "nope"]) == 2
    err = capsys.readouterr().err
    assert "holds no message of conversation 'nope' (it has: cnp" in err


@pytest.mark.parametrize("deadline", ["0", "-1", "nan", "inf"])
def test_the_demo_refuses_a_deadline_that_is_not_a_positive_time(deadline, capsys) -> None:
    assert main(["acl", "demo", f"--deadline={deadline}"]) == 2
    assert "--deadline must be a positive number of seconds" in capsys.readouterr().err


def test_the_demo_refuses_an_unwritable_log_before_starting_servers(tmp_path, capsys) -> None:
    assert main(["acl", "demo", "--log", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "No such file or directory" in err and "http://" not in capsys.readouterr().out


@pytest.mark.slow
def test_the_demo_allocates_the_task_over_loopback(tmp_path) -> None:
    log = tmp_path / "demo.jsonl"
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "acl", "demo", "--contractors", "5",
                           "--needed", "2", "--deadline", "1.5", "--log", str(log)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "task allocated to ['c1', 'c2']" in done.stdout
    assert "every team formed was disbanded; nothing is owed" in done.stdout
    assert main(["acl", "replay", str(log)]) == 0
