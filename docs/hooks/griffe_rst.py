"""A griffe extension for the API pages: the docstrings in ``src/`` are prose with a few
reStructuredText habits, which the site renders as Markdown. This rewrites those habits,
in the copy griffe reads, never in the source:

- a cross-reference role (``:class:`Mind```, ``:func:`~.remote.connect```) becomes inline
  code of the name (``Mind``, ``connect``);
- a paragraph ending in ``::`` (the reST mark of a literal block) ends in ``:``;
- a bullet list that starts right under a line of text, or is followed by one at the margin,
  gets the blank lines Markdown needs around it.
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
    in_list = False
    for line in text.splitlines():
        stripped = line.lstrip()
        bullet = line.startswith(("- ", "* "))
        if bullet and not in_list and lines and lines[-1].strip():
            lines.append("")  # Markdown needs a blank line before a list
        elif in_list and stripped and not bullet and not line.startswith(" "):
            lines.append("")  # a line back at the margin ends the list (reST); Markdown needs a gap
        if bullet:
            in_list = True
        elif not stripped or not line.startswith(" "):
            in_list = False
        if line.rstrip().endswith("::") and not stripped.startswith("::"):
            line = line.rstrip()[:-1]
        lines.append(line)
    return "\n".join(lines)


class ReStructuredTextHabits(griffe.Extension):
    """Rewrites each docstring as :func:`markdown` says, as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
