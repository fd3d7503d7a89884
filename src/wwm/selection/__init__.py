"""Action Selection (section 10): the decision rules, every method, and the Mind_AS server
that resolves competition among minds local or remote; plus the region Mind_M wrapper."""

from .methods import METHODS
from .mind_as import ActionSelectionMind

__all__ = ["ActionSelectionMind", "METHODS"]
