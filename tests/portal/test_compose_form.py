"""The compose form from the servers' argument schemas, over real HTTP with real ``wwm serve``
processes: an AS whose schema carries descriptions, a range, a list of methods with a sentence
each and advanced arguments gets a select, a number input with min/max, a checkbox, labels in
words with their help (aria-describedby), the few that matter before "Advanced"; today's AS
(no metadata) still gets plain fields named in words; a region's syntax is explained where it
is typed; members move up and down; an out-of-range value or a method not in the list is
refused with a message naming the argument in words, and nothing is stored."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from compose_servers import METHOD_SENTENCES, PLAIN, TESTS_ON_PATH, TUNED
from portal_sites import csrf_of
from test_combinations import REGION, Browser, browser, compose_fields, message, portal, register, run_store, store

from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow
__all__ = ["browser", "portal", "run_store", "store"]     # fixtures, used by name


@pytest.fixture(scope="module")
def tuned() -> Iterator[ServerProcess]:
    with ServerProcess(TUNED, env=TESTS_ON_PATH) as server:
        yield server


def field_tag(page: str, name: str) -> str:
    """The opening tag of the control named ``name``."""
    found = re.search(rf'<(input|select|textarea)(?=[^>]*name="{re.escape(name)}")[^>]*>', page)
    if name.endswith(("remember",)):       # a checkbox follows its hidden "false" of the same name
        found = re.search(rf'<input type="checkbox"[^>]*name="{re.escape(name)}"[^>]*>', page)
    assert found, f"no control {name}"
    return found.group(0)


def help_of(page: str, tag: str) -> str:
    described = re.search(r'aria-describedby="([^"]+)"', tag)
    assert described, tag
    first = described.group(1).split()[0]
    found = re.search(rf'<p class="compose-help" id="{re.escape(first)}">(.*?)</p>', page, re.S)
    assert found, first
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


async def test_an_annotated_schema_gives_choices_ranges_checkboxes_words_and_advanced(browser: Browser, store,
                                                                                     wwm_servers, tuned):
    world, seeker, random, as_id = register(store, wwm_servers["world"], wwm_servers["seeker"],
                                            wwm_servers["random"], tuned)
    _, me = await browser.get("/me")           # an identity first (made by a POST: a GET makes none),
    await browser.post("/me/recovery", {"csrf": csrf_of(me)})   # its making renews the CSRF token
    _, page = await browser.get("/compose")
    _, page, _ = await browser.press(page, "update:mind", **{"world.server": world, "mind.server": as_id})
    # the method: a list of choices, each with its sentence; the default first
    method = page[page.index('<select id="at-mind-arg-method"'):]
    method = method[:method.index("</select>")]
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', method)
    assert options[0] == ("", "Default (w=q)")
    assert [v for v, _ in options[1:]] == ["w=q", "hierarchical-q", "min-worst-unhappiness"]   # the enum's order
    for value, text in options[1:]:
        assert html.unescape(text) == f"{value}: {METHOD_SENTENCES[value]}"
    assert "How the members' suggestions are weighed" in help_of(page, field_tag(page, "mind.args.method"))
    # a number in its range, labelled in words, with its help and default
    temperature = field_tag(page, "mind.args.q_temperature")
    assert 'type="number"' in temperature and 'min="0.0"' in temperature and 'max="5.0"' in temperature
    assert 'step="any"' in temperature
    assert '<label for="at-mind-arg-q_temperature">Q temperature</label>' in page
    words = help_of(page, temperature)
    assert "How freely it explores" in words and "From 0 to 5." in words and "Default: 1.0." in words
    # the few that matter first; a checkbox and the seed under "Advanced"
    advanced = page[page.index('<details class="compose-advanced" id="at-mind-advanced"'):]
    advanced = advanced[:advanced.index("</details>")]
    assert "Advanced (2 more)" in advanced and 'name="mind.args.remember"' in advanced
    assert 'name="mind.args.seed"' in advanced and 'name="mind.args.q_temperature"' not in advanced
    assert page.index('name="mind.args.q_temperature"') < page.index('id="at-mind-advanced"')
    assert 'type="checkbox"' in field_tag(page, "mind.args.remember")
    # the server's description as prose: the reference resolved, no markup shown raw
    about = re.search(r'<p class="compose-about" id="at-mind-about">(.*?)</p>', page, re.S)
    assert about and "<code>ActionSelectionMind</code>" in about.group(1) and ":class:" not in about.group(1)
    assert "``" not in about.group(1)
    # the server's page: each argument's "What" is its description, never its name again
    _, server_page = await browser.get(f"/servers/{as_id}")
    assert "How freely it explores: 0 always takes the best action." in server_page
    assert "Q Temperature" not in server_page and "W Run Length" not in server_page

    # members in place: add two, choose, reorder, and the tree beside the form follows
    _, page, _ = await browser.press(page, "add:mind")
    _, page, _ = await browser.press(page, "add:mind")
    _, page, _ = await browser.press(page, "update", **{"mind.members.0.server": seeker,
                                                         "mind.members.1.server": random,
                                                         "mind.args.method": "hierarchical-q",
                                                         "mind.args.q_temperature": "0.5"})
    assert 'formaction="/compose#at-mind-members-0"' in page       # member 2's "Move up" comes back at it
    tree = page[page.index('<ul class="tree compose-tree"'):page.index('<div id="society-state">')]
    assert tree.index("FoodSeeker") < tree.index("RandomMind")
    assert "<tr><th>Method</th><td>hierarchical-q</td></tr>" in tree
    assert "<tr><th>Q temperature</th><td>0.5</td></tr>" in tree
    _, page, _ = await browser.press(page, "up:mind.members.1")
    tree = page[page.index('<ul class="tree compose-tree"'):page.index('<div id="society-state">')]
    assert tree.index("RandomMind") < tree.index("FoodSeeker")
    assert compose_fields(page)["mind.members.0.server"] == random
    assert 'data-focus="at-mind-members-0"' in page                  # the script moves the focus there
    status, page, _ = await browser.press(page, "up:mind.members.0")
    assert status == 400 and "that member is already the first" in message(page)
    _, page, _ = await browser.press(page, "down:mind.members.0")
    assert compose_fields(page)["mind.members.0.server"] == seeker
    assert "Complete: it can be saved." in page and "<pre class=\"preview\">" in page

    # out of range, or not one of the list: refused, naming the argument in words; nothing stored
    for change, words in (({"mind.args.q_temperature": "7"},
                           "The Mind: “Q temperature” must be from 0 to 5; 7 is out of range"),
                          ({"mind.args.q_temperature": "-0.5"}, "“Q temperature” must be from 0 to 5"),
                          ({"mind.args.method": "fastest"},
                           "The Mind: “Method” is one of w=q, hierarchical-q, min-worst-unhappiness; not 'fastest'"),
                          ({"world.args.size": "200"}, "The World: “Size” must be from 3 to 100; 200 is out of range")):
        status, refused, _ = await browser.press(page, "save", **{"title": "Out of range", **change})
        assert status == 400 and words in message(refused), (change, message(refused))
    assert store.recent_combinations() == []
    # in range: saved, the checkbox left as drawn stays out of the document, ticked it is in
    fields = compose_fields(page)
    assert fields["mind.args.remember"] == "false"
    status, saved, url = await browser.press(page, "save", title="Tuned", **{"mind.args.remember": "true"})
    assert status == 200 and url.endswith("/combination/1"), message(saved)
    args = store.combination(1).document["mind"]["args"]
    assert args == {"method": "hierarchical-q", "q_temperature": 0.5, "remember": True,
                    "minds": [{"url": wwm_servers["seeker"].url}, {"url": wwm_servers["random"].url}]}
    status, saved, url = await browser.press(page, "save", title="Tuned, remember left")
    assert status == 200 and url.endswith("/combination/2"), message(saved)
    assert "remember" not in store.combination(2).document["mind"]["args"]


async def test_without_metadata_the_form_still_works_with_fields_named_in_words(browser: Browser, store,
                                                                              wwm_servers):
    with ServerProcess(PLAIN, env=TESTS_ON_PATH) as plain, ServerProcess(REGION) as region:
        world, seeker, random, as_id, region_id = register(store, wwm_servers["world"], wwm_servers["seeker"],
                                                           wwm_servers["random"], plain, region)
        _, page = await browser.get("/compose")
        _, page, _ = await browser.press(page, "update:mind", **{"world.server": world, "mind.server": as_id})
        method = field_tag(page, "mind.args.method")
        assert 'type="text"' in method and 'placeholder="w=q"' in method        # free text, its default shown
        assert '<label for="at-mind-arg-q_temperature">Q temperature</label>' in page
        assert '<label for="at-mind-arg-w_run_length">W run length</label>' in page
        assert "Default: 1.0." in help_of(page, field_tag(page, "mind.args.q_temperature"))
        assert 'id="at-mind-advanced"' not in page                               # nothing marked advanced
        # a region mind as a member: its syntax explained where it is typed, with an example
        _, page, _ = await browser.press(page, "add:mind")
        _, page, _ = await browser.press(page, "update:mind.members.0", **{"mind.members.0.server": region_id})
        region_tag = field_tag(page, "mind.members.0.args.region")
        assert "at-mind-members-0-arg-region-syntax" in region_tag                 # read with the field
        syntax = page[page.index('<div class="compose-syntax"'):]
        syntax = html.unescape(re.sub(r"<[^>]+>", "", syntax[:syntax.index("</div>")]))
        assert "hd<=2" in syntax and "Example: hd<=2; fd<=1 for three members" in syntax
        assert "Items of GridWorld's state: one line of key=value items" in syntax
        _, page, _ = await browser.press(page, "add:mind.members.0")
        _, page, _ = await browser.press(page, "add:mind.members.0")
        _, page, _ = await browser.press(page, "add:mind")
        status, page, url = await browser.press(page, "save", **{
            "title": "Plain AS", "mind.args.method": "static-w", "mind.args.q_temperature": "2",
            "mind.members.0.args.region": "hd<=2", "mind.members.0.members.0.server": random,
            "mind.members.0.members.1.server": seeker, "mind.members.1.server": seeker})
        assert status == 200 and url.endswith("/combination/1"), message(page)
        mind = store.combination(1).document["mind"]
        assert mind["args"]["method"] == "static-w" and mind["args"]["q_temperature"] == 2.0
        assert mind["args"]["minds"][0]["args"]["region"] == "hd<=2"
