"""A soccer world in the spirit of Noda's Soccer Server: a continuous field, ball and body
physics, stamina, noisy and limited sensing and a referee (:mod:`.match`, :mod:`.sensing`),
served as one shared WWM World with a body per client (:mod:`.world`), with the soccer
server's text protocol over UDP on the same server (:mod:`.udp`), a live and replayable
browser view (:mod:`.app`), and simple players (:mod:`.players`, :mod:`.mind`). Rules,
choices and protocols: ``docs/soccer.md``."""

from .match import Match
from .params import Params
from .world import SoccerWorld

__all__ = ["Match", "Params", "SoccerWorld"]
