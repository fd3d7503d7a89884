"""Minds that learn (sections 7.3, 9.2.1-9.2.3, 10.4-10.18): Q-learning and W-learning by
lookup table, Nested minds that learn whom to call, Feudal minds that take you to a state;
what each learns is kept per client."""

from .feudal import FeudalQMind
from .lord import FeudalLord
from .nested import NestedMind
from .qlearning import QLearningMind

__all__ = ["FeudalLord", "FeudalQMind", "NestedMind", "QLearningMind"]
