"""An Eliza-type mind (the seed's initial test, 10.1.1): text in, text out.

It answers a line of talk by finding the most important keyword it knows, matching one of
that keyword's patterns, and filling a reply template with the matched words seen from the
other side ("my job" becomes "your job"). It keeps track of previous states: things the
speaker said about "my ..." are remembered and brought back when no keyword matches, and
templates rotate so it does not repeat itself. The rule set is this project's own.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from dataclasses import dataclass
from typing import ClassVar

from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from .scoring import KeepsScore

REFLECTIONS: dict[str, str] = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "am": "are", "i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd",
    "you": "I", "your": "my", "yours": "mine", "yourself": "myself", "you're": "I'm",
    "you've": "I've", "you'll": "I'll", "we": "you", "our": "your",
}
_AGREEMENT = ((" I are", " I am"), (" you am", " you are"), (" you was", " you were"), (" I were", " I was"))


def reflect(fragment: str) -> str:
    """Turn words round to the other speaker: "I hate my job" -> "you hate your job"."""
    words = re.findall(r"[\w']+|[^\w\s']+", fragment.strip().rstrip(".!?"))
    text = " " + " ".join(REFLECTIONS.get(w.lower(), w) for w in words).replace(" ,", ",")
    for wrong, right in _AGREEMENT:
        text = text.replace(wrong, right)
    return text.strip()


@dataclass(frozen=True)
class Rule:
    """A keyword (a regex on whole words), its rank, and its (pattern, templates) pairs.
    ``{0}``, ``{1}``... in a template are the pattern's groups, reflected."""

    keyword: str
    rank: int
    responses: tuple[tuple[str, tuple[str, ...]], ...]


RULES: tuple[Rule, ...] = (
    Rule(r"sorry|apologi[sz]e", 1, (
        (r".*", ("No apology is needed here.", "Apologies aside, what is on your mind?")),
    )),
    Rule(r"hello|hi|hey|good (?:morning|afternoon|evening)", 0, (
        (r".*", ("Hello. What would you like to talk about today?", "Hi. How are things with you?")),
    )),
    Rule(r"dreams?|dreamt|dreamed|nightmares?", 4, (
        (r".*\bdream(?:t|ed)? (?:that |about )?(.+)", ("What do you make of dreaming {0}?",
                                                       "How did you feel when you woke from that dream?")),
        (r".*", ("Do your dreams stay with you during the day?", "What would your dreams say about you?")),
    )),
    Rule(r"mother|father|mum|mom|dad|sister|brother|parents?|family|son|daughter", 5, (
        (r".*\bmy (mother|father|mum|mom|dad|sister|brother|parents|family|son|daughter)\b(.*)",
         ("Say a little more about your {0}.", "How do you get on with your {0}?",
          "What comes to mind when you picture your {0}?")),
        (r".*", ("How do things stand at home these days?", "Who at home do you feel closest to?")),
    )),
    Rule(r"work|job|boss|office|career|colleagues?", 4, (
        (r".*\bmy (job|work|boss|career|colleagues?)\b(.*)", ("What is it about your {0} that weighs on you?",
                                                              "Since when has your {0} felt like this?")),
        (r".*", ("How much of your life does work take up?", "What would you change about your work?")),
    )),
    Rule(r"sleep|sleeping|tired|awake|insomnia", 4, (
        (r".*", ("How have you been sleeping lately?", "What keeps you awake at night?",
                 "Does being tired change how you see things?")),
    )),
    Rule(r"friends?|alone|lonely|nobody|no one", 4, (
        (r".*\b(?:nobody|no one) (.+)", ("What makes it seem that nobody {0}?",)),
        (r".*", ("Tell me about the people you can turn to.", "When did you last feel close to someone?",
                 "What does being alone feel like for you?")),
    )),
    Rule(r"afraid|scared|worr(?:y|ied|ies)|anxious|fear", 4, (
        (r".*\b(?:afraid|scared) (?:of |that )?(.+)", ("What is it about {0} that frightens you?",)),
        (r".*\bworr(?:y|ied) (?:about |that )?(.+)", ("How long have you worried about {0}?",)),
        (r".*", ("What is the worst that could happen?", "Where in your body do you notice that fear?")),
    )),
    Rule(r"feel|feeling|felt", 3, (
        (r".*\bi (?:feel|felt) (.+)", ("When did you first notice feeling {0}?",
                                       "What tends to leave you feeling {0}?", "Is feeling {0} new for you?")),
        (r".*", ("Those feelings sound important. Where do they come from?",)),
    )),
    Rule(r"i am|i'm", 2, (
        (r".*\bi(?: am|'m) (.+)", ("What has it been like, being {0}?", "Since when have you been {0}?",
                                   "Does being {0} help you or hold you back?")),
    )),
    Rule(r"i want|i need|i wish|i'd like", 3, (
        (r".*\bi (?:want|need|wish|'d like)(?: to)? (.+)", ("Suppose you could {0}: what would change?",
                                                            "What stands between you and that?")),
    )),
    Rule(r"because", 2, (
        (r".*", ("Does that explain all of it?", "Are there other explanations you have considered?")),
    )),
    Rule(r"always|never|every(?:one|body)", 2, (
        (r".*", ("Can you think of a time when it was different?", "Every time? Is that really so?")),
    )),
    Rule(r"you", 1, (
        (r".*\byou (?:are|'re) (.+)", ("What gives you the impression that I am {0}?",)),
        (r".*", ("Let's keep the focus on you.", "Why do you bring me into it?")),
    )),
    Rule(r"yes|yeah", 1, (
        (r".*", ("That sounds definite.", "All right. Go on.")),
    )),
    Rule(r"no|nope", 1, (
        (r".*", ("What makes you say no?", "You sound firm about that.")),
    )),
)

FALLBACKS: tuple[str, ...] = (
    "Go on, I'm listening.", "How do you feel about that?", "What do you make of that?",
    "Tell me more.", "Why do you think that is?",
)


class ElizaMind(KeepsScore, Mind):
    """Replies to a line of talk (the state x) with a line of talk (the action a).

    ``delay`` seconds of thought before each reply let tests exercise the client's
    time-outs (section 8.2.2) on a mind that is slow to answer."""

    state_format: ClassVar[str] = "a line of talk (plain text)"
    action_format: ClassVar[str] = "a line of talk (plain text)"

    def __init__(self, delay: float = 0.0, memory: int = 4) -> None:
        if delay < 0:
            raise ValueError(f"delay must be zero or more seconds, got {delay}")
        self.delay = delay
        self.memory: deque[str] = deque(maxlen=max(memory, 1))
        self.turns: dict[tuple[int, int], int] = {}
        self.fallback_turn = 0
        self.heard: list[str] = []
        self.score = 0.0

    def reply(self, text: str) -> str:
        """The answer to one line of talk (the whole rule engine, no async)."""
        self.heard.append(text)
        said = " ".join(text.split())
        lowered = said.lower()
        for match in re.finditer(r"\bmy ([^.,;:!?]+)", lowered):
            words = match.group(1).split()[:6]
            self.memory.append(reflect("my " + " ".join(words)))
        ranked = sorted((r for r in RULES if re.search(rf"\b(?:{r.keyword})\b", lowered)),
                        key=lambda r: -r.rank)
        for rule in ranked:
            for p, (pattern, templates) in enumerate(rule.responses):
                found = re.match(pattern, lowered)
                if found is None:
                    continue
                key = (RULES.index(rule), p)
                turn = self.turns.get(key, 0)
                self.turns[key] = turn + 1
                groups = [reflect(g) for g in found.groups() if g is not None]
                return templates[turn % len(templates)].format(*groups)
        if self.memory and self.fallback_turn % 2 == 1:
            self.fallback_turn += 1
            return f"Earlier you mentioned {self.memory.popleft()}. Tell me more about that."
        self.fallback_turn += 1
        return FALLBACKS[self.fallback_turn % len(FALLBACKS)]

    async def get_action(self, state: str) -> Suggestion:
        if self.delay:
            await asyncio.sleep(self.delay)
        if not state.strip():
            return Suggestion("I am listening. Say whatever is on your mind.")
        return Suggestion(self.reply(state))
