"""Server descriptions (docstrings, argument descriptions) as readable prose for a person.

A card's description is the class's docstring: reST and Markdown reference markup
(``:class:`x```, double-backquoted code, single backquotes, ``**bold**``, links) and hard line
breaks. :func:`prose` (the Jinja filter ``prose``) gives its first paragraph as one escaped
paragraph of text, code as ``<code>``, references as the name referred to, never raw markup.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

MAX_CHARS = 2_000               # of one paragraph shown (a card is untrusted text)

# one pattern, tried left to right: what each alternative matches is named by its group
_MARKUP = re.compile(r"""
      :(?:[a-z]+:)?[a-z]+:`(?P<ref>[^`]+)`           # :class:`wwm.x.Y`, :py:func:`~a.b`, :data:`X`
    | ``(?P<literal>[^`]+?)``                          # ``code``
    | `(?P<target>[^`<]+?)\s*<(?P<url>[^>`]+)>`_{1,2}  # `text <https://...>`_
    | `(?P<code>[^`]+)`_{0,2}                          # `x` (reST default role, Markdown code)
    | \[(?P<label>[^\]]+)\]\((?P<href>[^)\s]+)\)       # [text](url)
    | \*\*(?P<strong>[^*]+)\*\*                        # **bold**
    | (?<![\w*])\*(?P<em>[^*\s][^*]*)\*(?!\w)          # *emphasis*
""", re.VERBOSE)


def _reference(text: str) -> str:
    """What a reST cross-reference names, as a reader would say it: ``~a.b.C`` and
    ``a.b.C`` are ``C``; ``title <target>`` is the title."""
    explicit = re.fullmatch(r"(.+?)\s*<[^>]+>", text)
    if explicit:
        return explicit.group(1).strip()
    name = text.strip().lstrip("~!.")
    if "." in name and " " not in name:
        name = name.rstrip("()").rpartition(".")[2] + ("()" if name.endswith("()") else "")
    return name


def inline(text: str) -> Markup:
    """One paragraph's text with its inline markup resolved; everything else escaped."""
    out: list[str] = []
    at = 0
    for found in _MARKUP.finditer(text):
        out.append(str(escape(text[at:found.start()])))
        at = found.end()
        group = found.lastgroup
        if group == "ref":
            out.append(f"<code>{escape(_reference(found['ref']))}</code>")
        elif group in ("literal", "code"):
            out.append(f"<code>{escape(found[group])}</code>")
        elif found["target"] is not None:
            out.append(str(escape(found["target"])))
        elif found["label"] is not None:
            out.append(str(escape(found["label"])))
        elif group == "strong":
            out.append(f"<strong>{escape(found['strong'])}</strong>")
        elif group == "em":
            out.append(f"<em>{escape(found['em'])}</em>")
    out.append(str(escape(text[at:])))
    return Markup("".join(out))  # noqa: S704 - every piece escaped above


def paragraphs(text: str) -> list[str]:
    """A docstring's paragraphs (blank-line separated), each on one line; literal blocks
    (indented text after a ``::``) and doctest lines left out."""
    found: list[str] = []
    literal = False
    for block in re.split(r"\n[ \t]*\n", text.strip()):
        lines = block.splitlines()
        if literal and lines and lines[0][:1] in (" ", "\t"):
            continue                                    # the literal block under a "::"
        literal = False
        lines = [line for line in lines if not line.lstrip().startswith(">>>")]
        joined = " ".join(line.strip() for line in lines).strip()
        if not joined:
            continue
        if joined.endswith("::"):
            literal = True
            joined = joined[:-2] if joined[-3:-2].isspace() or len(joined) == 2 else joined[:-1]  # reST: "x::" is "x:"
            joined = joined.rstrip()
        if joined:
            found.append(joined)
    return found


def first_paragraph(text: object) -> str:
    """The first paragraph of a description, on one line (empty for what is not text)."""
    if not isinstance(text, str):
        return ""
    found = paragraphs(text)
    return found[0][:MAX_CHARS] if found else ""


def prose(text: object, count: int = 1) -> Markup:
    """The Jinja filter ``prose``: the first ``count`` paragraphs of a description as HTML,
    one ``<p>`` each (with ``count=1``, the bare text, to put inside an element of the
    template's own). Untrusted text: every character not markup is escaped."""
    if not isinstance(text, str):
        return Markup("")
    found = [p[:MAX_CHARS] for p in paragraphs(text)[:max(1, count)]]
    if count == 1:
        return inline(found[0]) if found else Markup("")
    return Markup("".join(f"<p>{inline(p)}</p>" for p in found))  # noqa: S704 - inline() escapes


def plain(text: object) -> str:
    """A description's first paragraph as plain text (for an attribute or an option): the
    markup resolved as :func:`prose` does, without tags."""
    return re.sub(r"<[^>]+>", "", str(prose(text))).replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&")
