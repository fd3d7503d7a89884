"""Readable descriptions and the argument metadata contract, without a server: the ``prose``
filter on real docstrings of the package (reST and Markdown reference markup resolved, never
shown raw, everything else escaped); the server's argument schema keeping what an
``Annotated[..., Field(...)]`` says (description, range, enum, ``x-choices``, ``x-advanced``) and
a start-up value out of range refused; and the compose form's fields read from it."""

from __future__ import annotations

import inspect
from typing import Annotated, Literal

import pytest
from pydantic import Field

from wwm.kit.grid import GridWorld
from wwm.kit.region import RegionMind
from wwm.kit.wrappers import SubspaceWorld
from wwm.portal import combinations
from wwm.portal.app import _env
from wwm.portal.fields import DraftError, convert, field_of, humanise
from wwm.portal.prose import plain, prose
from wwm.protocol.arguments import Arguments
from wwm.protocol.errors import Refusal
from wwm.selection.mind_as import ActionSelectionMind


def test_prose_of_real_docstrings_resolves_reference_markup():
    region = str(prose(inspect.getdoc(RegionMind)))
    assert region.startswith("Mind_M: <code>minds[i]</code> acts in <code>region[i]</code> (the first that holds)")
    assert "``" not in region and "\n" not in region
    assert "if the state is" not in region                     # the first paragraph only
    selector = str(prose(inspect.getdoc(ActionSelectionMind)))
    assert "(argument <code>method</code>; see <code>METHODS</code>)" in selector and ":data:" not in selector
    wrapper = str(prose(inspect.getdoc(SubspaceWorld)))
    assert "cut down to the items in <code>keep</code>" in wrapper
    grid = str(prose(inspect.getdoc(GridWorld)))
    assert grid == "The grid world on the World interface: a new seeded copy for each client."
    module = str(prose(combinations.__doc__, 2))
    assert module.startswith("<p>Compose, link and list combinations")
    assert "<code>drafts</code>" in module and ":mod:" not in module    # :mod:`.drafts` by its name
    assert "<strong>Compose</strong> (<code>/compose</code>)" in module
    assert module.count("<p>") == 2


@pytest.mark.parametrize("text,html", [
    (":class:`~wwm.kit.grid.GridWorld` serves it", "<code>GridWorld</code> serves it"),
    (":func:`wwm.connect` opens one", "<code>connect</code> opens one"),
    (":meth:`Arguments.in_force()` says", "<code>in_force()</code> says"),
    (":doc:`the guide <guide/start>` says", "<code>the guide</code> says"),
    ("see `the paper <https://example.org/>`_ now", "see the paper now"),
    ("a [link](https://example.org/x) here", "a link here"),
    ("**bold** and *soft*", "<strong>bold</strong> and <em>soft</em>"),
    ("2 * 3 * 4", "2 * 3 * 4"),
    ("`x<3` <script>alert(1)</script>", "<code>x&lt;3</code> &lt;script&gt;alert(1)&lt;/script&gt;"),
    ("Ends with a block::\n\n    code here\n\nAfter.", "Ends with a block:"),
    ("", ""),
])
def test_prose_markup(text, html):
    assert str(prose(text)) == html


def test_prose_is_the_portals_filter_and_plain_drops_the_tags():
    env = _env()
    assert env.filters["prose"] is prose
    shown = env.from_string("<p>{{ d|prose }}</p>").render(d="Uses ``a<b`` and <i>x</i>.")
    assert shown == "<p>Uses <code>a&lt;b</code> and &lt;i&gt;x&lt;/i&gt;.</p>"
    assert plain("Uses ``a<b`` and :class:`x.Y`.") == "Uses a<b and Y."
    assert str(prose(None)) == "" and str(prose(42)) == ""


class Annotated_:
    def __init__(self,
                 method: Annotated[Literal["fast", "careful"], Field(
                     description="How it decides.", json_schema_extra={"x-choices": {
                         "fast": "Acts at once.", "careful": "Thinks ``first``."}})] = "fast",
                 rate: Annotated[float, Field(description="How much.", ge=0, le=1)] = 0.5,
                 depth: Annotated[int, Field(gt=0, json_schema_extra={"x-advanced": True})] = 3,
                 plain_one: int = 1) -> None:
        pass


def test_the_schema_carries_annotations_and_the_form_reads_them():
    arguments = Arguments(Annotated_)
    props = arguments.schema(arguments.in_force({}))["properties"]
    assert props["method"]["enum"] == ["fast", "careful"] and props["method"]["description"] == "How it decides."
    assert props["method"]["x-choices"] == {"fast": "Acts at once.", "careful": "Thinks ``first``."}
    assert (props["rate"]["minimum"], props["rate"]["maximum"]) == (0, 1)
    assert props["depth"]["exclusiveMinimum"] == 0 and props["depth"]["x-advanced"] is True
    with pytest.raises(Refusal, match="'rate'"):                      # the range holds at New run
        arguments.build({"rate": "2"})
    with pytest.raises(Refusal, match="'rate'"):                      # and for a start-up default
        arguments.in_force({"rate": "2"})
    method = field_of("method", props["method"])
    assert method.kind == "choice" and [(c.value, c.text) for c in method.choices] == [
        ("fast", "Acts at once."), ("careful", "Thinks first.")]
    rate = field_of("rate", props["rate"])
    assert (rate.kind, rate.minimum, rate.maximum, rate.range_text, rate.help) == ("number", 0, 1, "from 0 to 1",
                                                                                   "How much.")
    depth = field_of("depth", props["depth"])
    assert depth.advanced and depth.range_text == "more than 0" and depth.step == "1"
    assert field_of("plain_one", props["plain_one"]).label == "Plain one"
    assert convert(rate, "0.25", "The Mind") == 0.25 and convert(method, "careful", "The Mind") == "careful"
    with pytest.raises(DraftError, match="The Mind: “Rate” must be from 0 to 1; 1.5 is out of range"):
        convert(rate, "1.5", "The Mind")
    with pytest.raises(DraftError, match="“Depth” must be more than 0; 0 is out of range"):
        convert(depth, "0", "The Mind")


@pytest.mark.parametrize("name,words", [("q_temperature", "Q temperature"), ("w_run_length", "W run length"),
                                        ("max_depth", "Max depth"), ("maxSteps", "Max steps"),
                                        ("URL", "URL"), ("seed", "Seed")])
def test_humanise(name, words):
    assert humanise(name) == words
