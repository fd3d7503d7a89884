"""A speech-act agent communication language whose acts carry commitments (Smith & Cohen).

FIPA ACL messages (:mod:`.message`) in three codecs (:mod:`.fipa`, :mod:`.jsonform`,
:mod:`.envelope`); acts built from REQUEST and ASSERT (:mod:`.acts`); the commitment tracker
(:mod:`.tracker`); protocols as data (:mod:`.protocols`) run by one engine (:mod:`.engine`);
agents (:mod:`.agent`) on a local bus or the WWM network (:mod:`.network`), a directory
(:mod:`.directory`), conversation logs (:mod:`.log`) and Contract Net (:mod:`.contractnet`).
"""

from .acts import Act, Assert, Request
from .agent import Agent, LocalBus, Undeliverable
from .clock import ManualClock, SystemClock
from .engine import Engine, Verdict
from .message import AID, PERFORMATIVES, AclError, ACLMessage, new_id
from .protocols import PROTOCOLS, Protocol, check
from .tracker import Commitment, Rejected, Tracker

__all__ = ["AID", "PERFORMATIVES", "PROTOCOLS", "ACLMessage", "AclError", "Act", "Agent", "Assert",
           "Commitment", "Engine", "LocalBus", "ManualClock", "Protocol", "Rejected", "Request",
           "SystemClock", "Tracker", "Undeliverable", "Verdict", "check", "new_id"]
