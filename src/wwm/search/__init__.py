"""Artificial selection by machine (section 10.10, 12.3): automated searches over societies of
minds. ``wwm search SPACE.yaml`` (see :mod:`wwm.search.space` for the document)."""

from .engine import SAMPLERS, Outcome, Search, SearchError, SearchSettings, TrialDone, search
from .space import Space, SpaceError, build, load_space

__all__ = ["SAMPLERS", "Outcome", "Search", "SearchError", "SearchSettings", "Space", "SpaceError", "TrialDone",
           "build", "load_space", "search"]
