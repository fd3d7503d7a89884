"""An Eliza-type World (the seed's initial test, 10.1.1): a scripted patient to talk with.

The state x is what the patient says; the action a is the listener's reply. The patient
has a few things on its mind (topics), each with lines it says in order and a passing
remark that hints at it. A reply that engages (a question, or one that takes up a word the
patient just used) earns 1 point and keeps the patient talking; a reply that names a topic
the patient has not yet opened up about earns 3 and moves the talk there; talking through
every topic ends the run with a bonus of 5. Silence, parroting the patient, repeating
oneself or talking past it try the patient's patience: after ``patience`` such replies in a
row the patient leaves and the run ends. The script is this project's own.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted

ENGAGED = 1.0
NEW_TOPIC = 3.0
ALL_TOPICS = 5.0


@dataclass(frozen=True)
class Topic:
    name: str
    triggers: tuple[str, ...]  # word beginnings that, in a reply, open this topic
    lines: tuple[str, ...]     # what the patient says about it, in order
    hint: str                  # a passing remark that a good listener can pick up


TOPICS: tuple[Topic, ...] = (
    Topic("work", ("work", "job", "boss", "office", "colleague", "career"), (
        "My boss keeps piling more work on my desk.",
        "I stay late at the office most evenings.",
        "I'm afraid that if I say no I will lose my job.",
    ), "Work has been hard lately, you know."),
    Topic("family", ("mother", "father", "famil", "sister", "brother", "parent", "mum", "dad"), (
        "My mother calls me every day to ask if I am eating properly.",
        "My sister and I have not spoken since the summer.",
        "I always feel like a child again when I visit my parents.",
    ), "My mother would say I am making a fuss about nothing."),
    Topic("sleep", ("sleep", "tired", "awake", "dream", "night", "insomnia"), (
        "I lie awake until three in the morning.",
        "When I do sleep I dream that I am late for a train.",
        "I feel worn out all day long.",
    ), "I'm so tired I can hardly think straight."),
    Topic("friends", ("friend", "alone", "lonel", "people", "close to someone"), (
        "Most of my friends have moved away.",
        "I eat alone most nights.",
        "Nobody seems to notice when I am not around.",
    ), "I used to see my friends every weekend."),
    Topic("future", ("future", "worr", "afraid", "fear", "scared", "anxious", "frighten"), (
        "I worry about what the next year will bring.",
        "I am scared of ending up right back where I started.",
        "I want to feel that things are moving forward.",
    ), "Sometimes I worry about the future."),
)

_STOPWORDS = frozenset([
    "a", "an", "and", "are", "at", "be", "but", "by", "do", "does", "for", "from", "had", "has",
    "have", "how", "i", "i'm", "in", "is", "it", "its", "just", "me", "my", "no", "not", "of", "on",
    "or", "so", "that", "the", "them", "then", "there", "they", "this", "to", "too", "up", "was",
    "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
    "your", "very", "much", "most", "all", "can", "could", "about", "into",
])

_BORED_LINES = (
    "I'm not sure what you mean.", "That doesn't really answer me.", "Are you even listening?",
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


class ElizaWorld(World):
    """A scripted patient (own copy per client, seeded): talk with it, and be scored on
    keeping the conversation going and on the topics it opens up about."""

    seed_section: ClassVar[str] = "10.1.1 (Eliza Mind talks to Eliza World)"

    sharing = "own"
    state_format: ClassVar[str] = "what the patient says: one line of plain text"
    action_format: ClassVar[str] = "the reply: plain text (an empty reply is silence, the 'Do nothing')"

    def __init__(self, turns: int = 30, patience: int = 3, seed: int = 0) -> None:
        if turns < 1:
            raise ValueError(f"turns must be at least 1, got {turns}")
        if patience < 1:
            raise ValueError(f"patience must be at least 1, got {patience}")
        self.max_turns = turns
        self.patience = patience
        self.seed = seed
        self.reset_now()

    def reset_now(self) -> None:
        self.rng = random.Random(self.seed)
        order = list(TOPICS)
        self.rng.shuffle(order)
        self.topic = order[0]
        self.reached: list[str] = [self.topic.name]
        self.position = 1              # lines of the current topic said so far
        self.said = self.topic.lines[0]
        self.turn = 0
        self.bored = 0
        self.finished = False
        self.replies: list[str] = []
        self.transcript: list[tuple[str, str]] = [("patient", self.said)]
        self._score = 0.0

    # ---- the rules ------------------------------------------------------------------------
    def _opened(self, reply: str) -> Topic | None:
        text = reply.lower()
        words = _words(reply)
        for topic in TOPICS:
            if topic.name in self.reached:
                continue
            for trigger in topic.triggers:
                if (" " in trigger and trigger in text) or any(w.startswith(trigger) for w in words):
                    return topic
        return None

    def _engages(self, reply: str) -> bool:
        if reply.rstrip().endswith("?"):
            return True
        heard = {w for w in _words(self.said) if w not in _STOPWORDS and len(w) > 3}
        return bool(heard & set(_words(reply)))

    def respond(self, reply: str) -> float:
        """The patient hears ``reply``: update what it says next; return the points scored."""
        text = " ".join(reply.split())
        self.turn += 1
        self.transcript.append(("listener", text))
        points = 0.0
        if not text:
            self._lose_patience("Hello? Are you still there?")
        elif text.lower() == " ".join(self.said.split()).lower():
            self._lose_patience("Why are you repeating what I say?")
        elif text.lower() in (r.lower() for r in self.replies[-3:]):
            self._lose_patience("You said that already.")
        elif (topic := self._opened(text)) is not None:
            points = NEW_TOPIC
            self.bored = 0
            self.topic, self.position = topic, 1
            self.reached.append(topic.name)
            self.said = topic.lines[0]
        elif self._engages(text):
            points = ENGAGED
            self.bored = 0
            points += self._go_on()
        else:
            self._lose_patience(_BORED_LINES[self.bored % len(_BORED_LINES)])
        self.replies.append(text)
        if not self.finished and self.turn >= self.max_turns:
            self.finished = True
        self.transcript.append(("patient", self.said))
        self._score += points
        return points

    def _go_on(self) -> float:
        if self.position < len(self.topic.lines):
            self.said = self.topic.lines[self.position]
            self.position += 1
            return 0.0
        left = [t for t in TOPICS if t.name not in self.reached]
        if not left:
            self.said = "Thank you. I think I understand myself a little better now. Goodbye."
            self.finished = True
            return ALL_TOPICS
        self.said = self.rng.choice(left).hint
        return 0.0

    def _lose_patience(self, line: str) -> None:
        self.bored += 1
        if self.bored >= self.patience:
            self.said = "I don't think this is going anywhere. Goodbye."
            self.finished = True
        else:
            self.said = line

    # ---- the World interface --------------------------------------------------------------
    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        return None

    async def get_state(self) -> str:
        return self.said

    async def execute_action(self, action: str) -> Outcome:
        if self.finished:
            raise Refusal("run-ended", "the patient has left; start a new run")
        points = self.respond(action)
        return Outcome(self.said, points, finished=self.finished)

    async def reset(self) -> None:
        self.reset_now()

    async def reset_score(self) -> None:
        self._score = 0.0

    async def get_current_score(self) -> float | None:
        return self._score
