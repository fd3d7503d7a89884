"""Meta-execution: Meta(A) built from copies of a text agent A, after ALBA's ``amplify``.

``Meta(HCH(Agent(policy), n))`` is an agent over strings; ``HCH`` runs copies of A on trees
of immutable messages with pointers, immutable agent snapshots and budgets; ``Store`` keeps
computations and the memo in SQLite. See ``wwm meta --help`` and ``wwm.meta.mind``.

Deliberate differences from the original (its semantics otherwise, costs included):
- prose may contain digits and ``$``; a keyword must end at a word boundary (``viewing`` is
  not ``view ing``); whitespace rules are pinned by tests, not by a parser library's version;
- a bad pointer, a wrong kind of pointer or a malformed line is an observation costing 1,
  never a crash; at zero budget ``reply M`` counts as ``M``; an ask offering more than the
  budget is capped (as in the original) and the asker is told;
- ``spawn`` and ``note`` commands; ``split="all"`` and ``budget_display="rounded"`` options;
- Meta decodes negative integers and floats, asks again (boundedly) when an answer is not
  one of the allowed words, and reports loops in answers instead of following them.
"""

from .agents import Agent, FunctionPolicy, LinesPolicy, MindPolicy
from .hch import HCH, Answer, DictMemo, HCHAgent
from .ledger import Call
from .messages import Channel, Message
from .meta import DecodeError, Decoder, Meta, encode
from .store import Store

__all__ = [
           "HCH",
           "Agent",
           "Answer",
           "Call",
           "Channel",
           "DecodeError",
           "Decoder",
           "DictMemo",
           "FunctionPolicy",
           "HCHAgent",
           "LinesPolicy",
           "Message",
           "Meta",
           "MindPolicy",
           "Store",
           "encode",
]
