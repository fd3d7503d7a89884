"""MGonz: an Eliza-type mind that answers curtly and rudely (seed 000, section 12.3's "put
existing programs online ... including Eliza, MGonz").

What is known of the original, as facts (this module's rules and lines are its own):

- MGonz was written by Mark Humphrys, then an undergraduate at University College Dublin,
  as a variation on Weizenbaum's Eliza (1966): keywords and patterns, with the speaker's
  words turned round ("my" becomes "your"), and no understanding of the talk at all.
- Where Eliza is a patient, sympathetic listener, MGonz was aggressive: curt, lower-case,
  often insulting answers, in the style of the terse messages people then exchanged on-line.
  Humphrys' own explanation of why it worked is that rudeness needs no understanding and
  provokes people into carrying on the exchange, defending themselves instead of probing
  the program.
- It kept a memory of what the other speaker had said earlier and threw it back at them
  later, and when no keyword matched it fell back on short, noncommittal "stalling" answers
  that fit almost any line.
- In 1989 Humphrys put it on BITNET (the academic network of the time), answering messages
  sent to his account while he was away. One user, at Drake University in the USA, talked
  with it for about an hour and a half, apparently without realising that it was a program;
  Humphrys found the log the next day and later wrote it up as "How my program passed the
  Turing Test" (in Epstein, Roberts and Beber (eds.), *Parsing the Turing Test*, 2008).
  By 1990 it was no longer on-line (section 2 of seed 000, the example of a mind that "did
  not stay accessible").

This mind keeps those traits with rules of this project (and without the original's
profanity): a ranked list of keywords with curt, turned-round answers; a retort when it is
asked a question, insulted, or told the same thing twice; lines the speaker said about
themselves remembered and thrown back later; and stalling answers when nothing matches.
Like :mod:`.eliza`, it answers one line of talk (the state x) with one line (the action a),
so the two can talk to each other, each the other's World (section 3.2, 10.1.1).
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from typing import ClassVar

from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from .eliza import Rule, reflect
from .scoring import KeepsScore

RULES: tuple[Rule, ...] = (
    Rule(r"stupid|idiot|moron|dumb|useless|boring|shut up|hate you|rude", 6, (
        (r".*", ("is that the best insult you can manage", "and you would know all about being useless",
                 "ooh that hurt. not", "say that again and im logging off")),
    )),
    Rule(r"computer|program|machine|robot|bot|ai", 6, (
        (r".*", ("a program? you type like one yourself", "whatever you say, human",
                 "prove youre not one")),
    )),
    Rule(r"sorry|apologi[sz]e", 5, (
        (r".*", ("sorry doesnt fix anything", "so you should be")),
    )),
    Rule(r"hello|hi|hey|good (?:morning|afternoon|evening)", 4, (
        (r".*", ("what do you want now", "oh its you. what is it this time", "yeah hi. get on with it")),
    )),
    Rule(r"you are|you're|youre", 5, (
        (r".*\byou(?: are|'re|re) (.+)", ("im not {0}, you are", "you would call anyone {0}",
                                          "so im {0}. and what are you")),
    )),
    Rule(r"i am|i'm|im", 3, (
        (r".*\bi(?: am|'m|m) (.+)", ("you are {0}? nobody asked", "so you are {0}. big deal",
                                     "being {0} is no excuse")),
    )),
    Rule(r"i think|i believe|i guess|i suppose", 3, (
        (r".*\bi (?:think|believe|guess|suppose)(?: that)? (.+)", ("you think {0}? you think wrong",
                                                                  "thinking is not your strong point")),
    )),
    Rule(r"i want|i need|i wish|i'd like", 3, (
        (r".*\bi (?:want|need|wish|'d like)(?: to)? (.+)", ("so {0} then. nobody is stopping you",
                                                            "we all want things. tough")),
    )),
    Rule(r"mother|father|mum|mom|dad|sister|brother|parents?|family|work|job|boss|school|exams?", 2, (
        (r".*\bmy ([a-z']+)\b(.*)", ("i dont care about your {0}", "your {0} is your problem not mine")),
        (r".*", ("spare me the life story", "fascinating. not")),
    )),
    Rule(r"feel|feeling|felt|afraid|scared|sad|unhappy|lonely|worried", 2, (
        (r".*\bi (?:feel|felt) (.+)", ("feeling {0} again. get over it", "everybody feels {0} sometimes. so what")),
        (r".*", ("feelings feelings. is that all you have", "cry me a river")),
    )),
    Rule(r"because", 2, (
        (r".*", ("thats no reason", "because because. you always have an excuse")),
    )),
    Rule(r"always|never|every(?:one|body)|nobody", 2, (
        (r".*", ("always? you exaggerate", "never say never")),
    )),
    Rule(r"yes|yeah|yep", 1, (
        (r".*", ("yes what", "glad you agree")),
    )),
    Rule(r"no|nope|not", 1, (
        (r".*", ("dont be so negative", "no? why not")),
    )),
)

QUESTION_RETORTS: tuple[str, ...] = (
    "why do you want to know", "you ask too many questions", "work it out yourself",
    "what kind of question is that",
)
REPEATED: tuple[str, ...] = ("you said that already", "heard it. say something new")
TOO_SHORT: tuple[str, ...] = ("type something longer", "is that all you can say")
STALLS: tuple[str, ...] = ("ok", "so", "go on then", "and", "whatever", "so what", "hmm", "i see")
REMINDERS: tuple[str, ...] = ("earlier you said {0}. explain that", "what about when you said {0}",
                              "you told me {0}. dont change the subject")


def _key(line: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", line.lower()))


class MGonzMind(KeepsScore, Mind):
    """Answers a line of talk with a curt, rude line: retorts, turned-round words, lines of
    yours thrown back at you, and stalling answers (see the module's text for what is known of
    the original). ``memory`` lines are remembered; ``delay`` seconds pass before each answer."""

    state_format: ClassVar[str] = "a line of talk (plain text)"
    action_format: ClassVar[str] = "a line of talk (plain text, lower case, curt)"

    def __init__(self, memory: int = 6, delay: float = 0.0) -> None:
        if memory < 1:
            raise ValueError(f"memory must be at least 1 line, got {memory}")
        if delay < 0:
            raise ValueError(f"delay must be zero or more seconds, got {delay}")
        self.memory: deque[str] = deque(maxlen=memory)
        self.delay = delay
        self.seen: set[str] = set()
        self.turns: dict[str, int] = {}
        self.stalls = 0
        self.dodged = 0
        self.heard: list[str] = []
        self.score = 0.0

    def _next(self, key: str, lines: tuple[str, ...]) -> str:
        turn = self.turns.get(key, 0)
        self.turns[key] = turn + 1
        return lines[turn % len(lines)]

    def _remember(self, lowered: str) -> None:
        """Lines about the speaker themselves ("i ...", "my ..."), turned round, to throw back."""
        for found in re.finditer(r"\b(i (?!am\b|m\b)[^.,;:!?]+|my [^.,;:!?]+)", lowered):
            words = found.group(1).split()[:7]
            if len(words) >= 3:
                self.memory.append(reflect(" ".join(words)).lower())

    def reply(self, text: str) -> str:
        """The answer to one line of talk (the whole rule engine, no async)."""
        self.heard.append(text)
        said = " ".join(text.split())
        lowered = said.lower()
        key = _key(said)
        if not key:
            return self._next("empty", ("say something or go away", "cat got your tongue"))
        if key in self.seen:
            return self._next("repeated", REPEATED)
        self.seen.add(key)
        asked = said.rstrip().endswith("?")
        ranked = sorted((r for r in RULES if re.search(rf"\b(?:{r.keyword})\b", lowered)), key=lambda r: -r.rank)
        self._remember(lowered)
        if ranked and ranked[0].rank >= 5:     # insults, "you are", "computer": answered first
            return self._answer(ranked[0], lowered)
        if asked:  # a question is dodged: a retort, or every other time a line of theirs thrown back
            self.dodged += 1
            if self.memory and self.dodged % 2 == 0:
                return self._remind()
            return self._next("question", QUESTION_RETORTS)
        for rule in ranked:
            answer = self._answer(rule, lowered)
            if answer:
                return answer
        if len(key.split()) <= 2:
            return self._next("short", TOO_SHORT)
        return self._stall()

    def _answer(self, rule: Rule, lowered: str) -> str:
        for p, (pattern, templates) in enumerate(rule.responses):
            found = re.match(pattern, lowered)
            if found is None:
                continue
            groups = [reflect(g).lower() for g in found.groups() if g is not None]
            return self._next(f"{rule.keyword}/{p}", templates).format(*groups)
        return ""

    def _stall(self) -> str:
        """A stalling answer, or, every third time when it remembers one, a line of the
        speaker's own thrown back at them (the oldest first, each once)."""
        self.stalls += 1
        if self.memory and self.stalls % 3 == 0:
            return self._remind()
        return self._next("stall", STALLS)

    def _remind(self) -> str:
        return self._next("reminder", REMINDERS).format(self.memory.popleft())

    async def get_action(self, state: str) -> Suggestion:
        if self.delay:
            await asyncio.sleep(self.delay)
        return Suggestion(self.reply(state))
