"""Hypothesis strategies for ACL messages, shared by the codec and carrying tests.

``messages`` holds any text; ``xml_messages`` only what XML 1.0 can carry (no control
characters but tab, new line and carriage return, no U+FFFE or U+FFFF)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import strategies as st

from wwm.acl.message import AID, PERFORMATIVES, ACLMessage

_word = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_.@:/\-]{0,12}", fullmatch=True)
_any = st.characters(blacklist_categories=("Cs",))
_xml = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff") | st.sampled_from("\t\n\r")
_url = st.builds(lambda h, p: f"http://{h}:{p}/", st.from_regex(r"[a-z]{1,8}", fullmatch=True),
                 st.integers(1, 65535))
_time = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9998, 1, 1),
                     timezones=st.sampled_from([UTC]))


def _opt(s):
    return st.none() | s


def message_strategy(characters: st.SearchStrategy[str]) -> st.SearchStrategy[ACLMessage]:
    text = st.text(characters, max_size=30)
    aid = st.builds(AID, st.one_of(_word, st.text(characters, min_size=1, max_size=10)),
                    st.lists(_url, max_size=2).map(tuple),
                    st.just(()), st.lists(st.tuples(_word.map(lambda w: "X-" + w), text), max_size=1).map(tuple))
    return st.builds(
        ACLMessage, st.sampled_from(PERFORMATIVES), _opt(aid), st.lists(aid, max_size=3).map(tuple),
        st.lists(aid, max_size=1).map(tuple), _opt(text), _opt(_word), _opt(text), _opt(text),
        _opt(_word), _opt(text), _opt(_word), _opt(_word), _opt(_time),
        st.lists(st.tuples(_word.map(lambda w: "X-" + w), text), max_size=2,
                 unique_by=lambda p: p[0].lower()).map(tuple))


messages = message_strategy(_any)
xml_messages = message_strategy(_xml)
