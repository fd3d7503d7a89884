"""T-World's Tileworld: a seeded discrete engine with γ, a real-time driver, T-World's JSON
percepts and action strings, built-in agents, measures, recordings, WWM World classes (one
robot per run, or one real-time world shared by several clients) and a browser view. Rules and
protocol: ``shared/reference/tileworld.md``."""

from .config import Config, ConfigError, Range, Team
from .engine import Engine

__all__ = ["Config", "ConfigError", "Engine", "Range", "Team"]
