"""The documentation site builds strictly (no broken link, anchor, snippet or API object, no
docstring the API reference cannot read), and holds what a reader comes for."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def text_of(page: Path) -> str:
    """A built page's article as plain text."""
    source = page.read_text()
    article = source[source.find("<article"):source.find("</article>")]
    return html.unescape(re.sub(r"<[^>]+>", "", article))


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    """The site as ``wwm docs --build-only`` builds it (``mkdocs build --strict``: a warning, a
    broken link or anchor, a missing API object fails it)."""
    assert built_site.done.returncode == 0, built_site.done.stdout + built_site.done.stderr
    return built_site.out


def test_the_api_reference_documents_connect(site):
    page = site / "api" / "index.html"
    assert 'id="wwm.connect"' in page.read_text()
    text = text_of(page)
    flat = " ".join(text.split())  # (a long signature is wrapped over lines)
    assert "connect( url: str, *, role: str | None = None, **args: Any ) -> RemoteWorld | RemoteMind" in flat
    assert 'role: Literal["mind"], **args: Any ) -> RemoteMind' in flat  # typed by its role
    assert "A remote World or Mind at url with the same async interface as a local object" in text


def test_the_api_reference_documents_the_interfaces_and_the_run_loop(site):
    interfaces = (site / "api" / "interfaces" / "index.html").read_text()
    for name in ("Mind", "World", "LearningMind", "CompetingMind", "FeudalMind", "SelectionMind"):
        assert f'id="wwm.protocol.interfaces.{name}"' in interfaces
    runner = (site / "api" / "runner" / "index.html").read_text()
    for name in ("run", "RunSettings", "RunResult"):
        assert f'id="wwm.client.runner.{name}"' in runner
    for module, name in (("results", "Suggestion"), ("errors", "Refusal"), ("store", "RunStore"),
                         ("society", "load")):
        assert f'{name}"' in (site / "api" / module / "index.html").read_text()
    # the reST roles of the docstrings are rewritten, not shown raw
    assert ":class:`" not in text_of(site / "api" / "interfaces" / "index.html")


def test_the_glossary_defines_the_proposals_words(site):
    page = site / "glossary" / "index.html"
    assert 'id="mind_m"' in page.read_text()
    text = text_of(page)
    assert re.search(r"Mind_M¶?\s*A Mind server that calls other Mind servers", text)
    for term in ("Mind_AS", "Mind_L", "Mind_i", "Mind_Feu", "World_W", "Society", "Credit trail",
                 "Client", "Run", "Query set", "State and action formats"):
        assert re.search(rf"^\s*{re.escape(term)}¶", text, re.M), term
    assert "The World-Wide-Mind: Draft" in text and "Dublin City University" in text


def test_getting_started_shows_the_example_files(site):
    text = text_of(site / "getting-started" / "index.html")
    for name in ("toward_food.py", "corridor.py", "in_python.py"):  # included, not copied
        source = (ROOT / "examples" / "getting-started" / name).read_text()
        definition = next(line for line in source.splitlines() if line.startswith(("class ", "async def ")))
        assert definition in text, name


def test_every_command_has_a_how_to_page(site):
    from wwm.commands import COMMANDS

    nav = yaml.safe_load(re.sub(r"!relative \S+", "''", (ROOT / "mkdocs.yml").read_text()))["nav"]
    pages = re.findall(r"howto/[\w-]+\.md", str(nav))
    for name in COMMANDS:
        assert f"howto/{name}.md" in pages, f"wwm {name} has no how-to page in mkdocs.yml's nav"
        assert (site / "howto" / name / "index.html").is_file()


def test_the_site_fetches_nothing_from_the_internet(site):
    for page in site.rglob("*.html"):
        source = page.read_text()
        assert "fonts.googleapis.com" not in source and "fonts.gstatic.com" not in source, page
