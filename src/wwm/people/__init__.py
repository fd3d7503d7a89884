"""A person as a mind or a world (seed 000, 10.1.1): a web page where a person answers the
queries a Mind or a World server is asked, with a countdown; usable wherever a mind or a
world is (a run, a Mind_AS, Meta(A) as A)."""

from .desk import Desk, Seat
from .mind import PersonMind
from .world import PersonWorld

__all__ = ["Desk", "PersonMind", "PersonWorld", "Seat"]
