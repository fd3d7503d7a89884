"""The conversation log's web page shows what agents said as text, never as markup: a
hostile task, agent name and conversation, sent over the network to a contractor server on
loopback and logged by both sides, come out escaped on the page of either log."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from wwm.acl.agent import Agent
from wwm.acl.contractnet import contract_net
from wwm.acl.directory import Directory
from wwm.acl.network import serve_agent
from wwm.cli.main import main
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"


class Tags(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}


async def test_the_log_page_shows_hostile_messages_as_text(tmp_path) -> None:
    contractor_log, boss_log = tmp_path / "contractor.jsonl", tmp_path / "boss.jsonl"
    with ServerProcess("wwm.acl.contractnet:Contractor",
                       args={"name": "c" + HOSTILE, "price": 1, "log": str(contractor_log)}) as server:
        directory = Directory()
        await directory.register(server.url)
        boss = Agent("boss" + HOSTILE, log_path=str(boss_log))
        async with serve_agent(boss):
            result = await contract_net(boss, directory.find("work"), "(task " + HOSTILE + ")",
                                        needed=1, deadline=1.0)
        assert result.complete
    for log in (boss_log, contractor_log):
        page = tmp_path / (log.stem + ".html")
        assert main(["acl", "show", str(log), "--html", str(page)]) == 0
        text = page.read_text()
        found = Tags(text)
        assert "img" not in found.tags and "script" not in found.tags and "onerror" not in found.attributes
        assert "<script>alert" not in text and "<img" not in text
        assert f"<th>boss{ESCAPED}</th><th>c{ESCAPED}</th>" in text       # the agents' names
        assert f"(task {ESCAPED})" in text                                 # what they said
