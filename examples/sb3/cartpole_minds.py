"""Hand-written Minds for a served CartPole (``wwm serve gym:CartPole-v1``), whose state is
the observation as JSON, ``[x, x_dot, theta, theta_dot]``, and whose actions are ``0``
(push left) and ``1`` (push right):

    wwm serve examples/sb3/cartpole_minds.py:LeanMind --port 8012
"""

from __future__ import annotations

import json

from wwm import Mind, Suggestion


def observation(state: str) -> list[float]:
    values = json.loads(state)
    if not (isinstance(values, list) and len(values) == 4):
        raise ValueError(f"not a CartPole observation: {state[:60]!r}")
    return [float(v) for v in values]


class LeanMind(Mind):
    """Push the way the pole is falling: its angle plus a share of its angular velocity."""

    state_format = "CartPole's observation as JSON: [x, x_dot, theta, theta_dot]"
    action_format = "0 (push left) | 1 (push right)"

    async def get_action(self, state: str) -> Suggestion:
        _, _, theta, theta_dot = observation(state)
        return Suggestion("1" if theta + 0.5 * theta_dot > 0 else "0")


class ChaseCartMind(Mind):
    """Push the way the cart already moves (a poor rule: it speeds the cart up, and
    ignores the pole)."""

    state_format = LeanMind.state_format
    action_format = LeanMind.action_format

    async def get_action(self, state: str) -> Suggestion:
        _, x_dot, _, _ = observation(state)
        return Suggestion("1" if x_dot > 0 else "0")
