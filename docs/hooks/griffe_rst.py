"""A griffe extension for the API pages: the docstrings in ``src/`` are prose with a few
reStructuredText habits, which the site renders as Markdown. This rewrites those habits,
in the copy griffe reads, never in the source:

- a cross-reference role (``:class:`Mind```, ``:func:`~.remote.connect```) becomes inline
  code of the name (``Mind``, ``connect``);
- a paragraph ending in ``::`` (the reST mark of a literal block) ends in ``:``;
- a bullet list that starts right under a line of text gets the blank line Markdown needs.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`~?\.?([^`]+)`")


def _name(match: re.Match[str]) -> str:
    target = match.group(1)
    # ":class:`~.panel.Panel`" shows the last part, as Sphinx does with "~"
    if match.group(0).split("`")[1].startswith("~"):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown(text: str) -> str:
    """``text`` with the reST habits above rewritten for Markdown."""
    text = ROLE.sub(_name, text)
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.lstrip()
        starts_list = stripped.startswith(("- ", "* "))
        if starts_list and lines and lines[-1].strip() and not lines[-1].lstrip().startswith(("- ", "* ")) \
                and not lines[-1].startswith(" "):
            lines.append("")
        if line.rstrip().endswith("::") and not stripped.startswith("::"):
            line = line.rstrip()[:-1]
        lines.append(line)
    return "\n".join(lines)


class ReStructuredTextHabits(griffe.Extension):
    """Rewrites each docstring as :func:`markdown` says, as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
