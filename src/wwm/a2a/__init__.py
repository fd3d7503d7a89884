"""A2A, both ways (A2A 1.0 through the ``a2a-sdk`` library; the optional extra ``a2a``).

- A wwm Mind server as an A2A agent: ``wwm serve NAME --a2a`` adds its Agent Card at
  ``/.well-known/agent-card.json`` and a JSON-RPC endpoint at ``/a2a`` where ``SendMessage``
  carries a state and is answered with the mind's action (:mod:`.agent`).
- Any A2A agent as a wwm Mind: :class:`A2AMind` (``wwm serve wwm.a2a:A2AMind --arg agent=URL``,
  or ``class: wwm.a2a:A2AMind`` in a society document), so it can be a run's mind or a
  member of an Action Selection mind (:mod:`.mind`).
"""

from __future__ import annotations

from .agent import a2a_routes, agent_card
from .mind import A2AError, A2AMind

__all__ = ["A2AError", "A2AMind", "a2a_routes", "agent_card"]
