"""The command language, pinned: what each line parses to, and what each bad line says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.meta.parser import (
    VALID_COMMANDS,
    Ask,
    Literal,
    Note,
    ParseError,
    Pointer,
    Reflect,
    Reply,
    Spawn,
    View,
    parse_command,
    parse_forced_reply,
    parse_message,
)


def lit(*parts):
    texts, args = [], []
    for i, part in enumerate(parts):
        (texts if i % 2 == 0 else args).append(part)
    return Literal(tuple(texts), tuple(args))


@pytest.mark.parametrize("line, command", [
    ("view #0", View(Pointer(0, "#"))),
    ("  view   #12  ", View(Pointer(12, "#"))),          # whitespace at the edges is ignored
    ("view#3", View(Pointer(3, "#"))),
    ("view #1 extra", View(lit("", Pointer(1, "#"), " extra"))),  # compound: a new message
    ("ask what is #2?", Ask(lit("what is ", Pointer(2, "#"), "?"))),
    ("ask@3 which character is it, as a letter?", Ask(lit("which character is it, as a letter?"), recipient=3)),
    ("ask$1 say hi", Ask(lit("say hi"), budget=1)),
    ("ask@2$50 go", Ask(lit("go"), recipient=2, budget=50)),
    ("ask$50@2 go", Ask(lit("go"), recipient=2, budget=50)),
    ("ask @2 $50 go", Ask(lit("go"), recipient=2, budget=50)),  # modifiers may be spaced
    ("reply #4", Reply(Pointer(4, "#"))),                       # bare pointer: the referent itself
    ("reply the answer is #4", Reply(lit("the answer is ", Pointer(4, "#"), ""))),
    ("return yes", Reply(lit("yes"))),
    ("reply", Reply(lit(""))),
    ("reply (#3)", Reply(Pointer(3, "#"))),                     # parenthesised bare pointer too
    ("reply (a (b #1) c) @2", Reply(lit("", lit("a ", lit("b ", Pointer(1, "#"), ""), " c"), " ",
                                         Pointer(2, "@"), ""))),
    ("reply ( padded )", Reply(lit("", lit("padded"), ""))),   # sub-messages are trimmed too
    ("reply 42 costs $5", Reply(lit("42 costs $5"))),           # deviation: digits and $ in prose
    ("reflect", Reflect()),
    ("spawn", Spawn()),
    ("note remember #1", Note(lit("remember ", Pointer(1, "#"), ""))),
])
def test_commands_parse_to(line, command):
    assert parse_command(line) == command


@pytest.mark.parametrize("line, reason", [
    ("hello", VALID_COMMANDS),
    ("viewing #3", VALID_COMMANDS),           # deviation: keywords end at a word boundary
    ("", VALID_COMMANDS),
    ("view #", "'#' must be followed by the number of a message, as in #3"),
    ("view @x", "'@' must be followed by the number of an agent, as in @3"),
    ("ask@ hi", "'@' after 'ask' must be followed by an agent number, as in ask@3"),
    ("ask$x hi", "'$' after 'ask' must be followed by a budget, as in ask$50"),
    ("ask@1@2 hi", "an ask has one recipient; '@' appears twice"),
    ("ask$1$2 hi", "an ask has one budget; '$' appears twice"),
    ("reply (unclosed", "the '(' at column 7 is never closed"),
    ("reply a) b", "unmatched ')' at column 8"),
    ("reflect now", "'reflect' takes nothing after it (got 'now')"),
    ("reply a\tb", "unexpected control character '\\t' at column 8"),
])
def test_bad_lines_say_what_is_wrong(line, reason):
    with pytest.raises(ParseError) as info:
        parse_command(line)
    assert info.value.reason == reason
    assert info.value.unknown_command == (reason == VALID_COMMANDS)


def test_view_of_a_bare_pointer_dereferences_whatever_the_whitespace():
    # The original silently stopped dereferencing under pyparsing 3 ("view #0" became the
    # literal " #0"); here it is pinned.
    for line in ("view #0", "view  #0", "view\u00a0#0".replace("\u00a0", " "), "view #0 "):
        assert parse_command(line) == View(Pointer(0, "#"))


def test_a_forced_reply_is_the_line_itself_or_the_body_of_a_reply_command():
    assert parse_forced_reply("out of budget, sorry") == lit("out of budget, sorry")
    assert parse_forced_reply("reply #2") == Pointer(2, "#")
    assert parse_forced_reply("reply#2") == Pointer(2, "#")
    assert parse_forced_reply("return") == lit("")
    assert parse_forced_reply("view #2") == lit("view ", Pointer(2, "#"), "")


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_any_line_parses_or_raises_parse_error(line):
    try:
        parse_command(line)
    except ParseError as exc:
        assert exc.reason
    try:
        parse_message(line)
    except ParseError as exc:
        assert exc.reason


def test_parentheses_nest_to_any_depth_and_an_unclosed_one_is_named():
    # The parser keeps open parentheses on its own stack: 100,000 deep is no deeper than 2.
    reply = parse_command("reply " + "(" * 100_000 + "x" + ")" * 100_000)
    depth, body = 0, reply.body
    while body.args:
        body, depth = body.args[0], depth + 1
    assert depth == 100_000 and body.texts == ("x",)
    with pytest.raises(ParseError, match="the '\\(' at column 200007 is never closed"):
        parse_command("reply " + "(" * 100_000 + "x" + ")" * 99_999 + "(")
