"""A server's pages show whatever a class, its arguments, its runs and its callers say as
text, never as markup: a hostile string in each (a docstring, a title, the formats, an
argument's name and value, a state, an action, a run's details and picture, a caller's URL)
comes out escaped on the description page, the run's display page and its picture, over a
real server on loopback. (The ACL log page: tests/acl/test_log_page.py.)"""

from __future__ import annotations

import asyncio
import urllib.request
from html.parser import HTMLParser

from probes import HOSTILE, probe_server

from wwm.client import RemoteWorld

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"
# a caller's URL has no spaces (else it is refused, never listed): the same markup without them
HOSTILE_URL = "http://client.example/?" + HOSTILE.replace(" ", "/")
ESCAPED_URL = "http://client.example/?" + ESCAPED.replace(" ", "/")


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "text/html"}), timeout=5) as reply:
        return reply.status, reply.read().decode()


class Elements(HTMLParser):
    """The elements and attributes of a page, as a browser's parser finds them."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.hrefs: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}
        self.hrefs += [value for name, value in attrs if name == "href"]


def assert_inert(page: str, scripts: int = 0) -> Elements:
    """No element or attribute of the hostile string made it into the page; its text did."""
    found = Elements(page)
    assert "img" not in found.tags and "onerror" not in found.attributes
    assert found.tags.count("script") == scripts                # only the page's own
    assert "<script>alert" not in page and "<img" not in page
    assert ESCAPED in page
    return found


def test_every_page_shows_hostile_text_as_text():
    args = {"label": HOSTILE, "more": "x" + HOSTILE}
    with probe_server("HostileWorld", args=args) as server:
        async def visit() -> tuple[str, str]:
            async with RemoteWorld(server.url, client_url=HOSTILE_URL) as world:
                started = await world.new_run()
                await world.get_state()
                await world.execute_action("go " + HOSTILE)
                display = get(started.display_url)
                assert display[0] == 200
                await world.end_run()
            return get(server.url)[1], display[1]

        description, display = asyncio.run(visit())

    found = assert_inert(description)
    assert "Hostile " + ESCAPED in description                   # title, docstring, formats
    assert "state " + ESCAPED in description and "action " + ESCAPED in description
    # an argument's value, as JSON: the quote inside it escaped twice, for JSON and for HTML
    assert ('<code>&#34;x&lt;script&gt;alert(1)&lt;/script&gt;\\&#34;&gt;&lt;img src=x '
            'onerror=alert(2)&gt;&#34;</code>') in description
    assert f'<a href="{ESCAPED_URL}">' in description   # a caller's URL
    assert HOSTILE_URL in found.hrefs                    # is the URL it gave, as a link

    assert_inert(display, scripts=1)                             # the live refresh alone
    assert "go " + ESCAPED in display                            # the last action
    assert f"<title>{ESCAPED} at (1, 1)</title>" in display      # the picture's mark
    assert f"<h2>{ESCAPED}</h2>" in display                      # a heading of the details
