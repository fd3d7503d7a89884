"""Members (wwm.client.members): a URL or {url, args}, in any of the forms they come in, checked
all the way down with the path of what is wrong; and how they travel in New run."""

from __future__ import annotations

import json

import pytest

from wwm.client.members import MemberError, MemberSpec, member_entries, read_member
from wwm.client.remote import RemoteMind
from wwm.protocol import queries as Q


def test_a_member_reads_from_a_url_a_mapping_or_its_json_text():
    nested = {"url": " http://b/ ", "args": {"method": "rotation", "minds": ["http://c/", {"url": "http://d/"}]}}
    want = MemberSpec("http://b/", {"method": "rotation", "minds": ["http://c/", "http://d/"]})
    assert read_member(nested, "minds[0]") == want
    assert read_member(json.dumps(nested), "minds[0]") == want
    assert read_member(" http://a/ ", "minds[0]") == MemberSpec("http://a/")
    assert MemberSpec("http://a/").wire() == "http://a/"
    assert want.wire() == {"url": "http://b/", "args": want.args}


def test_a_list_of_members_comes_as_a_list_urls_in_one_text_or_json():
    assert member_entries("http://a/, http://b/") == ["http://a/", "http://b/"]
    assert member_entries('[{"url": "http://a/"}, "http://b/"]') == [{"url": "http://a/"}, "http://b/"]
    assert member_entries('{"url": "http://a/"}') == [{"url": "http://a/"}]
    assert member_entries(None) == []


@pytest.mark.parametrize(("entry", "says"), [
    (42, "minds[1]: a mind is a URL or a mapping {url, args}, not 42"),
    ("", "minds[1]: an empty mind URL"),
    ("{not json", "minds[1]: not a URL, nor a JSON object {url, args}"),
    ({"url": "http://a/", "arg": {}}, "minds[1]: unknown key 'arg'"),
    ({"args": {}}, "minds[1].url: a mind needs its URL as text, not None"),
    ({"url": "http://a/", "args": "weak"}, "minds[1].args: the mind's New run arguments are a mapping"),
    ({"url": "http://a/", "args": {"minds": ["http://b/", {"url": "http://c/", "args": [1]}]}},
     "minds[1].args.minds[1].args: the mind's New run arguments are a mapping"),
    ({"url": "http://a/", "args": {"calls": {"url": 3}}}, "minds[1].args.calls.url: a mind needs its URL"),
    ({"url": "http://a/", "token": 7}, "minds[1].token: a member server's access token is text, not int"),
    ({"url": "http://a/", "token": "  "}, "minds[1].token: a member server's access token is text, not blank text"),
])
def test_a_member_of_the_wrong_shape_names_its_path(entry, says):
    with pytest.raises(MemberError) as info:
        read_member(entry, "minds[1]")
    assert str(info.value).startswith(says) and "\n" not in str(info.value)


def test_members_travel_in_the_repeated_mind_url_item_as_json_text():
    spec = next(s for s in Q.QUERIES.values() if s.role == "mind" and s.method == "new_run")
    mind = RemoteMind("http://127.0.0.1:9/", minds=["http://a/", {"url": "http://b/", "args": {"x": 1}}])
    _, query = mind._build("new_run", dict(mind.args))
    sent = query.data["mind URL"]
    assert sent == ["http://a/", '{"url": "http://b/", "args": {"x": 1}}']
    field = next(f for f in spec.arguments if f.wire == "mind URL")
    assert Q.read_value(field, sent, "New run") == sent  # text stays text
    # a JSON client that sends the object itself: read as its JSON text, not a Python repr
    assert json.loads(Q.read_value(field, [{"url": "http://b/"}], "New run")[0]) == {"url": "http://b/"}


def test_run_args_may_use_names_the_connection_takes_for_itself():
    mind = RemoteMind("http://127.0.0.1:9/", timeout=1.0, run_args={"timeout": 4, "method": "rotation"})
    assert mind.args == {"timeout": 4, "method": "rotation"}
    assert mind.transport.timeout == 1.0
