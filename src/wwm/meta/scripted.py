"""A scripted A: a deterministic policy that knows Meta's questions and a little arithmetic.

Each question is answered by a small generator script (``screen = yield command``); the policy
replays the script over its transcript to find the next line, so it is a pure function of
what it has seen, which the memo relies on. It reads Meta's decoding questions by viewing,
compares two integers it can only see through pointers, sorts lists by insertion (asking
fresh copies of itself), and as the top-level mind either echoes what it observes
(``echo``) or hands it back as a question, appending "?" one list cell per copy of itself
(``listener``: a patient listener for the Eliza world).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Sequence

Script = Generator[str, str, None]
NO_BUDGET = "[You have no budget, type a message to reply]"
OUT_OF_BUDGET = "<<out of budget: this question needed more operations than it was handed>>"
_LIST = re.compile(r"the list with first element #(\d+) and remaining elements in the list #(\d+)")
_STRING = re.compile(r"the string with list of characters #(\d+)")
_ADDRESS = re.compile(r"@\d+: ")


def _read(pattern: re.Pattern[str], shown: str) -> re.Match[str]:
    """``shown`` read by ``pattern``; a ValueError (the policy "could not read" it) otherwise."""
    match = pattern.fullmatch(shown)
    if match is None:
        raise ValueError(f"not what the script expected: {shown!r}")
    return match


def screen(observation: str) -> str:
    """An observation without its budget line."""
    return observation.rsplit("\n[", 1)[0]


def question(observation: str) -> str:
    """A delivered question without its ``@k: `` sender prefix."""
    text = screen(observation)
    match = _ADDRESS.match(text)
    return text[match.end():] if match else text


MODES = ("echo", "listener")


class ScriptedPolicy:
    """The policy: first screen -> script; replays the script over the transcript."""

    def __init__(self, mode: str = "echo") -> None:
        if mode not in MODES:
            raise ValueError(f"the scripted policy's mode is one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.name = "scripted" if mode == "echo" else f"scripted-{mode}"

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        if observations[-1].endswith(NO_BUDGET):  # whatever is typed now is the reply: say why
            return OUT_OF_BUDGET
        q = question(observations[0])
        match = _ACT.fullmatch(q)
        if match:
            script = (_act if self.mode == "echo" else _listen)(*match.groups())
        else:
            script = choose_script(q)
        try:
            action = next(script)
            for later in observations[1:]:
                action = script.send(screen(later))
        except StopIteration:
            return "reply <<the scripted policy has nothing more to say>>"
        except (AttributeError, ValueError):  # shown something its scripts do not expect
            return "reply <<the scripted policy could not read what it was shown>>"
        return action


def choose_script(q: str) -> Script:
    for pattern, make in SCRIPTS:
        match = pattern.fullmatch(q)
        if match:
            return make(*match.groups())
    return _unknown(q)


# ---- scripts ------------------------------------------------------------------------------
def failed(text: str) -> bool:
    """Whether a message read is an error some copy replied (``<<...>>``), to pass up as it is."""
    return text.startswith("<<") and text.endswith(">>")


def _unknown(q: str) -> Script:
    yield "reply I do not know how to answer that"


def _act(state: str, observation: str) -> Script:
    """The top-level question: echo the observation, remember it in the state."""
    followup = yield f"reply #{observation}"
    if followup == "what should the agent's state be after responding?":
        yield f"reply the state of an agent who last saw #{observation}"


QUESTION_MARK = "the character with ASCII code (two times (two times (two times (two times (two times " \
                "(two times (zero) plus one) plus one) plus one) plus one) plus one) plus one)"  # 63


def _listen(state: str, observation: str) -> Script:
    """The top-level question: say the observation back with a question mark."""
    s = yield f"view #{observation}"
    characters = _read(_STRING, s).group(1)
    appended = yield f"ask what is the list #{characters} with a question mark added at the end?"
    followup = yield f"reply the string with list of characters ({question(appended)})"
    if followup == "what should the agent's state be after responding?":
        yield f"reply the state of an agent who last heard #{observation}"


def _append_question_mark(p: str) -> Script:
    s = yield f"view #{p}"
    if s == "the empty list":
        yield f"reply the list with first element ({QUESTION_MARK}) and remaining elements in the list #{p}"
        return
    first, rest = _read(_LIST, s).groups()
    appended = yield f"ask what is the list #{rest} with a question mark added at the end?"
    yield f"reply the list with first element #{first} and remaining elements in the list ({question(appended)})"


def _inside(pattern: str, what: str) -> Callable[[str], Script]:
    """A script that views #p, which should read ``pattern``, and replies with its one slot."""
    def script(p: str) -> Script:
        s = yield f"view #{p}"
        match = re.fullmatch(pattern, s)
        if match:
            yield f"reply #{match.group(1)}"
        else:
            yield f"reply #{p}" if failed(s) else f"reply <<that is not {what}>>"
    return script


def _is_empty(p: str) -> Script:
    s = yield f"view #{p}"
    if s == "the empty list":
        yield "reply yes"
        return
    match = _LIST.fullmatch(s)
    if not match:
        yield f"reply #{p}" if failed(s) else "reply <<that is not a list>>"
        return
    followup = yield "reply no"
    while True:
        if followup == "what is its first element?":
            followup = yield f"reply #{match.group(1)}"
        elif followup == "what is the list of remaining elements?":
            followup = yield f"reply #{match.group(2)}"
        else:
            followup = yield "reply <<I was asked something I did not expect>>"


def _sign(p: str) -> Script:
    s = yield f"view #{p}"
    inverse = re.fullmatch(r"the additive inverse of #(\d+)", s)
    double = re.fullmatch(r"two times #(\d+)( plus one)?", s)
    if s == "zero":
        yield "reply zero"
    elif inverse:
        yield "reply negative"
        yield f"reply #{inverse.group(1)}"  # what is its additive inverse?
    elif double:
        followup = yield "reply positive"
        parity = "odd" if double.group(2) else "even"
        while True:
            if followup == "is it even or odd? (respond verbatim)":
                followup = yield f"reply {parity}"
            else:
                followup = yield f"reply #{double.group(1)}"
    else:
        yield f"reply #{p}" if failed(s) else "reply <<that is not an integer>>"


def _float(p: str) -> Script:
    s = yield f"view #{p}"
    match = re.fullmatch(r"the number #(\d+) times two to the power #(\d+)", s)
    if not match:
        yield f"reply #{p}" if failed(s) else "reply <<that is not a number>>"
        return
    yield f"reply #{match.group(1)}"
    yield f"reply #{match.group(2)}"


def read_int(p: str) -> Generator[str, str, int]:
    """View an encoded integer down to zero; its value."""
    bits: list[int] = []
    negative = False
    s = yield f"view #{p}"
    while s != "zero":
        inverse = re.fullmatch(r"the additive inverse of #(\d+)", s)
        double = re.fullmatch(r"two times #(\d+)( plus one)?", s)
        if inverse:
            negative, s = True, (yield f"view #{inverse.group(1)}")
        elif double:
            bits.append(1 if double.group(2) else 0)
            s = yield f"view #{double.group(1)}"
        else:
            raise ValueError(s)
    value = sum(bit << i for i, bit in enumerate(bits))
    return -value if negative else value


def _less(x: str, y: str) -> Script:
    try:
        a = yield from read_int(x)
        b = yield from read_int(y)
    except ValueError:
        yield "reply <<I can only compare integers>>"
        return
    yield "reply yes" if a < b else "reply no"


def _sort(p: str) -> Script:
    s = yield f"view #{p}"
    if s == "the empty list":
        yield f"reply #{p}"
        return
    first, rest = _read(_LIST, s).groups()
    sorted_rest = _list_literal((yield f"ask what is the sorted version of the list #{rest}?"))
    if failed(sorted_rest):
        yield f"reply {sorted_rest}"
        return
    inserted = yield f"ask what is the result of inserting #{first} into the sorted list ({sorted_rest})?"
    yield f"reply {_list_literal(inserted)}"


def _insert(x: str, p: str) -> Script:
    s = yield f"view #{p}"
    if s == "the empty list":
        yield f"reply the list with first element #{x} and remaining elements in the list #{p}"
        return
    first, rest = _read(_LIST, s).groups()
    verdict = question((yield f"ask is #{x} less than #{first}? answer yes or no"))
    if verdict not in ("yes", "no"):  # not taken as a "no": the sort would come out wrong
        yield f"reply {verdict}" if failed(verdict) else "reply <<the comparison said neither yes nor no>>"
        return
    if verdict == "yes":
        yield f"reply the list with first element #{x} and remaining elements in the list #{p}"
        return
    inserted = yield f"ask what is the result of inserting #{x} into the sorted list #{rest}?"
    yield f"reply the list with first element #{first} and remaining elements in the list ({_list_literal(inserted)})"


def _list_literal(reply: str) -> str:
    """A list seen inline in a reply (``@k: the list with ...``) written back as a message."""
    return question(reply)


_ACT = re.compile(r"what string should be returned by an agent in state #(\d+) who observes #(\d+)\?")
SCRIPTS: list[tuple[re.Pattern[str], Callable[..., Script]]] = [
    (re.compile(r"what is the list #(\d+) with a question mark added at the end\?"), _append_question_mark),
    (re.compile(r"what is the list of characters in #(\d+)\?"),
     _inside(r"the string with list of characters #(\d+)", "a string")),
    (re.compile(r"is #(\d+) empty\? \(respond yes/no\)"), _is_empty),
    (re.compile(r"what is the ASCII code of #(\d+)\?"),
     _inside(r"the character with ASCII code #(\d+)", "a character")),
    (re.compile(r"is #(\d+) negative, zero, or positive\? \(respond verbatim\)"), _sign),
    (re.compile(r"represent #(\d+) as A \* 2\^B; what is A\?"), _float),
    (re.compile(r"is #(\d+) less than #(\d+)\? answer yes or no"), _less),
    (re.compile(r"what is the sorted version of the list #(\d+)\?"), _sort),
    (re.compile(r"what is the result of inserting #(\d+) into the sorted list #(\d+)\?"), _insert),
]
