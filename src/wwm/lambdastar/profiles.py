"""The two rule sets of Λ*: ``paper`` (the published definitions) and ``original`` (what the
authors' C++ code does, reference notes sections 1-3). Everything that differs lives here
as data, so one engine plays both.

Rewards are kept in half-units (integers): every reward either profile gives is a multiple
of 0.5, so sums are exact and the plain and vectorised engines agree to the last bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

ProfileName = Literal["paper", "original"]
PROFILES: tuple[str, ...] = ("paper", "original")


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    cyclic_patterns: bool
    """paper: a closed segment of length 1..⌊ϑ/2⌋ repeated cyclically; original: a random
    walk of length n..2n-1 repeated as a palindrome."""
    k_on_sequence: bool
    """paper: K(μ) is the LZ complexity of the ϑ-long sequence; original: of the segment."""
    first_observation_bug: bool
    """original: at iteration 1 every agent sees R(cell 1) = -0.5 and nothing else."""
    stigmergy_persistent: bool
    """original: the fake-reward array survives across iterations (stale trails)."""
    oracle_intercepts: bool
    """paper: the oracle heads for the earliest point where it can meet Good."""
    q_training_scale: float
    """multiplier on rewards during Q-learning training (original: 10)."""
    q_bootstrap_first_slice: bool
    """original: Q-learning bootstraps from state (cell', iteration 1)."""
    imitative_moves_per_agent: bool
    """original: the imitative collective's hidden oracle moves once per agent."""
    q_initial: float
    """Q-learning's initial table value: original 2 (optimistic); paper 0 (Algorithm 1
    gives none; with unscaled rewards an optimistic 2 would keep it exploring for ever)."""
    bidding_ratchets: bool
    """original: the bidding collective's highest bid is reset only per episode; paper
    profile: a fresh auction every iteration."""

    def reward_by_distance(self, k: int, size: int) -> np.ndarray:
        """Half-units of positive reward an agent at Chebyshev distance d from Good receives
        (the negative part around Evil is the same with the sign changed)."""
        d = np.arange(size + 1)
        if self.name == "paper":
            # r = 1/(d+1) if d < 2: 1 on the object's cell, 1/2 next to it
            return np.where(d == 0, 2, np.where(d == 1, 1, 0)).astype(np.int8)
        # original: +0.5 on the object's cell, +0.5 on every cell of its range-k neighbourhood
        return (np.where(d == 0, 1, 0) + np.where(d <= k, 1, 0)).astype(np.int8)


PAPER = Profile("paper", cyclic_patterns=True, k_on_sequence=True, first_observation_bug=False,
                stigmergy_persistent=False, oracle_intercepts=True, q_training_scale=1.0,
                q_bootstrap_first_slice=False, imitative_moves_per_agent=False,
                q_initial=0.0, bidding_ratchets=False)
ORIGINAL = Profile("original", cyclic_patterns=False, k_on_sequence=False,
                   first_observation_bug=True, stigmergy_persistent=True, oracle_intercepts=False,
                   q_training_scale=10.0, q_bootstrap_first_slice=True,
                   imitative_moves_per_agent=True, q_initial=2.0, bidding_ratchets=True)


def profile(name: str | Profile) -> Profile:
    """The profile called ``name`` ("paper" or "original")."""
    if isinstance(name, Profile):
        return name
    if name == "paper":
        return PAPER
    if name == "original":
        return ORIGINAL
    raise ValueError(f"unknown profile {name!r} (choose 'paper' or 'original')")
