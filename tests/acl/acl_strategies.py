"""Hypothesis strategies for ACL messages, shared by the codec and carrying tests."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import strategies as st

from wwm.acl.message import AID, PERFORMATIVES, ACLMessage

_word = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_.@:/\-]{0,12}", fullmatch=True)
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_url = st.builds(lambda h, p: f"http://{h}:{p}/", st.from_regex(r"[a-z]{1,8}", fullmatch=True),
                 st.integers(1, 65535))
_aid = st.builds(AID, st.one_of(_word, st.text(min_size=1, max_size=10)),
                 st.lists(_url, max_size=2).map(tuple),
                 st.just(()), st.lists(st.tuples(_word.map(lambda w: "X-" + w), _text), max_size=1).map(tuple))
_time = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9998, 1, 1),
                     timezones=st.sampled_from([UTC]))


def _opt(s):
    return st.none() | s


messages = st.builds(
    ACLMessage, st.sampled_from(PERFORMATIVES), _opt(_aid), st.lists(_aid, max_size=3).map(tuple),
    st.lists(_aid, max_size=1).map(tuple), _opt(_text), _opt(_word), _opt(_text), _opt(_text),
    _opt(_word), _opt(_text), _opt(_word), _opt(_word), _opt(_time),
    st.lists(st.tuples(_word.map(lambda w: "X-" + w), _text), max_size=2, unique_by=lambda p: p[0].lower()).map(tuple))


