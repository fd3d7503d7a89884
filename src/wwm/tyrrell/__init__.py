"""Tyrrell's world (Tyrrell 1993; proposal section 6 item 12): an animal's life among many
conflicting sub-problems, served as a World, with one Mind per sub-problem and a benchmark of
the Action Selection methods of section 10 on it. See the README in this folder."""

from .minds import GOALS, GoalMind, society
from .world import TyrrellWorld

__all__ = ["GOALS", "GoalMind", "TyrrellWorld", "society"]
