"""The code a page shows from a file is that file, as it is: pages show it inline (readable in
the repository and on a forge, where a snippet include shows as a bare ``--8<--`` line), marked
``<!-- file: PATH ... -->``, and this test fails when the copy and the file differ."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
COPY = re.compile(r"<!-- file: (\S+)[^\n]*-->\n```\w*\n(.*?)```", re.S)


def test_no_page_uses_a_snippet_include():
    assert not [p.relative_to(ROOT) for p in PAGES if "--8<--" in p.read_text()]


def test_every_copy_of_a_file_is_the_file():
    copies = [(page, path, shown) for page in PAGES for path, shown in COPY.findall(page.read_text())]
    assert len(copies) >= 7
    stale = [f"{page.relative_to(ROOT)}: {path}" for page, path, shown in copies if (ROOT / path).read_text() != shown]
    assert not stale, "copy the file into the page again: " + ", ".join(stale)
