"""Messages per second through the ACL engine in process, one command:
    .venv/bin/python benchmarks/acl_tracker.py [--conversations N]

Each conversation is a FIPA Request that ends in acknowledged success (request, agree,
inform, acknowledgement: four messages). Printed side by side, all measured in this run:
- baseline: a protocol state machine alone (arc lookup per message, no commitments),
- the commitment tracker alone (acts applied to records, state derived from them),
- the full engine (protocol arc + tracker preconditions + W&F annotation check),
- the FIPA string codec (parse one message), for scale.
"""

from __future__ import annotations

import argparse
import time

from wwm.acl import acts as A
from wwm.acl import fipa
from wwm.acl.engine import Engine
from wwm.acl.message import AID, ACLMessage
from wwm.acl.protocols import FIPA_REQUEST
from wwm.acl.tracker import Tracker


def conversation(n: int) -> list[ACLMessage]:
    a, b, c = AID("boss"), AID(f"w{n % 50}"), f"c{n}"
    same = {"conversation_id": c, "protocol": "fipa-request"}
    return [
        ACLMessage("request", a, (b,), content="(do it)", reply_with=f"{c}.1", **same),
        ACLMessage("agree", b, (a,), reply_with=f"{c}.2", in_reply_to=f"{c}.1", **same),
        ACLMessage("inform", b, (a,), content="(done)", reply_with=f"{c}.3", in_reply_to=f"{c}.2", **same),
        ACLMessage("inform", a, (b,), content="(ok)", reply_with=f"{c}.4", in_reply_to=f"{c}.3", **same,
                   user=(("X-act", "declare"),)),
    ]


def rate(fn, count: int) -> float:
    start = time.perf_counter()
    fn()
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=5000)
    n = parser.parse_args().conversations
    if n < 1:
        parser.error("--conversations must be at least 1")
    convs = [conversation(i) for i in range(n)]
    messages = 4 * n

    def fsm_only() -> None:
        table = {(a.source, a.role, a.performative): a for a in reversed(FIPA_REQUEST.arcs)}
        for conv in convs:
            state = "start"
            for m in conv:
                role = "initiator" if m.sender.name == "boss" else "participant"
                state = table[(state, role, m.performative)].target
            assert state == "acknowledged"

    def tracker_only() -> None:
        t = Tracker()
        for conv in convs:
            b, c = conv[1].sender.name, conv[0].conversation_id
            t.apply(A.request("boss", b, "(do it)"), c, "1")
            t.apply(A.confirm(b, "boss", "(do it)"), c, "2")
            t.apply(A.report_done(b, "boss", "(do it)"), c, "3")
            th = t.apply(A.declare_done("boss", b, "(do it)"), c, "4")
            assert th.state == 5

    def engine() -> None:
        e = Engine()
        for conv in convs:
            for m in conv:
                [v] = e.handle(m)
                assert v.accepted
            assert v.after == "acknowledged"

    texts = [fipa.dumps(m) for conv in convs[:500] for m in conv]

    def parse() -> None:
        for t in texts:
            fipa.loads(t)

    print(f"{n} FIPA Request conversations, {messages} messages")
    rows = [("baseline: protocol state machine only", rate(fsm_only, messages)),
            ("commitment tracker alone", rate(tracker_only, messages)),
            ("engine: protocol + tracker + checks", rate(engine, messages)),
            ("FIPA string parse (for scale)", rate(parse, len(texts)))]
    base = rows[0][1]
    for name, r in rows:
        extra = 1e6 / r - 1e6 / base
        print(f"  {name:40} {r:>12,.0f} messages/s   {1e6 / r:8.1f} µs/message"
              + (f"   (+{extra:.1f} µs over the baseline)" if r < base else ""))


if __name__ == "__main__":
    main()
